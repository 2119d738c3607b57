// Running a program from a test: a shell command's exit status and what it printed.
#pragma once

#include <cstdio>
#include <string>

namespace pr::test {

/// Runs `command` through the shell, its stdout and stderr together in `out`; true on exit
/// status 0.
inline bool run_command(const std::string& command, std::string& out) {
  FILE* p = ::popen((command + " 2>&1").c_str(), "r");
  if (!p) return false;
  char buf[4096];
  out.clear();
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
  return ::pclose(p) == 0;
}

}  // namespace pr::test
