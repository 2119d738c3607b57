// pointraster.project(vertices, unit_vec, shift, focus): the perspective projection of the NumPy
// function the project grew from (bench/peers/seed_numpy.py), with its arguments and its result:
//   data = dot(unit_vec, (vertices - shift).T); data[:2] *= focus / abs(data[2]); return data.T
// in the vertices' precision (float32 or float64), each row computed as NumPy computes it: the
// rotation's sums left to right, then x and y times focus / |z|.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>

#include <cmath>
#include <string>

#include "bindings.h"
#include "cloud_arrays.h"
#include "engine/parallel.h"

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
        const T x = r[0] - sh[0], y = r[s1] - sh[1], z = r[2 * s1] - sh[2];
        T o[3];
        for (int k = 0; k < 3; ++k) o[k] = m[k][0] * x + m[k][1] * y + m[k][2] * z;
        const T f = focus / std::abs(o[2]);
        out[3 * i] = o[0] * f;
        out[3 * i + 1] = o[1] * f;
        out[3 * i + 2] = o[2];
      }
    });
  }
  return nb::cast(nb::ndarray<nb::numpy, T>(out, {n, 3}, owner));
}

}  // namespace

void bind_project(nb::module_& m) {
  m.def(
      "project",
      [](const nb::object& vertices, const nb::object& unit_vec, const nb::object& shift,
         double focus) {
        AnyArray va;
        if (!nb::try_cast(vertices, va, false))
          throw nb::value_error("vertices: expected an array of shape (N, 3)");
        if (on_device(va)) throw nb::value_error("vertices: project takes host (NumPy) arrays");
        check_positions(va, "vertices");
        return va.dtype().bits == 32 ? project_as<float>(vertices, unit_vec, shift, focus)
                                     : project_as<double>(vertices, unit_vec, shift, focus);
      },
      nb::arg("vertices"), nb::arg("unit_vec"), nb::arg("shift"), nb::arg("focus"),
      "The seed's perspective projection: rotate vertices - shift by the 3x3 unit_vec, then\n"
      "x and y times focus / |z|. (N, 3) float32 or float64 in, (N, 3) of the same dtype out.");
}

}  // namespace pr::py
