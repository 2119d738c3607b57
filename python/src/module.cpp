// The Python module _pointraster: each part binds its own functions (bindings.h).
#include "bindings.h"

NB_MODULE(_pointraster, m) {
  m.doc() = "pointraster: point-cloud files, conversion and the viewer";
#ifdef PR_PY_FILES
  pr::py::bind_files(m);
#endif
#ifdef PR_PY_VIEW
  pr::py::bind_view(m);
#endif
}
