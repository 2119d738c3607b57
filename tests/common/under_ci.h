// Whether the tests run under CI (CI=true), where what a test needs of the machine (a display, a
// web server) must be there: its absence fails the test instead of skipping it.
#pragma once

#include <cstdlib>
#include <cstring>

namespace pr::test {

inline bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::strcmp(ci, "true") == 0;
}

}  // namespace pr::test
