// What the window tests share: whether a GL 3.3 window can be made (REQUIRE_DISPLAY), a fresh
// config folder per test, scripted viewer options, SDL events, pixel counts, run_steps() (a script
// of steps a few frames apart once the cloud is on screen) and run_switch_case() (the
// switch-and-compare runs: a table of cases, each its options, steps and expectation).
#pragma once

#include <SDL.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "pointraster_bin.h"
#include "testdata.h"
#include "under_ci.h"
#include "viewer/viewer_testing.h"

namespace pr::test {

/// Whether a GL 3.3 core window can be made here; the reason when not.
bool display_available(std::string* why);

/// A fresh config folder per test (XDG_CONFIG_HOME), so no test reads another's (or the user's)
/// settings.
std::filesystem::path fresh_config(const std::string& name);

/// The viewer's default background, (0.063, 0.071, 0.094) in 8 bits.
inline const uint32_t kBackground = rgba(16, 18, 24);

/// A scripted window: `frames` frames (0: until the test quits), w x h, a scene of `points`
/// points, on the CPU, vsync off.
Options scripted(int frames, int w, int h, uint64_t points);
/// scripted() for the window opening `files` (no scene).
Options scripted_files(std::vector<std::string> files);

SDL_Event key_event(SDL_Keycode k, SDL_Scancode sc, bool down);
/// A mouse button pressed or released at (x, y), window units.
SDL_Event mouse_button_event(uint8_t button, bool down, int x, int y);

/// Whether Dear ImGui sees the pointer in this window (call after the viewer opened): SDL's
/// offscreen driver (the GPU machine's) gives the window no input focus, and ImGui 1.86's SDL
/// backend reads the mouse only for a focused or hovered window; the reason when it does not.
bool panel_input_available(std::string* why);

/// Text typed into the ImGui item that has the keyboard (SDL_TEXTINPUT events).
void type_text(const std::string& text);

/// A click on the panel's item `name` (ViewerTesting::panel_item()) as a user makes it, one step
/// a frame: the pointer goes over the panel and the wheel scrolls it until the item shows whole,
/// then the pointer moves onto the item, the left button goes down, and up. step() returns true
/// on the frame the button went up; failed() once it gave up (the item not drawn, or not shown
/// whole, within 200 frames).
class PanelClick {
 public:
  explicit PanelClick(std::string name) : name_(std::move(name)) {}
  bool step(ViewerTesting& v);
  bool done() const { return stage_ == kDone; }
  bool failed() const { return failed_; }
  const std::string& name() const { return name_; }

 private:
  enum Stage { kStart, kFind, kPress, kRelease, kDone };
  std::string name_;
  Stage stage_ = kStart;
  int frames_ = 0, wait_ = 0;
  int x_ = 0, y_ = 0;
  bool failed_ = false;
};

/// Pixels in [x0,x1)x[y0,y1) that differ from `bg`.
size_t count_not(const std::vector<uint32_t>& px, int w, int x0, int y0, int x1, int y1,
                 uint32_t bg);
/// Near-white, grey pixels: ImGui's default text color on the dark panel.
size_t count_text(const std::vector<uint32_t>& px, int w, int x0, int y0, int x1, int y1);
/// Pixels where two images of the same size differ.
size_t pixels_differing(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b);

/// Runs `v` through a script of `steps` steps: step(0, viewer) on the third frame drawn after the
/// cloud has loaded, each next step three frames after the last (what a step switched is on
/// screen by then), then quits; also at frame 5000, should the cloud never load. Returns how many
/// steps ran.
int run_steps(ViewerTesting& v, int steps, const std::function<void(int, ViewerTesting&)>& step);

/// What a switch-and-compare run saw: the image read at the start of each step, and what the
/// steps recorded.
struct SwitchRun {
  std::vector<std::vector<uint32_t>> images;
  int w = 0, h = 0;
  std::vector<uint64_t> counts;
  std::vector<bool> results;
  std::vector<std::string> notes;
};

/// One switch-and-compare test: a viewer with `options` (and `before`, after it opened) runs
/// run_steps() with one step per entry of `steps`, each reading the image on screen into
/// run.images and then doing its switch; `expect` checks the run.
struct SwitchCase {
  std::string name;
  bool needs_gpu = false;  // skipped, with the reason, where there is no GPU mode
  Options options;
  std::function<void(ViewerTesting&)> before;
  std::vector<std::function<void(ViewerTesting&, SwitchRun&)>> steps;
  std::function<void(ViewerTesting&, const SwitchRun&)> expect;
};

void run_switch_case(const SwitchCase& c);
/// Registers each case as the test Window.<name> (run by run_switch_case()), at `file`:`line`;
/// true, for a file's static initializer.
bool register_switch_cases(const std::vector<SwitchCase>& cases, const char* file, int line);

}  // namespace pr::test

/// In a test, after the viewer opened: skips it where ImGui sees no pointer
/// (panel_input_available()).
#define REQUIRE_PANEL_INPUT()                                          \
  do {                                                                 \
    std::string why_;                                                  \
    if (!pr::test::panel_input_available(&why_)) GTEST_SKIP() << why_; \
  } while (0)

/// In a test: skips it when no GL 3.3 window can be made here, except under CI (CI=true), where
/// the display must be there (.ci/run runs the window tests under Xvfb) and its absence fails.
#define REQUIRE_DISPLAY()                                                              \
  do {                                                                                 \
    std::string why_;                                                                  \
    if (!pr::test::display_available(&why_)) {                                         \
      if (pr::test::under_ci()) FAIL() << why_ << " (under CI, CI=true: Xvfb needed)"; \
      GTEST_SKIP() << why_;                                                            \
    }                                                                                  \
  } while (0)
