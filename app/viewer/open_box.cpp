#include "viewer/open_box.h"

#include <algorithm>
#include <filesystem>

#include "engine/io/formats.h"
#include "scene_options.h"

namespace pr {

bool OpenBox::refresh(std::string* error) {
  listing.clear();
  copc_files = 0;
  std::error_code ec;
  for (const auto& de : std::filesystem::directory_iterator(dir, ec)) {
    const auto name = de.path().filename().string();
    if (name.empty() || name[0] == '.') continue;
    std::error_code e2;
    const bool is_dir = de.is_directory(e2);
    // ept.json: an EPT dataset's description (engine/io/ept.h), which streams.
    if (is_dir || is_point_cloud_file(name) || is_scene_file(name) || name == "ept.json")
      listing.emplace_back(name, is_dir);
    if (!is_dir && is_tile_file(name)) ++copc_files;
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
