// pointraster: entry point. --info and --headless run without a window; otherwise the viewer.
#include <cstdio>
#include <exception>

#include "headless.h"
#include "info.h"
#include "options.h"

int main(int argc, char** argv) {
  pr::Options o;
  const int rc = pr::parse_options(argc, argv, o);
  if (rc != 0) return rc < 0 ? 0 : rc;
  try {
    if (o.info) return pr::run_info(o);
    return pr::run_headless(o);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "pointraster: %s\n", e.what());
    return 1;
  }
}
