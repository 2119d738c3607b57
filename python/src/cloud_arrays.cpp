// Arrays from Python as the engine's PointCloud (cloud_arrays.h).
#include "cloud_arrays.h"

#include <nanobind/stl/string.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>

#include "engine/io/base/io_common.h"
#include "engine/parallel.h"

namespace nb = nanobind;

namespace pr::py {

namespace {

[[noreturn]] void bad(const std::string& message) {
  throw nb::value_error(message.c_str());
}

std::string shape_text(const AnyArray& a) {
  std::string s = "(";
  for (size_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

std::string dtype_text(const AnyArray& a) {
  const auto dt = a.dtype();
  const char* kind = dt.code == uint8_t(nb::dlpack::dtype_code::Float)  ? "float"
                     : dt.code == uint8_t(nb::dlpack::dtype_code::Int)  ? "int"
                     : dt.code == uint8_t(nb::dlpack::dtype_code::UInt) ? "uint"
                     : dt.code == uint8_t(nb::dlpack::dtype_code::Bool) ? "bool"
                                                                        : "dtype code ";
  return kind + std::to_string(dt.bits);
}

/// Calls f(p) with `a`'s data as a pointer to its element type (any numeric dtype), or raises
/// ValueError naming `what`.
template <class F>
void visit(const AnyArray& a, const char* what, F&& f) {
  const auto dt = a.dtype();
  const void* p = a.data();
  using C = nb::dlpack::dtype_code;
  if (dt.lanes == 1) {
    if (dt.code == uint8_t(C::Float) && dt.bits == 32) return f(static_cast<const float*>(p));
    if (dt.code == uint8_t(C::Float) && dt.bits == 64) return f(static_cast<const double*>(p));
    if ((dt.code == uint8_t(C::UInt) || dt.code == uint8_t(C::Bool)) && dt.bits == 8)
      return f(static_cast<const uint8_t*>(p));
    if (dt.code == uint8_t(C::UInt) && dt.bits == 16) return f(static_cast<const uint16_t*>(p));
    if (dt.code == uint8_t(C::UInt) && dt.bits == 32) return f(static_cast<const uint32_t*>(p));
    if (dt.code == uint8_t(C::UInt) && dt.bits == 64) return f(static_cast<const uint64_t*>(p));
    if (dt.code == uint8_t(C::Int) && dt.bits == 8) return f(static_cast<const int8_t*>(p));
    if (dt.code == uint8_t(C::Int) && dt.bits == 16) return f(static_cast<const int16_t*>(p));
    if (dt.code == uint8_t(C::Int) && dt.bits == 32) return f(static_cast<const int32_t*>(p));
    if (dt.code == uint8_t(C::Int) && dt.bits == 64) return f(static_cast<const int64_t*>(p));
  }
  bad(std::string(what) + ": unsupported dtype " + dtype_text(a));
}

/// A one-dimensional (N,) numeric host array of `n` values converted to T into `out`.
template <class T>
void column(const AnyArray& a, const char* what, size_t n, PodVector<T>& out) {
  if (on_device(a)) bad(std::string(what) + ": a device array; attributes must be host arrays");
  if (a.ndim() != 1 || a.shape(0) != n)
    bad(std::string(what) + ": expected shape (" + std::to_string(n) + ",), got " + shape_text(a));
  out.resize(n);
  const int64_t s = a.stride(0);
  visit(a, what, [&](const auto* p) {
    for (size_t i = 0; i < n; ++i) out[i] = T(p[int64_t(i) * s]);
  });
}

bool is_float(const AnyArray& a) {
  return a.dtype().code == uint8_t(nb::dlpack::dtype_code::Float);
}

}  // namespace

bool on_device(const AnyArray& a) {
  return a.device_type() == nb::device::cuda::value ||
         a.device_type() == nb::device::cuda_managed::value;
}

void check_positions(const AnyArray& xyz, const char* what) {
  if (xyz.ndim() != 2 || xyz.shape(1) != 3)
    bad(std::string(what) + ": expected an array of shape (N, 3), got " + shape_text(xyz));
  const auto dt = xyz.dtype();
  if (!(dt.code == uint8_t(nb::dlpack::dtype_code::Float) && (dt.bits == 32 || dt.bits == 64) &&
        dt.lanes == 1))
    bad(std::string(what) + ": expected float32 or float64, got " + dtype_text(xyz));
  if (xyz.shape(0) == 0) bad(std::string(what) + ": the array is empty (no points)");
  if (xyz.shape(0) >= uint64_t(UINT32_MAX))
    bad(std::string(what) + ": too many points for a 32-bit point index");
}

void positions_from_array(const AnyArray& xyz, PointCloud& cloud) {
  const size_t n = xyz.shape(0);
  const int64_t s0 = xyz.stride(0), s1 = xyz.stride(1);
  cloud.resize(n);
  Float3* out = cloud.positions.data();
  if (xyz.dtype().bits == 32) {
    const float* p = static_cast<const float*>(xyz.data());
    cloud.origin = glm::dvec3(0.0);
    parallel_for(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const float* r = p + int64_t(i) * s0;
        out[i] = Float3{r[0], r[s1], r[2 * s1]};
      }
    });
    return;
  }
  // Doubles: the bounds of the finite points choose the origin, as a file's do.
  const double* p = static_cast<const double*>(xyz.data());
  Bounds bounds;
  for (size_t i = 0; i < n; ++i) {
    const double* r = p + int64_t(i) * s0;
    const glm::dvec3 v(r[0], r[s1], r[2 * s1]);
    if (std::isfinite(v.x) && std::isfinite(v.y) && std::isfinite(v.z)) bounds.extend(v);
  }
  const glm::dvec3 o = io::choose_origin(bounds);
  cloud.origin = o;
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const double* r = p + int64_t(i) * s0;
      out[i] = Float3{float(r[0] - o.x), float(r[s1] - o.y), float(r[2 * s1] - o.z)};
    }
  });
}

