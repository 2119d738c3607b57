// Pieces the option parsers share (options.cpp, clip_options.cpp, scene_options.cpp,
// video_options.cpp): the usage error, fields split at a separator, a finite number, and CLI11's
// option of one value.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace CLI {
class App;
class Option;
}  // namespace CLI

namespace pr::cli {

/// Throws CLI::ValidationError: a usage error with this one line.
[[noreturn]] void bad(const std::string& message);

/// The `sep`-separated fields of `v` (an empty `v` is one empty field).
std::vector<std::string> split(const std::string& v, char sep);

/// A finite number, the whole field; false otherwise.
bool number(const std::string& f, double* out);

/// `--NAME VALUE` (also `--NAME=VALUE`): `set` converts and stores each value given, in order, so
/// the last one counts and every one is checked.
CLI::Option* value(CLI::App& app, const std::string& name, const std::string& type,
                   const std::string& help, std::function<void(const std::string&)> set);

}  // namespace pr::cli
