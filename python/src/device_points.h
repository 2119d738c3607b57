// Points in device memory (CuPy, PyTorch, JAX: CUDA arrays through DLPack) handed to the GPU
// renderer where they lie (GpuRenderer::set_device_points(), kernels/gpu_renderer.h): no copy
// through the host.
#pragma once

#include <optional>
#include <string>

#include "cloud_arrays.h"
#include "engine/colorize.h"
#include "engine/point_cloud.h"
#include "kernels/gpu_renderer.h"

namespace pr::py {

class DevicePoints {
 public:
  /// Checks the arrays (positions checked by check_positions(); colors (N, 3) or (N, 4) uint8,
  /// float32 or float64 on the same device) and keeps them until upload(). Raises ValueError.
  DevicePoints(const AnyArray& xyz, const std::optional<AnyArray>& colors);

  /// Hands the points to `gpu` (float64 positions less the origin the file readers would choose
  /// for their bounds, computed on the device) and lets the arrays go. `by_elevation`: settings
  /// of the elevation mode, whose colors (the host's recipe for the same points, computed on the
  /// device) replace the arrays' own; null: the arrays' colors (white without). False with a
  /// message.
  bool upload(GpuRenderer& gpu, const ColorSettings* by_elevation, std::string* error);

  uint64_t count() const { return arrays_.count; }
  const glm::dvec3& origin() const { return arrays_.origin; }
  const Bounds& world_bounds() const { return bounds_; }

 private:
  AnyArray xyz_;
  std::optional<AnyArray> colors_;
  DevicePointArrays arrays_;
  Bounds bounds_;
};

}  // namespace pr::py
