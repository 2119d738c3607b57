// Drawing from Python (bindings.h): render() and Renderer on the engine's renderers, with the
// command line's options, camera and colors (app/options.h, app/startup.h, app/headless.h), so
// that an image equals `pointraster --headless` for the same points and options. project(), the
// GPU's availability and save_png() too.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "bindings.h"
#include "cloud_arrays.h"
#include "device_points.h"
#include "engine/image.h"
#include "engine/morton.h"
#include "engine/renderer.h"
#include "headless.h"
#include "kernels/gpu_renderer.h"
#include "options.h"
#include "startup.h"

namespace nb = nanobind;

namespace pr::py {

namespace {

/// The image buffers of a renderer's frames: a frame's arrays are handed to NumPy without a copy,
/// and when NumPy frees them they come back here for a later frame (if the renderer is still
/// there), so that frames reuse memory already mapped instead of mapping and unmapping megabytes
/// each time. Used with the GIL held only (the arrays' deleters run with it).
struct BufferPool {
  static constexpr size_t kKeep = 2;  // buffers of each kind kept
  std::vector<std::vector<uint32_t>> rgba;
  std::vector<std::vector<float>> depth;
  std::vector<std::vector<uint32_t>>& of(uint32_t*) { return rgba; }
  std::vector<std::vector<float>>& of(float*) { return depth; }
  template <class T>
  std::vector<T> take() {
    auto& list = of(static_cast<T*>(nullptr));
    if (list.empty()) return {};
    std::vector<T> v = std::move(list.back());
    list.pop_back();
    return v;
  }
};

/// `values` handed to NumPy as an array of `shape` (uint32 pixels as 4 uint8 channels); their
/// memory goes back to `pool` when NumPy frees the array.
template <class T>
nb::object numpy_of(std::vector<T>&& values, std::initializer_list<size_t> shape,
                    const std::shared_ptr<BufferPool>& pool) {
  struct Owned {
    std::vector<T> values;
    std::weak_ptr<BufferPool> pool;
  };
  auto* owned = new Owned{std::move(values), pool};
  nb::capsule owner(owned, [](void* p) noexcept {
    auto* o = static_cast<Owned*>(p);
    if (auto keep = o->pool.lock()) {
      auto& list = keep->of(static_cast<T*>(nullptr));
      if (list.size() < BufferPool::kKeep) list.push_back(std::move(o->values));
    }
    delete o;
  });
  if constexpr (std::is_same_v<T, uint32_t>) {
    return nb::cast(nb::ndarray<nb::numpy, uint8_t>(
        reinterpret_cast<uint8_t*>(owned->values.data()), shape, owner));
  } else {
    return nb::cast(nb::ndarray<nb::numpy, T>(owned->values.data(), shape, owner));
  }
}

/// The module's default mode: the GPU where one can be used, else the CPU.
std::string default_mode() {
  std::string why;
  return gpu_renderer_available(&why) ? "gpu" : "cpu";
}

}  // namespace

/// A cloud kept by a renderer (on the device for the GPU) and the options it is drawn with:
/// pointraster.Renderer. The cloud's arrays are read once, at construction; each render() draws
/// one frame from the camera given (or the starting one).
class PyRenderer {
 public:
  PyRenderer(const AnyArray& xyz, std::optional<AnyArray> colors, const nb::dict& attributes,
             const std::vector<std::string>& args, bool depth, const std::string& framework)
      : framework_(framework) {
    std::string error;
    if (parse_arguments(args, o_, &error) != 0) throw nb::value_error(error.c_str());
    check_positions(xyz, "points");
    start_ = o_.camera;
    mode_ = o_.mode.value_or(default_mode());
    {
      std::string why;
      if (mode_ == "gpu" && !gpu_renderer_available(&why))
        throw std::runtime_error("mode='gpu' is not available: " + why);
    }
    up_ = up_axis_for(o_, true);
    const bool device = on_device(xyz);
    if (device) {
      if (mode_ != "gpu")
        throw nb::value_error(
            "points: a device array needs mode='gpu' (the CPU renderer reads host arrays)");
      if (attributes.size() > 0)
        throw nb::value_error("points: a dict of device arrays is not supported");
      // As the host colors the same arrays: their colors, else elevation (the default of a cloud
      // without colors); the other modes need attributes that device points do not have.
      ColorMode cm = colors ? ColorMode::kRgb : ColorMode::kElevation;
      std::string field;
      if (!o_.color.empty() && (!parse_color_mode(o_.color, &cm, &field) ||
                                (cm != ColorMode::kRgb && cm != ColorMode::kElevation)))
        throw nb::value_error(("color: '" + o_.color +
                               "' needs attributes that device points do not have (rgb or "
                               "elevation)")
                                  .c_str());
      device_elevation_ = cm == ColorMode::kElevation;
      device_ = std::make_unique<DevicePoints>(xyz, colors);
    } else {
      nb::gil_scoped_release release;
      positions_from_array(xyz, cloud_);
    }
    if (!device) {
      cloud_.colors.assign(cloud_.size(), rgba(255, 255, 255));  // as a file without colors
      attributes_from_dict(attributes, cloud_);
      if (colors) colors_from_array(*colors, cloud_, "colors");
    }
    settings_ = headless_settings(o_);
    settings_.want_depth = depth;
    aspect_ = double(settings_.width) / double(settings_.height);
    make_renderer_and_upload();
  }

