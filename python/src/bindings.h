// The parts of the Python module _pointraster, each adding its functions to the module.
#pragma once

#include <nanobind/nanobind.h>

namespace pr::py {

/// read(), info() and convert(): files, URLs and surveys in and out (files.cpp).
void bind_files(nanobind::module_& m);

/// The viewer window and its handle (view.cpp).
void bind_view(nanobind::module_& m);

}  // namespace pr::py
