#include "viewer/settings.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine/io/open_byte_source.h"

namespace pr {

void ViewerSettings::add_recent(const std::string& path) {
  // A file's path is made absolute (it opens again from any folder); a URL stays as it is.
  std::error_code ec;
  std::string abs =
      is_url(path) ? path : std::filesystem::absolute(path, ec).lexically_normal().string();
  if (ec) abs = path;
  recent.erase(std::remove(recent.begin(), recent.end(), abs), recent.end());
  recent.insert(recent.begin(), abs);
  if (recent.size() > kMaxRecent) recent.resize(kMaxRecent);
}

std::string config_dir() {
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
    return std::string(x) + "/pointraster";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/pointraster";
  return {};
}

namespace {
bool parse_int(const std::string& v, int lo, int hi, int& out) {
  char* end = nullptr;
  const long x = std::strtol(v.c_str(), &end, 10);
  if (end == v.c_str() || *end != '\0' || x < lo || x > hi) return false;
  out = int(x);
  return true;
}
}  // namespace

ViewerSettings load_settings(const std::string& path) {
  ViewerSettings s;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos || line[0] == '#') continue;
    const std::string k = line.substr(0, eq), v = line.substr(eq + 1);
    int i = 0;
    if (k == "width" && parse_int(v, 64, 16384, i)) s.width = i;
    if (k == "height" && parse_int(v, 64, 16384, i)) s.height = i;
    if (k == "panel_width" && parse_int(v, 100, 8192, i)) s.panel_width = i;
    if (k == "mode" && (v == "cpu" || v == "gpu" || v == "auto")) s.mode = v;
    if (k == "vsync" && (v == "0" || v == "1")) s.vsync = v == "1";
    if (k == "point_size" && parse_int(v, 1, 16, i)) s.point_size = i;
    if (k == "adaptive_size" && (v == "0" || v == "1")) s.adaptive_size = v == "1";
    if (k == "max_point_size" && parse_int(v, 1, 32, i)) s.max_point_size = i;
    if (k == "projection" && (v == "perspective" || v == "ortho")) s.projection = v;
    if (k == "background") {
      float r, g, b;
      if (std::sscanf(v.c_str(), "%f,%f,%f", &r, &g, &b) == 3) {
        s.background[0] = std::clamp(r, 0.0f, 1.0f);
        s.background[1] = std::clamp(g, 0.0f, 1.0f);
        s.background[2] = std::clamp(b, 0.0f, 1.0f);
      }
    }
    if (k == "recent" && !v.empty() && s.recent.size() < ViewerSettings::kMaxRecent)
      s.recent.push_back(v);
    if (k == "open_dir") s.open_dir = v;
  }
  return s;
}

bool save_settings(const std::string& path, const ViewerSettings& s, std::string* error) {
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  std::ostringstream o;
  o << "# pointraster viewer settings\n"
    << "width=" << s.width << "\nheight=" << s.height << "\npanel_width=" << s.panel_width
    << "\nmode=" << s.mode << "\nvsync=" << (s.vsync ? 1 : 0) << "\npoint_size=" << s.point_size
    << "\nadaptive_size=" << (s.adaptive_size ? 1 : 0) << "\nmax_point_size=" << s.max_point_size
    << "\nprojection=" << s.projection << "\nbackground=" << s.background[0] << ","
    << s.background[1] << "," << s.background[2] << "\n";
  if (!s.open_dir.empty()) o << "open_dir=" << s.open_dir << "\n";
  for (const auto& r : s.recent) o << "recent=" << r << "\n";
  std::ofstream out(path, std::ios::trunc);
  out << o.str();
  if (!out) {
    if (error) *error = "settings " + path + ": cannot write";
    return false;
  }
  return true;
}

}  // namespace pr
