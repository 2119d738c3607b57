// A camera path rendered to a video (path_video.h).
#include "path_video.h"

#include <algorithm>
#include <cmath>

#include "engine/frame_stats.h"

namespace pr {

int video_frame_count(double duration, int fps) {
  const double n = std::round(std::max(duration, 0.0) * double(fps));
  return int(std::clamp(n, 2.0, 1e8));
}

double video_frame_time(const CameraPathPlayer& player, int k, int frames) {
  const double steps = player.path().loop ? double(frames) : double(std::max(frames - 1, 1));
  return player.start() + player.duration() * double(k) / steps;
}

bool PathVideo::start(const VideoRequest& r, std::string* error) {
  if (r.path.keys.size() < 2) {
    *error = "a video needs a camera path of at least 2 keys (it has " +
             std::to_string(r.path.keys.size()) + ")";
    return false;
  }
  if (!validate_path(r.path, error)) return false;
  if (r.fps < 1 || r.fps > 120) {
    *error = "a video's frame rate is 1 to 120 frames a second, not " + std::to_string(r.fps);
    return false;
  }
  player_ = CameraPathPlayer(r.path);
  base_ = r.base;
  settings_ = r.settings;
  video_size(video_format(r.out), r.width, r.height, &settings_.width, &settings_.height);
  frames_ = video_frame_count(player_.duration(), r.fps);
  next_ = 0;
  draw_ms_ = 0.0;
  return writer_.open(r.out, settings_.width, settings_.height, r.fps, error);
}

Camera PathVideo::camera(int k) const {
  Camera c = base_;
  apply_pose(player_.at(video_frame_time(player_, k, frames_)), c);
  return c;
}

bool PathVideo::step(const DrawFrame& draw, std::string* error) {
  if (done()) return true;
  Stopwatch sw;
  const FrameDraw d = draw(camera(next_), settings_, image_, error);
  draw_ms_ += sw.ms();
  if (d == FrameDraw::kWait) return true;
  if (d == FrameDraw::kFailed) {
    *error = "frame " + std::to_string(next_ + 1) + ": " + *error;
    return false;
  }
  if (!writer_.write(image_, error)) return false;
  ++next_;
  return true;
}

bool PathVideo::finish(std::string* error) {
  if (!done()) {
    *error =
        "the video has " + std::to_string(next_) + " of its " + std::to_string(frames_) + " frames";
    writer_.cancel();
    return false;
  }
  return writer_.finish(error);
}

}  // namespace pr
