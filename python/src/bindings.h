// The parts of the Python module `_pointraster` (python/src/module.cpp joins them): drawing
// (render.cpp: render(), Renderer, project(), the GPU's availability), the files (files.cpp:
// read(), write(), info()) and the viewer (view.cpp). Each binds its functions and classes into
// the module `m`.
#pragma once

#include <nanobind/nanobind.h>

namespace pr::py {

void bind_render(nanobind::module_& m);
void bind_files(nanobind::module_& m);
void bind_view(nanobind::module_& m);

}  // namespace pr::py
