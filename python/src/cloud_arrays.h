// Arrays from Python (NumPy on the host; CuPy, PyTorch or JAX on the device through DLPack) as the
// engine's PointCloud: positions of any strides, colors, and the attributes of read()'s dict. Bad
// input raises ValueError with one line naming the argument and the problem.
#pragma once

#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <initializer_list>
#include <string>

#include "engine/point_cloud.h"

namespace pr::py {

/// An array of any dtype, shape, strides and device, read-only.
using AnyArray = nanobind::ndarray<nanobind::ro>;

/// Whether `a` lies in CUDA device memory (CUDA or CUDA-managed).
bool on_device(const AnyArray& a);

/// Raises ValueError unless `xyz` is an (N, 3) float32 or float64 array with N > 0; `what` names
/// the argument in the message.
void check_positions(const AnyArray& xyz, const char* what);

/// The positions of `xyz` (checked by check_positions(), on the host, any strides) into
/// `cloud`: float32 as given about origin 0; float64 less the origin the file readers choose for
/// their bounds (io::choose_origin(): 0 for coordinates within +-1024, else the bounds' centre
/// rounded), subtracted in double. Non-finite points stay (both renderers skip them).
void positions_from_array(const AnyArray& xyz, PointCloud& cloud);

/// The colors of `colors` into `cloud.colors`: (N, 3) or (N, 4), uint8 as given, uint16 as the
/// LAS reader takes them (the high byte, or the values themselves when none exceeds 255), float
/// in [0, 1] (scaled by 255, rounded, clamped). Alpha is not drawn. `what` names the argument.
void colors_from_array(const AnyArray& colors, PointCloud& cloud, const char* what);

/// The attributes of read()'s dict (python/pointraster/__init__.py documents the keys): "rgb",
/// "intensity", "classification", "return_number" with "number_of_returns", "point_source",
/// "gps_time", and any other (N,) numeric array as a named scalar field.
void attributes_from_dict(const nanobind::dict& d, PointCloud& cloud);

/// Device memory `data` on CUDA device 0, of `dtype` and `shape` (C order), as an array of
/// `framework` ("torch", "cupy", "jax"; any other name gives a plain DLPack array), kept alive by
/// `owner`.
nanobind::object device_array(void* data, std::initializer_list<size_t> shape,
                              nanobind::handle owner, nanobind::dlpack::dtype dtype,
                              const std::string& framework);

}  // namespace pr::py