  /// One frame from `camera` (x, y, z, yaw, pitch; degrees) or the starting camera: the image
  /// (H, W, 4) uint8, with the depth (H, W) float32 when asked for.
  nb::object render(std::optional<std::array<double, 5>> camera) {
    Camera cam = frame_camera(camera);
    Image img;
    img.rgba = pool_->take<uint32_t>();
    if (settings_.want_depth) img.depth = pool_->take<float>();
    std::string error;
    bool ok;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(frame_mutex_);  // one frame at a time from any thread
      ok = renderer_->render(cam, settings_, img, stats_, &error);
    }
    if (!ok) throw std::runtime_error(error);
    const size_t h = size_t(img.height), w = size_t(img.width);
    nb::object image = numpy_of(std::move(img.rgba), {h, w, 4}, pool_);
    if (!settings_.want_depth) return image;
    return nb::make_tuple(image, numpy_of(std::move(img.depth), {h, w}, pool_));
  }

  /// One frame left on the GPU: the renderer's own frame buffer as a device array (of the
  /// points' framework: PyTorch, CuPy or JAX; else a DLPack array), overwritten by the next
  /// frame. It keeps the renderer alive.
  nb::object render_on_device(std::optional<std::array<double, 5>> camera) {
    if (!gpu_) throw nb::value_error("render_on_device: needs mode='gpu'");
    Camera cam = frame_camera(camera);
    const uint32_t* rgba = nullptr;
    const float* depth = nullptr;
    std::string error;
    bool ok;
    {
      nb::gil_scoped_release release;
      std::lock_guard<std::mutex> lock(frame_mutex_);
      ok = gpu_->render_on_device(cam, settings_, &rgba, &depth, stats_, &error);
    }
    if (!ok) throw std::runtime_error(error);
    const size_t h = size_t(frame_height(settings_)), w = size_t(frame_width(settings_));
    nb::handle self = nb::find(this);
    nb::object image = device_array(const_cast<uint32_t*>(rgba), {h, w, 4}, self,
                                    nb::dtype<uint8_t>(), framework_);
    if (!settings_.want_depth) return image;
    return nb::make_tuple(image, device_array(const_cast<float*>(depth), {h, w}, self,
                                              nb::dtype<float>(), framework_));
  }

  const std::string& mode() const { return mode_; }
  size_t points() const { return device_ ? device_->count() : cloud_.size(); }
  std::array<double, 3> origin() const {
    const glm::dvec3 o = device_ ? device_->origin() : cloud_.origin;
    return {o.x, o.y, o.z};
  }
  /// The renderer's own part of the last frame, as headless mode reports it: the whole render()
  /// call on the CPU, the device frame (CUDA events, without the read-back) on the GPU.
  double render_ms() const {
    if (mode_ != "gpu") return stats_.total_ms;
    return stats_.stages ? stats_.clear_ms + stats_.raster_ms + stats_.resolve_ms
                         : stats_.raster_ms;
  }
  const FrameStats& stats() const { return stats_; }

 private:
  /// The camera of a frame: `camera` (or the options' own) applied as the command line applies
  /// --camera to the cloud's starting view.
  Camera frame_camera(const std::optional<std::array<double, 5>>& camera) {
    Camera cam = base_camera_;
    if (camera) {
      const auto& c = *camera;
      o_.camera = CameraArg{c[0], c[1], c[2], c[3], c[4]};
    } else {
      o_.camera = start_;
    }
    apply_camera_options(o_, cam, bounds_, aspect_);
    return cam;
  }

