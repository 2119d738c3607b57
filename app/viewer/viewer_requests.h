// What other threads ask of a running viewer (viewer.h's requests), waiting under a mutex until
// the frame loop takes them at the start of a frame, and what the window shows, copied there for
// them to read back.
#pragma once

#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "engine/point_cloud.h"
#include "viewer/viewer.h"

namespace pr {

struct ViewerRequests {
  /// The input to show next: files, or a cloud given (null: files).
  struct Input {
    std::vector<std::string> paths;
    std::unique_ptr<PointCloud> cloud;
    bool keep_view = false;
  };
  struct Screenshot {
    std::string path;
    Viewer::ScreenshotDone done;
  };

  mutable std::mutex mutex;
  std::unique_ptr<Input> input;  // the newest asked for, not started yet
  std::deque<std::pair<int, int>> clicks;
  std::vector<Screenshot> screenshots;
  bool close = false;
  Viewer::Shown shown;

  // The frame loop's own (no lock): the first click's progress.
  int click_stage = 0;  // 0 move the pointer, 1 press, 2 release
  int click_frame = 0;  // when the pointer moved

  bool input_waiting() const {
    std::lock_guard<std::mutex> lock(mutex);
    return input != nullptr;
  }
};

}  // namespace pr
