// pointraster.project(vertices, unit_vec, shift, focus): the perspective projection of the NumPy
// function the project grew from (bench/peers/seed_numpy.py), with its arguments and its result:
//   data = dot(unit_vec, (vertices - shift).T); data[:2] *= focus / abs(data[2]); return data.T
// in the vertices' precision (float32 or float64), each row computed as NumPy computes it: the
// rotation's sums left to right, then x and y times focus / |z|.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>

#include <cmath>
#include <stdexcept>
#include <string>

#include "bindings.h"
#include "cloud_arrays.h"
#include "engine/parallel.h"
#include "engine/projection.h"
#include "kernels/gpu_renderer.h"

namespace nb = nanobind;

namespace pr::py {

namespace {

template <class T>
using HostArray = nb::ndarray<nb::ro, T, nb::device::cpu>;

template <class T>
nb::object project_as(const nb::object& vertices, const nb::object& unit_vec,
                      const nb::object& shift, double focus_in) {
  HostArray<T> v, u, s;
  // The argument arrays in the vertices' dtype (copied only when their dtype differs).
  if (!nb::try_cast(vertices, v, false) || !nb::try_cast(unit_vec, u, true) ||
      !nb::try_cast(shift, s, true))
    throw nb::value_error("project: unit_vec and shift must be real host arrays");
  if (u.ndim() != 2 || u.shape(0) != 3 || u.shape(1) != 3)
    throw nb::value_error("unit_vec: expected shape (3, 3)");
  if (s.size() != 3) throw nb::value_error("shift: expected 3 values");
  const size_t n = v.shape(0);
  T m[3][3], sh[3];
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) m[r][c] = u.data()[r * u.stride(0) + c * u.stride(1)];
    sh[r] = s.data()[s.ndim() == 1 ? r * s.stride(0) : r * s.stride(s.ndim() - 1)];
  }
  const T focus = T(focus_in);
  T* out = new T[n * 3];
  nb::capsule owner(out, [](void* p) noexcept { delete[] static_cast<T*>(p); });
  const T* p = v.data();
  const int64_t s0 = v.stride(0), s1 = v.stride(1);
  {
    nb::gil_scoped_release release;
    parallel_for(n, [&](size_t b, size_t e) {
      for (size_t i = b; i < e; ++i) {
        const T* r = p + int64_t(i) * s0;
        seed_project(&m[0][0], sh, focus, r[0], r[s1], r[2 * s1], out + 3 * i);
      }
    });
  }
  return nb::cast(nb::ndarray<nb::numpy, T>(out, {n, 3}, owner));
}

/// Device vertices: projected where they lie (project_on_device()) into a device array of the
/// vertices' framework; unit_vec and shift come as host arrays (the package copies device ones).
nb::object project_on_gpu(const AnyArray& v, const nb::object& unit_vec, const nb::object& shift,
                          double focus, const std::string& framework) {
  if (v.device_id() != 0)
    throw nb::value_error(
        ("vertices: on CUDA device " + std::to_string(v.device_id()) + "; project runs on device 0")
            .c_str());
  HostArray<double> u, s;
  if (!nb::try_cast(unit_vec, u, true) || !nb::try_cast(shift, s, true))
    throw nb::value_error("project: unit_vec and shift must be real arrays");
  if (u.ndim() != 2 || u.shape(0) != 3 || u.shape(1) != 3)
    throw nb::value_error("unit_vec: expected shape (3, 3)");
  if (s.size() != 3) throw nb::value_error("shift: expected 3 values");
  DeviceProjection in;
  in.vertices = v.data();
  in.doubles = v.dtype().bits == 64;
  in.point_stride = v.stride(0);
  in.coord_stride = v.stride(1);
  in.count = v.shape(0);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c)
      in.unit_vec[3 * r + c] = u.data()[r * u.stride(0) + c * u.stride(1)];
    in.shift[r] = s.data()[s.ndim() == 1 ? r * s.stride(0) : r * s.stride(s.ndim() - 1)];
  }
  in.focus = focus;
  void* out = nullptr;
  std::string error;
  bool ok;
  {
    nb::gil_scoped_release release;
    ok = project_on_device(in, &out, &error);
  }
  if (!ok) throw std::runtime_error("project: " + error);
  nb::capsule owner(out, [](void* p) noexcept { free_device_array(p); });
  const size_t n = size_t(in.count);
  const auto dtype = in.doubles ? nb::dtype<double>() : nb::dtype<float>();
  return device_array(out, {n, 3}, owner, dtype, framework);
}

}  // namespace

void bind_project(nb::module_& m) {
  m.def(
      "project",
      [](const nb::object& vertices, const nb::object& unit_vec, const nb::object& shift,
         double focus, const std::string& framework) {
        AnyArray va;
        if (!nb::try_cast(vertices, va, false))
          throw nb::value_error("vertices: expected an array of shape (N, 3)");
        check_positions(va, "vertices");
        if (on_device(va)) return project_on_gpu(va, unit_vec, shift, focus, framework);
        return va.dtype().bits == 32 ? project_as<float>(vertices, unit_vec, shift, focus)
                                     : project_as<double>(vertices, unit_vec, shift, focus);
      },
      nb::arg("vertices"), nb::arg("unit_vec"), nb::arg("shift"), nb::arg("focus"),
      nb::arg("framework") = "",
      "The seed's perspective projection: rotate vertices - shift by the 3x3 unit_vec, then\n"
      "x and y times focus / |z|. (N, 3) float32 or float64 in, (N, 3) of the same dtype out\n"
      "(device vertices: computed on the GPU, a device array of their framework out).");
}

}  // namespace pr::py
