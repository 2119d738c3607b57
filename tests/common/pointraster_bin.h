// Where the tests that run the program find it; PR_POINTRASTER_BIN is defined by the test target
// (the build tree's pointraster).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <system_error>

namespace pr::test {

/// The pointraster binary: $PR_POINTRASTER_BIN, else the one beside this test executable (both
/// live in bin/, also in a device bundle), else the build tree's.
inline std::string pointraster_bin() {
  if (const char* e = std::getenv("PR_POINTRASTER_BIN"); e && *e) return e;
  std::error_code ec;
  namespace fs = std::filesystem;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "pointraster";
  if (!ec && fs::exists(beside)) return beside.string();
  return PR_POINTRASTER_BIN;
}

}  // namespace pr::test
