// The Python module `_pointraster`, which the package `pointraster` (python/pointraster/
// __init__.py) re-exports. python/CMakeLists.txt defines PR_PY_FILES and PR_PY_VIEW when the
// files' and the viewer's bindings are part of the build.
#include <nanobind/nanobind.h>

#include "bindings.h"

NB_MODULE(_pointraster, m) {
  m.doc() = "pointraster: a point-cloud software rasterizer (CUDA and multi-threaded CPU)";
  pr::py::bind_render(m);
#if defined(PR_PY_FILES)
  pr::py::bind_files(m);
#endif
#if defined(PR_PY_VIEW)
  pr::py::bind_view(m);
#endif
}
