// The panel's Open box: a path typed or picked from a folder's listing, the point budget a file
// opened from here keeps, and the files dropped on the window until the drop completes.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace pr {

struct OpenBox {
  char path[1024] = {0};
  uint64_t budget = 0;  // points a file opened from the panel or dropped keeps (0: all)
  std::string dir;      // the folder listed
  std::vector<std::pair<std::string, bool>> listing;  // name, is_dir
  size_t copc_files = 0;  // *.copc.laz files in `dir`: the folder opens as one survey of them
  std::vector<std::string> dropped;

  /// Lists `dir`: its folders, then the files a reader takes and .vpc surveys, by name, hidden
  /// ones left out; counts its COPC files. False with the reason when the folder cannot be read
  /// (what could be read stays listed).
  bool refresh(std::string* error);
  /// `dir`'s parent becomes the folder listed.
  void go_up();
};

}  // namespace pr
