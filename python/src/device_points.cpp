// Points in device memory handed to the GPU renderer (device_points.h).
#include "device_points.h"

#include "engine/io/base/io_common.h"

namespace nb = nanobind;

namespace pr::py {

namespace {

[[noreturn]] void bad(const std::string& message) {
  throw nb::value_error(message.c_str());
}

}  // namespace

DevicePoints::DevicePoints(const AnyArray& xyz, const std::optional<AnyArray>& colors)
    : xyz_(xyz), colors_(colors) {
  if (xyz.device_id() != 0)
    bad("points: on CUDA device " + std::to_string(xyz.device_id()) +
        "; the GPU renderer draws on device 0");
  arrays_.xyz = xyz.data();
  arrays_.xyz_double = xyz.dtype().bits == 64;
  arrays_.point_stride = xyz.stride(0);
  arrays_.coord_stride = xyz.stride(1);
  arrays_.count = xyz.shape(0);
  if (!colors) return;
  const AnyArray& c = *colors;
  const size_t n = xyz.shape(0);
  if (!on_device(c) || c.device_id() != xyz.device_id())
    bad("colors: expected a device array on the points' device");
  if (c.ndim() != 2 || c.shape(0) != n || (c.shape(1) != 3 && c.shape(1) != 4))
    bad("colors: expected shape (" + std::to_string(n) + ", 3) or (" + std::to_string(n) + ", 4)");
  const auto dt = c.dtype();
  using C = nb::dlpack::dtype_code;
  if (dt.code == uint8_t(C::UInt) && dt.bits == 8)
    arrays_.color_type = DeviceColorType::kUint8;
  else if (dt.code == uint8_t(C::Float) && dt.bits == 32)
    arrays_.color_type = DeviceColorType::kFloat32;
  else if (dt.code == uint8_t(C::Float) && dt.bits == 64)
    arrays_.color_type = DeviceColorType::kFloat64;
  else
    bad("colors: device colors must be uint8, float32 or float64");
  arrays_.colors = c.data();
  arrays_.color_point_stride = c.stride(0);
  arrays_.color_channel_stride = c.stride(1);
}

bool DevicePoints::upload(GpuRenderer& gpu, const ColorSettings* by_elevation, std::string* error) {
  if (arrays_.xyz_double) {
    Bounds b;
    if (!gpu.device_points_bounds(arrays_, false, &b, error)) return false;
    arrays_.origin = io::choose_origin(b);
  }
  ColorRecipe recipe;
  if (by_elevation) {
    // The range colorize() takes for these points on the host: the bounds of the stored floats.
    Bounds stored;
    if (!gpu.device_points_bounds(arrays_, true, &stored, error)) return false;
    PointCloud frame_of_reference;
    frame_of_reference.origin = arrays_.origin;
    ColorSettings cs = *by_elevation;
    cs.mode = ColorMode::kElevation;
    color_recipe(frame_of_reference, cs, &recipe, &stored);
    arrays_.colors = nullptr;
    arrays_.recipe = &recipe;
  }
  const bool ok = gpu.set_device_points(arrays_, &bounds_, error);
  arrays_.xyz = nullptr;
  arrays_.colors = nullptr;
  arrays_.recipe = nullptr;
  return ok;
}

}  // namespace pr::py