  void make_renderer_and_upload() {
    std::string why;
    std::unique_ptr<GpuRenderer> gpu;
    if (mode_ == "gpu") {
      gpu = make_gpu_renderer(o_, &why);
      if (!gpu) throw std::runtime_error("mode='gpu' is not available: " + why);
    } else if (mode_ != "cpu") {
      throw nb::value_error(("mode: '" + mode_ + "' is not cpu or gpu").c_str());
    }
    if (device_) {
      bool ok;
      // The command line's settings of the elevation mode (colormap, range, up axis).
      const ColorSettings elevation = color_settings(o_, PointCloud(), up_);
      {
        nb::gil_scoped_release release;
        ok = device_->upload(*gpu, device_elevation_ ? &elevation : nullptr, &why);
      }
      if (!ok) throw std::runtime_error(why);
      gpu_ = gpu.get();
      bounds_ = device_->world_bounds();
      base_camera_ = Camera{};
      base_camera_.focus = kFilesFocus;
      frame_files_camera(base_camera_, bounds_, aspect_, up_);
      renderer_ = std::move(gpu);
      return;
    }
    std::string error;
    if (!apply_color_options(o_, cloud_, up_, nullptr, nullptr, &error))
      throw nb::value_error(error.c_str());
    bool ok;
    {
      nb::gil_scoped_release release;
      sort_if_incoherent(cloud_);  // as the command line does: the same image, faster
      bounds_ = cloud_.world_bounds();
      gpu_ = gpu.get();
      if (gpu)
        renderer_ = std::move(gpu);
      else
        renderer_ = make_cpu_renderer(o_);
      ok = renderer_->set_cloud(cloud_, &error);
    }
    if (!ok) throw std::runtime_error(error);
    base_camera_ = cloud_camera(cloud_, "", up_, aspect_);
  }

  std::string framework_;       // of device points: "torch", "cupy", "jax" or empty
  GpuRenderer* gpu_ = nullptr;  // renderer_ when it is the GPU's
  Options o_;
  std::optional<CameraArg> start_;  // the camera of the options (render() without one)
  std::string mode_;
  UpAxis up_ = UpAxis::kZ;
  PointCloud cloud_;
  std::unique_ptr<DevicePoints> device_;
  bool device_elevation_ = false;  // device points colored by elevation on the device
  std::unique_ptr<Renderer> renderer_;
  RenderSettings settings_;
  double aspect_ = 1.0;
  Bounds bounds_;
  Camera base_camera_;
  FrameStats stats_;
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
  std::mutex frame_mutex_;
};

void bind_project(nb::module_& m);  // project.cpp

void bind_render(nb::module_& m) {
  m.attr("cuda_compiled") = bool(PR_PY_CUDA);
  m.def(
      "gpu_available",
      [] {
        std::string why;
        return gpu_renderer_available(&why);
      },
      "Whether mode='gpu' can draw here (a CUDA device and a build with CUDA).");
  m.def(
      "gpu_status",
      [] {
        std::string why;
        return gpu_renderer_available(&why) ? std::string("available") : why;
      },
      "'available', or in one line why mode='gpu' cannot draw here.");
  m.def(
      "save_png",
      [](const std::string& path,
         nb::ndarray<nb::ro, uint8_t, nb::ndim<3>, nb::c_contig, nb::device::cpu> image) {
        if (image.shape(2) != 4) throw nb::value_error("image: expected shape (H, W, 4) uint8");
        std::string error;
        if (!write_png_rgba(path, reinterpret_cast<const uint32_t*>(image.data()),
                            int(image.shape(1)), int(image.shape(0)), &error))
          throw std::runtime_error(error);
      },
      nb::arg("path"), nb::arg("image"),
      "Writes an (H, W, 4) uint8 image (C order) as PNG with the project's own writer.");

  nb::class_<PyRenderer>(m, "_Renderer")
      .def(nb::init<const AnyArray&, std::optional<AnyArray>, const nb::dict&,
                    const std::vector<std::string>&, bool, const std::string&>(),
           nb::arg("points"), nb::arg("colors").none(), nb::arg("attributes"), nb::arg("args"),
           nb::arg("depth"), nb::arg("framework"))
      .def("render", &PyRenderer::render, nb::arg("camera").none() = nb::none(),
           "One frame from `camera` (x, y, z, yaw, pitch; degrees) or the starting camera.")
      .def("render_on_device", &PyRenderer::render_on_device, nb::arg("camera").none() = nb::none(),
           "One frame left on the GPU: the renderer's frame buffer as a device array (H, W, 4)\n"
           "uint8, overwritten by the next frame (copy it to keep it).")
      .def_prop_ro("mode", &PyRenderer::mode, "'cpu' or 'gpu'.")
      .def_prop_ro("points", &PyRenderer::points, "Points in the cloud.")
      .def_prop_ro("origin", &PyRenderer::origin,
                   "The world position the float positions are offsets from.")
      .def_prop_ro("render_ms", &PyRenderer::render_ms,
                   "The renderer's own time of the last frame (ms): on the GPU the device "
                   "frame, on the CPU the whole frame.")
      .def_prop_ro(
          "frame_ms", [](const PyRenderer& r) { return r.stats().total_ms; },
          "The last frame's whole C++ render() call (ms), read-back included.")
      .def_prop_ro(
          "copy_ms", [](const PyRenderer& r) { return r.stats().copy_ms; },
          "The last frame's device-to-host copy (ms; 0 on the CPU).");

  bind_project(m);
}

}  // namespace pr::py
