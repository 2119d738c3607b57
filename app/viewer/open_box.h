// The panel's Open box: a path typed or picked from a folder's listing, the point budget a file
// opened from here keeps, and the files dropped on the window until the drop completes. The
// listing is open_box.cpp's, the panel's Open section open_panel.cpp's.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "viewer/panel_marks.h"
#include "viewer/settings.h"
#include "viewer/status_line.h"

namespace pr {

struct OpenBox {
  char path[1024] = {0};
  uint64_t budget = 0;  // points a file opened from the panel or dropped keeps (0: all)
  std::string dir;      // the folder listed
  std::vector<std::pair<std::string, bool>> listing;  // name, is_dir
  size_t copc_files = 0;  // *.copc.laz files in `dir`: the folder opens as one survey of them
  std::vector<std::string> dropped;

  /// Lists `dir`: its folders, then the files a reader takes, .vpc surveys and scene files
  /// (.json), by name, hidden ones left out; counts its COPC files. False with the reason when the
  /// folder cannot be read (what could be read stays listed).
  bool refresh(std::string* error);
  /// `dir`'s parent becomes the folder listed.
  void go_up();
  /// refresh(), with the reason on the status line when the folder cannot be read.
  void relist(StatusLine& status);
  /// The panel's Open section: returns what to open (empty while nothing is asked for): the path
  /// typed (the button or Enter; a folder typed is listed instead), a Recent files entry, or the
  /// folder listed as one survey of its COPC files. `settings`: Recent files, and the folder
  /// listed, kept for the next run.
  std::vector<std::string> draw_section(ViewerSettings& settings, float ui_scale, PanelMarks& marks,
                                        StatusLine& status);
};

}  // namespace pr
