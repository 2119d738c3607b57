// What a click costs the window: the viewer (a real window; SDL's offscreen driver or Xvfb) draws
// a scene, then clicks at points across the image one after another; for each, the time from the
// click to the picked point and the longest frame meanwhile, against the median frame before the
// first click. The pick runs on its own thread (app/viewer/pick_job.h), so the longest frame
// should stay near the median.
//   pick_frame_bench [--mode cpu|gpu] [--scene terrain] [--points N] [--width W] [--height H]
//                    [--clicks K] [--compact]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <SDL.h>

#include "viewer/viewer_testing.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_between(Clock::time_point a, Clock::time_point b) {
  return std::chrono::duration<double, std::milli>(b - a).count();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Args {
  pr::Options viewer;
  int clicks = 5;
};

bool parse(int argc, char** argv, Args& a) {
  a.viewer.mode = "cpu";
  a.viewer.scene = "terrain";
  a.viewer.points = 10'000'000;
  a.viewer.width = 1920;
  a.viewer.height = 1080;
  a.viewer.vsync = false;
  a.viewer.frames = 0;  // until the bench quits
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : "";
    if (k == "--compact") {
      a.viewer.compact = true;
      continue;
    }
    if (i + 1 >= argc) return false;
    ++i;
    if (k == "--mode")
      a.viewer.mode = v;
    else if (k == "--scene")
      a.viewer.scene = v;
    else if (k == "--points")
      a.viewer.points = uint64_t(std::atof(v));
    else if (k == "--width")
      a.viewer.width = std::atoi(v);
    else if (k == "--height")
      a.viewer.height = std::atoi(v);
    else if (k == "--clicks")
      a.clicks = std::atoi(v);
    else
      return false;
  }
  return a.clicks > 0;
}

SDL_Event button(bool down, int x, int y) {
  SDL_Event e{};
  e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
  e.button.clicks = 1;
  e.button.x = x;
  e.button.y = y;
  return e;
}

/// The scripted run: frames to warm up, then each click (press, release) and the frames until
/// its point arrives.
struct Script {
  explicit Script(const Args& args) : a(args) {}
  const Args& a;
  int click = -1, since = 0, picks_before = 0;
  std::vector<double> warm, pick_ms, job_ms, longest;
  Clock::time_point last, clicked;
  bool started = false;

  void frame(pr::ViewerTesting& v) {
    const Clock::time_point now = Clock::now();
    const double ms = started ? ms_between(last, now) : 0.0;
    last = now;
    started = true;
    if (v.cloud_busy() || v.cloud_points() == 0) return;
    if (click < 0) {
      if (warm.size() < 30) return warm.push_back(ms);
      click = 0;
      since = 0;
    }
    if (click >= a.clicks) return;
    const int x = *a.viewer.width * (click + 2) / (a.clicks + 3);  // right of the panel
    const int y = *a.viewer.height * 3 / 5 + (click % 2 ? 40 : -40);
    ++since;
    if (since == 1) SDL_WarpMouseInWindow(v.window(), x, y);
    if (since == 3 || since == 4) {  // the press (this frame takes it and starts the pick)
      SDL_Event e = button(since == 3, x, y);
      SDL_PushEvent(&e);
      if (since == 3) {
        clicked = now;
        picks_before = v.pick_count();
        longest.push_back(0.0);
        return;
      }
    }
    if (since < 4) return;
    longest.back() = std::max(longest.back(), ms);
    if (v.pick_pending()) return;
    pick_ms.push_back(ms_between(clicked, now));
    job_ms.push_back(v.last_pick_ms());
    std::printf(
        "click %d at %d,%d: picked %s in %.1f ms (%.1f ms on the pick's thread), longest frame "
        "meanwhile %.1f ms\n",
        click, x, y, v.pick_count() != picks_before ? "a point" : "nothing", pick_ms.back(),
        job_ms.back(), longest.back());
    ++click;
    since = 0;
    if (click == a.clicks) v.request_quit();
  }
};

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: pick_frame_bench [--mode cpu|gpu] [--scene S] [--points N] [--width W] "
                 "[--height H] [--clicks K] [--compact]\n");
    return 2;
  }
  pr::ViewerTesting v(a.viewer);
  std::string err;
  if (!v.open(&err)) {
    std::fprintf(stderr, "pick_frame_bench: %s\n", err.c_str());
    return 1;
  }
  Script s(a);
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int, pr::ViewerTesting& vw) { s.frame(vw); };
  const int rc = v.run(&hooks);
  if (s.pick_ms.size() != size_t(a.clicks)) {
    std::fprintf(stderr, "pick_frame_bench: the run ended early: %s\n", v.status().c_str());
    return 1;
  }
  std::printf(
      "summary mode=%s points=%llu clicks=%d median_frame_ms=%.1f median_pick_ms=%.1f "
      "longest_frame_ms=%.1f\n",
      v.mode().c_str(), (unsigned long long)v.cloud_points(), a.clicks, median(s.warm),
      median(s.pick_ms), *std::max_element(s.longest.begin(), s.longest.end()));
  return rc;
}
