// The panel's status line: the last message, shown in red when it is an error, and printed on
// stdout (or stderr for errors) so scripted runs and logs see it too.
#pragma once

#include <cstdio>
#include <string>

namespace pr {

struct StatusLine {
  std::string text;
  bool error = false;

  void set(const std::string& message, bool is_error) {
    text = message;
    error = is_error;
    std::fprintf(is_error ? stderr : stdout, "pointraster: %s\n", message.c_str());
  }
};

}  // namespace pr
