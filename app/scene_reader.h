// Inside scene files: reading a scene's JSON (scene_read.cpp, scene_read_lists.cpp) key by key,
// each problem one note naming the key, what it concerns left out.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "scene_file.h"
#include "scene_json.h"

namespace pr::scene_read {

using nlohmann::json;

inline constexpr double kInf = std::numeric_limits<double>::infinity();

/// The notes of one file, each starting with its name.
struct Notes {
  std::string name;
  std::vector<std::string>* out;
  void add(const std::string& s) const {
    if (out) out->push_back(name + ": " + s);
  }
};

inline std::string shown(double v) {
  char b[40];
  std::snprintf(b, sizeof b, "%.10g", v);
  return b;
}

inline bool finite_vec3(const json& v, glm::dvec3* out) {
  if (!v.is_array() || v.size() != 3) return false;
  for (int k = 0; k < 3; ++k) {
    if (!v[size_t(k)].is_number()) return false;
    (*out)[k] = v[size_t(k)].get<double>();
    if (!std::isfinite((*out)[k])) return false;
  }
  return true;
}

/// An object of the scene: its keys taken one by one (a key that is null counts as absent); the
/// keys never taken are named by done().
class Obj {
 public:
  Obj(const json& j, std::string path, const Notes& notes)
      : j_(j), path_(std::move(path)), notes_(notes) {}
  ~Obj() { done(); }
  Obj(const Obj&) = delete;
  Obj& operator=(const Obj&) = delete;

  const Notes& notes() const { return notes_; }
  /// The object's own name ("clip.boxes[2]").
  const std::string& where() const { return path_; }
  /// The key's full name ("render.point_size").
  std::string at(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }
  void bad(const std::string& key, const std::string& why) const {
    notes_.add(at(key) + ": " + why + " (left out)");
  }
  const json* take(const std::string& key) {
    taken_.push_back(key);
    const auto it = j_.find(key);
    return it == j_.end() || it->is_null() ? nullptr : &*it;
  }
  /// The key's value when it has `type`; a note otherwise.
  const json* typed(const std::string& key, json::value_t type, const char* what) {
    const json* v = take(key);
    if (!v) return nullptr;
    const bool ok = type == json::value_t::number_float ? v->is_number() : v->type() == type;
    if (!ok) {
      bad(key, std::string("expected ") + what + ", got " + v->type_name());
      return nullptr;
    }
    return v;
  }
  bool number(const std::string& key, double* out, double lo = -kInf, double hi = kInf) {
    const json* v = typed(key, json::value_t::number_float, "a number");
    if (!v) return false;
    const double d = v->get<double>();
    if (!(d >= lo && d <= hi) || !std::isfinite(d)) {
      bad(key, shown(d) + " is out of range (" + shown(lo) + " to " + shown(hi) + ")");
      return false;
    }
    *out = d;
    return true;
  }
  bool integer(const std::string& key, long long* out, long long lo, long long hi) {
    const json* v = typed(key, json::value_t::number_float, "a whole number");
    if (!v) return false;
    const double d = v->get<double>();
    if (d != std::floor(d) || d < double(lo) || d > double(hi)) {
      bad(key, shown(d) + " is not a whole number from " + std::to_string(lo) + " to " +
                   std::to_string(hi));
      return false;
    }
    *out = (long long)d;
    return true;
  }
  bool boolean(const std::string& key, bool* out) {
    const json* v = typed(key, json::value_t::boolean, "true or false");
    if (v) *out = v->get<bool>();
    return v != nullptr;
  }
  bool text(const std::string& key, std::string* out) {
    const json* v = typed(key, json::value_t::string, "a string");
    if (v) *out = v->get<std::string>();
    return v != nullptr;
  }
  bool vec3(const std::string& key, glm::dvec3* out) {
    const json* v = take(key);
    if (!v) return false;
    if (!finite_vec3(*v, out)) {
      bad(key, "expected [X, Y, Z] (three finite numbers), got " + v->dump());
      return false;
    }
    return true;
  }
  const json* array(const std::string& key) { return typed(key, json::value_t::array, "a list"); }
  const json* object(const std::string& key) {
    return typed(key, json::value_t::object, "an object");
  }

 private:
  void done() const {
    for (const auto& item : j_.items())
      if (std::find(taken_.begin(), taken_.end(), item.key()) == taken_.end())
        notes_.add("unknown key '" + at(item.key()) + "' (ignored)");
  }
  const json& j_;
  std::string path_;
  const Notes& notes_;
  std::vector<std::string> taken_;
};

/// `s` in single quotes (appended piece by piece: GCC 12 warns, wrongly, with -Wrestrict on
/// "'" + s).
inline std::string in_quotes(const std::string& s) {
  std::string q(1, '\'');
  q += s;
  q += '\'';
  return q;
}

inline std::string indexed(const std::string& path, size_t i) {
  return path + "[" + std::to_string(i) + "]";
}

/// The lists of the scene's top object `top`: clip, measurements, annotations, camera path.
void read_scene_lists(Obj& top, Options& o);

}  // namespace pr::scene_read
