// --video in headless mode (video_run.h).
#include "video_run.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <system_error>

#include "cancel_signals.h"
#include "engine/frame_stats.h"
#include "progress_bar.h"

namespace pr {

namespace {

/// "video   120 / 600 frames  20%  14.2 frames/s  ETA 0:34".
std::string progress_line(int done, int total, double seconds) {
  char s[160];
  const double rate = seconds >= 0.5 && done > 0 ? double(done) / seconds : 0.0;
  std::snprintf(s, sizeof s, "video  %d / %d frames  %3.0f%%", done, total,
                100.0 * double(done) / double(std::max(total, 1)));
  std::string out = s;
  if (rate > 0.0) {
    std::snprintf(s, sizeof s, "  %.1f frames/s  ETA %s", rate,
                  clock_time(double(total - done) / rate).c_str());
    out += s;
  }
  return out;
}

/// What the video will be, before the first frame.
void print_plan(const Options& o, const PathVideo& v, int fps) {
  const RenderSettings& rs = v.settings();
  const int w = o.width.value_or(1280), h = o.height.value_or(720);
  if (rs.width != w || rs.height != h)
    std::printf(
        "video: %dx%d has an odd side: H.264 in yuv420p keeps one color sample per 2x2 pixels and "
        "needs "
        "even sizes, so the frames are drawn at %dx%d\n",
        w, h, rs.width, rs.height);
  std::printf("video: %s, %dx%d, %d fps, %d frames (%.2f s), %s\n", o.video.c_str(), rs.width,
              rs.height, fps, v.frames(), double(v.frames()) / fps,
              v.writer().description().c_str());
  std::fflush(stdout);
}

}  // namespace

int run_video(const Options& o, const std::string& mode, const Camera& base,
              const RenderSettings& settings, const DrawFrame& draw) {
  VideoRequest req;
  req.out = o.video;
  req.width = o.width.value_or(1280);
  req.height = o.height.value_or(720);
  req.fps = o.fps.value_or(30);
  req.path = o.camera_path;
  req.base = base;
  req.settings = settings;
  PathVideo video;
  std::string why;
  if (!video.start(req, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  print_plan(o, video, req.fps);
  std::atomic<bool> cancel{false};
  CancelOnSignals on_signals(&cancel);
  ProgressBar bar(stderr, isatty(STDERR_FILENO) == 1);
  const Stopwatch clock;
  while (!video.done() && !cancel.load()) {
    if (!video.step(draw, &why)) {
      if (cancel.load()) break;  // a survey's wait for its view ended by Ctrl-C
      bar.finish();
      video.cancel();
      std::fprintf(stderr, "pointraster: %s: %s not written\n", why.c_str(), o.video.c_str());
      return 1;
    }
    bar.show(0, progress_line(video.next(), video.frames(), clock.ms() * 1e-3), clock.ms() * 1e-3);
  }
  bar.finish();
  if (cancel.load()) {
    video.cancel();
    const int sig = CancelOnSignals::signal();
    std::fprintf(stderr, "pointraster: cancelled (%s): %s not written\n", signal_word(sig),
                 o.video.c_str());
    return 128 + sig;
  }
  if (!video.finish(&why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  const double wall = clock.ms() * 1e-3;
  std::error_code ec;
  const auto bytes = std::filesystem::is_regular_file(o.video, ec)
                         ? double(std::filesystem::file_size(o.video, ec))
                         : 0.0;
  std::printf("pointraster: wrote %s (%d frames, %.2f s%s%s) in %.1f s\n", o.video.c_str(),
              video.frames(), double(video.frames()) / req.fps, bytes > 0 ? ", " : "",
              bytes > 0 ? human_size(bytes).c_str() : "", wall);
  const RenderSettings& rs = video.settings();
  std::printf(
      "summary mode=%s video=%s width=%d height=%d fps=%d frames=%d wall_s=%.3f "
      "frames_per_s=%.3f draw_ms=%.3f encode_wait_ms=%.3f\n",
      mode.c_str(), o.video.c_str(), rs.width, rs.height, req.fps, video.frames(), wall,
      double(video.frames()) / wall, video.draw_ms() / video.frames(),
      video.writer().wait_ms() / video.frames());
  return 0;
}

}  // namespace pr
