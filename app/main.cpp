// pointraster: entry point. --info, --measure, --profile, --convert, --headless and --save-view
// run without a window; otherwise the viewer.
#include <cstdio>
#include <exception>
#include <new>

#include "convert.h"
#include "headless.h"
#include "info.h"
#include "measure_run.h"
#include "options.h"
#include "profile_run.h"
#include "viewer/viewer.h"

int main(int argc, char** argv) {
  pr::Options o;
  const int rc = pr::parse_options(argc, argv, o);
  if (rc != 0) return rc < 0 ? 0 : rc;
  try {
    if (o.info) return pr::run_info(o);
    if (!o.measures.empty() && !o.measure_show) return pr::run_measure(o);
    if (!o.profile_line.empty()) return pr::run_profile(o);
    if (!o.convert.empty()) return pr::run_convert(o);
    // --save-view alone writes the scene and exits; with --headless it then renders.
    if (o.headless || !o.save_view.empty()) return pr::run_headless(o);
    return pr::run_viewer(o);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "pointraster: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pointraster: %s\n", e.what());
    return 1;
  }
}