void colors_from_array(const AnyArray& colors, PointCloud& cloud, const char* what) {
  const size_t n = cloud.size();
  if (on_device(colors)) bad(std::string(what) + ": a device array; host points take host colors");
  if (colors.ndim() != 2 || colors.shape(0) != n || (colors.shape(1) != 3 && colors.shape(1) != 4))
    bad(std::string(what) + ": expected shape (" + std::to_string(n) + ", 3) or (" +
        std::to_string(n) + ", 4), got " + shape_text(colors));
  const int64_t s0 = colors.stride(0), s1 = colors.stride(1);
  const auto dt = colors.dtype();
  const bool u8 = dt.code == uint8_t(nb::dlpack::dtype_code::UInt) && dt.bits == 8;
  const bool u16 = dt.code == uint8_t(nb::dlpack::dtype_code::UInt) && dt.bits == 16;
  if (!u8 && !u16 && !is_float(colors))
    bad(std::string(what) + ": expected uint8, uint16 or float colors, got " + dtype_text(colors));
  cloud.colors.resize(n);
  uint32_t* out = cloud.colors.data();
  visit(colors, what, [&](const auto* p) {
    using T = std::remove_cv_t<std::remove_pointer_t<decltype(p)>>;
    // 16-bit colors as the LAS reader takes them: the high byte, unless none exceeds 255 (8-bit
    // colors stored in 16 bits).
    unsigned shift = 0;
    if constexpr (std::is_same_v<T, uint16_t>) {
      T mx = 0;
      for (size_t i = 0; i < n; ++i)
        for (int k = 0; k < 3; ++k) mx = std::max(mx, p[int64_t(i) * s0 + k * s1]);
      shift = mx > 255 ? 8 : 0;
    }
    auto channel = [&](T v) -> uint8_t {
      if constexpr (std::is_floating_point_v<T>) {
        const double c = std::round(double(v) * 255.0);
        return uint8_t(c > 255.0 ? 255.0 : c > 0.0 ? c : 0.0);  // NaN: 0
      } else {
        return uint8_t(std::min<uint64_t>(uint64_t(v) >> shift, 255));
      }
    };
    parallel_for(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const T* r = p + int64_t(i) * s0;
        out[i] = rgba(channel(r[0]), channel(r[s1]), channel(r[2 * s1]));
      }
    });
  });
}

void attributes_from_dict(const nb::dict& d, PointCloud& cloud) {
  const size_t n = cloud.size();
  PodVector<uint8_t> number, count;
  for (auto [key, value] : d) {
    const std::string name = nb::cast<std::string>(key);
    if (name == "xyz" || name == "origin" || name == "name" || value.is_none()) continue;
    AnyArray a;
    if (!nb::try_cast(value, a))
      bad("points['" + name + "']: expected an array, got " +
          nb::cast<std::string>(nb::str(value.type().attr("__name__"))));
    const std::string what = "points['" + name + "']";
    if (name == "rgb" || name == "colors") {
      colors_from_array(a, cloud, what.c_str());
    } else if (name == "intensity") {
      column(a, what.c_str(), n, cloud.intensity);
    } else if (name == "classification") {
      column(a, what.c_str(), n, cloud.classification);
    } else if (name == "return_number") {
      column(a, what.c_str(), n, number);
    } else if (name == "number_of_returns") {
      column(a, what.c_str(), n, count);
    } else if (name == "point_source") {
      column(a, what.c_str(), n, cloud.point_source);
    } else if (name == "gps_time") {
      column(a, what.c_str(), n, cloud.gps_time);
    } else if (a.ndim() == 1) {
      cloud.fields.push_back(ScalarField{name, {}});
      column(a, what.c_str(), n, cloud.fields.back().values);
    }
  }
  if (!number.empty() || !count.empty()) {
    cloud.returns.resize(n);
    for (size_t i = 0; i < n; ++i)
      cloud.returns[i] = pack_returns(number.empty() ? 1 : number[i], count.empty() ? 1 : count[i]);
  }
}

nb::object device_array(void* data, std::initializer_list<size_t> shape, nb::handle owner,
                        nb::dlpack::dtype dtype, const std::string& framework) {
  const int cuda = nb::device::cuda::value;
  if (framework == "torch")
    return nb::cast(nb::ndarray<nb::pytorch>(data, shape, owner, {}, dtype, cuda, 0));
  if (framework == "cupy")
    return nb::cast(nb::ndarray<nb::cupy>(data, shape, owner, {}, dtype, cuda, 0));
  if (framework == "jax")
    return nb::cast(nb::ndarray<nb::jax>(data, shape, owner, {}, dtype, cuda, 0));
  return nb::cast(nb::ndarray<>(data, shape, owner, {}, dtype, cuda, 0));
}

}  // namespace pr::py
