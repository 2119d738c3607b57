#include "option_fields.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>

namespace pr::cli {

void bad(const std::string& message) {
  throw CLI::ValidationError(message);
}

std::vector<std::string> split(const std::string& v, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (;;) {
    const size_t at = v.find(sep, start);
    out.push_back(v.substr(start, at == std::string::npos ? std::string::npos : at - start));
    if (at == std::string::npos) return out;
    start = at + 1;
  }
}

bool number(const std::string& f, double* out) {
  const char* b = f.data();
  const char* e = b + f.size();
  double x = 0.0;
  const auto r = std::from_chars(b, e, x);
  if (f.empty() || r.ec != std::errc() || r.ptr != e || !std::isfinite(x)) return false;
  *out = x;
  return true;
}

CLI::Option* value(CLI::App& app, const std::string& name, const std::string& type,
                   const std::string& help, std::function<void(const std::string&)> set) {
  CLI::Option* opt = app.add_option(
      name,
      [set](const CLI::results_t& values) {
        for (const std::string& v : values) set(v);
        return true;
      },
      help);
  opt->type_name(type)->expected(1)->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  return opt;
}

}  // namespace pr::cli
