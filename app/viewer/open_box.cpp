#include "viewer/open_box.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

namespace pr {

namespace {

bool is_cloud_file(const std::filesystem::path& p) {
  std::string e = p.extension().string();
  std::transform(e.begin(), e.end(), e.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return e == ".ply" || e == ".las" || e == ".laz" || e == ".pcd" || e == ".pts" || e == ".xyz" ||
         e == ".txt" || e == ".csv" || e == ".e57" || e == ".vpc";
}

/// A COPC file by its name, as a folder survey takes its tiles (engine/io/survey.h).
bool is_copc_name(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  const std::string suffix = ".copc.laz";
  return name.size() > suffix.size() &&
         name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

bool OpenBox::refresh(std::string* error) {
  listing.clear();
  copc_files = 0;
  std::error_code ec;
  for (const auto& de : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = de.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    const bool is_dir = de.is_directory(e2);
    if (is_dir || is_cloud_file(de.path())) listing.emplace_back(name, is_dir);
    if (!is_dir && is_copc_name(name)) ++copc_files;
  }
  std::sort(listing.begin(), listing.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second : a.first < b.first;
  });
  if (ec && error) *error = "folder " + dir + ": " + ec.message();
  return !ec;
}

void OpenBox::go_up() {
  dir = std::filesystem::path(dir).parent_path().string();
  // assign(): GCC 12 warns falsely (-Wrestrict) about assigning the literal here.
  if (dir.empty()) dir.assign(1, '/');
}

}  // namespace pr
