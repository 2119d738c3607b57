#include "window_support.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "startup.h"

namespace fs = std::filesystem;

namespace pr::test {

namespace {

int channel(uint32_t p, int c) {
  return int((p >> (8 * c)) & 0xffu);
}

bool differs(uint32_t a, uint32_t b, int tol) {
  for (int c = 0; c < 3; ++c)
    if (std::abs(channel(a, c) - channel(b, c)) > tol) return true;
  return false;
}

}  // namespace

bool display_available(std::string* why) {
  int video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  for (int attempt = 1; video != 0 && attempt < 4; ++attempt) {  // as Viewer::open does
    SDL_Delay(200);
    video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  }
  if (video != 0) {
    *why = std::string("no display: SDL video: ") + SDL_GetError();
    return false;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_Window* w = SDL_CreateWindow("probe", 0, 0, 64, 64, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
  bool ok = w != nullptr;
  if (w) {
    SDL_GLContext c = SDL_GL_CreateContext(w);
    ok = c != nullptr;
    if (c) SDL_GL_DeleteContext(c);
    SDL_DestroyWindow(w);
  }
  if (!ok) *why = std::string("no OpenGL 3.3 window: ") + SDL_GetError();
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
  return ok;
}

fs::path fresh_config(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_viewer_test_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  setenv("XDG_CONFIG_HOME", d.c_str(), 1);
  return d;
}

Options scripted(int frames, int w, int h, uint64_t points) {
  Options o;
  o.frames = frames;
  o.width = w;
  o.height = h;
  o.points = points;
  o.mode = "cpu";
  o.vsync = false;
  return o;
}

Options scripted_files(std::vector<std::string> files) {
  Options o = scripted(0, 640, 400, 0);
  o.points.reset();
  o.files = std::move(files);
  return o;
}

SDL_Event key_event(SDL_Keycode k, SDL_Scancode sc, bool down) {
  SDL_Event e{};
  e.type = down ? SDL_KEYDOWN : SDL_KEYUP;
  e.key.state = down ? SDL_PRESSED : SDL_RELEASED;
  e.key.keysym.sym = k;
  e.key.keysym.scancode = sc;
  return e;
}

SDL_Event mouse_button_event(uint8_t button, bool down, int x, int y) {
  SDL_Event e{};
  e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
  e.button.button = button;
  e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
  e.button.x = x;
  e.button.y = y;
  return e;
}

bool panel_input_available(std::string* why) {
  const char* driver = SDL_GetCurrentVideoDriver();
  if (driver && std::string(driver) == "offscreen") {
    *why = "SDL's offscreen driver gives the window no input focus: ImGui sees no pointer";
    return false;
  }
  return true;
}

void type_text(const std::string& text) {
  // SDL_TEXTINPUT carries at most 31 bytes and a terminating zero.
  for (size_t at = 0; at < text.size(); at += 31) {
    SDL_Event e{};
    e.type = SDL_TEXTINPUT;
    const std::string part = text.substr(at, 31);
    std::memcpy(e.text.text, part.c_str(), part.size() + 1);
    SDL_PushEvent(&e);
  }
}

bool PanelClick::step(ViewerTesting& v) {
  if (stage_ == kDone || failed_) return false;
  if (++frames_ > 200) {
    failed_ = true;
    return false;
  }
  if (wait_ > 0) {
    --wait_;
    return false;
  }
  ViewerTesting::PanelItem panel, item;
  const bool have_panel = v.panel_item("panel", &panel);
  const bool have_item = v.panel_item(name_, &item);
  switch (stage_) {
    case kStart:  // the pointer over the panel, left of its items (a child list would scroll)
      if (!have_panel) return false;
      SDL_WarpMouseInWindow(v.window(), int(panel.x0) + 3, int((panel.y0 + panel.y1) / 2));
      stage_ = kFind;
      wait_ = 2;
      return false;
    case kFind:
      if (!have_item) return false;
      if (!item.visible) {
        SDL_Event e{};
        e.type = SDL_MOUSEWHEEL;
        e.wheel.y = item.y0 < panel.y0 ? 1 : -1;  // up towards an item above, down otherwise
        SDL_PushEvent(&e);
        return false;
      }
      // Near the item's left end: an input field's label lies right of its box.
      x_ = int(item.x0 + std::min(12.0f, (item.x1 - item.x0) / 2));
      y_ = int((item.y0 + item.y1) / 2);
      SDL_WarpMouseInWindow(v.window(), x_, y_);
      stage_ = kPress;
      wait_ = 2;  // ImGui sees the pointer there before the button goes down
      return false;
    case kPress: {
      SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, x_, y_);
      SDL_PushEvent(&e);
      stage_ = kRelease;
      return false;
    }
    case kRelease: {
      SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, false, x_, y_);
      SDL_PushEvent(&e);
      stage_ = kDone;
      return true;
    }
    case kDone:
      break;
  }
  return false;
}

size_t count_not(const std::vector<uint32_t>& px, int w, int x0, int y0, int x1, int y1,
                 uint32_t bg) {
  size_t n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) n += differs(px[size_t(y) * size_t(w) + size_t(x)], bg, 8);
  return n;
}

size_t count_text(const std::vector<uint32_t>& px, int w, int x0, int y0, int x1, int y1) {
  size_t n = 0;
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const uint32_t p = px[size_t(y) * size_t(w) + size_t(x)];
      const int r = channel(p, 0), g = channel(p, 1), b = channel(p, 2);
      n += r > 200 && g > 200 && b > 200 && std::abs(r - g) < 12 && std::abs(g - b) < 12;
    }
  return n;
}

size_t pixels_differing(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) n += a[i] != b[i];
  return n;
}

int run_steps(ViewerTesting& v, int steps, const std::function<void(int, ViewerTesting&)>& step) {
  int loaded = -1, done = 0;
  ViewerHooks hooks;
  hooks.on_frame = [&](int frame, ViewerTesting& vw) {
    if (loaded < 0 && !vw.cloud_busy() && vw.cloud_points() > 0) loaded = frame;
    if (loaded >= 0 && done < steps && frame == loaded + 3 * (done + 1)) {
      step(done++, vw);
      if (done == steps) vw.request_quit();
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  return done;
}

namespace {

class SwitchTest : public testing::Test {
 public:
  explicit SwitchTest(SwitchCase c) : case_(std::move(c)) {}
  void TestBody() override { run_switch_case(case_); }

 private:
  SwitchCase case_;
};

}  // namespace

bool register_switch_cases(const std::vector<SwitchCase>& cases, const char* file, int line) {
  for (const SwitchCase& c : cases)
    testing::RegisterTest("Window", c.name.c_str(), nullptr, nullptr, file, line,
                          [c]() -> testing::Test* { return new SwitchTest(c); });
  return true;
}

void run_switch_case(const SwitchCase& c) {
  REQUIRE_DISPLAY();
  std::string why;
  if (c.needs_gpu && !gpu_renderer_available(&why)) GTEST_SKIP() << "no GPU mode here: " << why;
  fresh_config(c.name);
  ViewerTesting v(c.options);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  if (c.before) c.before(v);
  SwitchRun run;
  const int steps = run_steps(v, int(c.steps.size()), [&](int step, ViewerTesting& vw) {
    run.images.emplace_back();
    vw.read_image(run.images.back(), run.w, run.h);
    if (c.steps[size_t(step)]) c.steps[size_t(step)](vw, run);
  });
  ASSERT_EQ(steps, int(c.steps.size())) << "the cloud never finished loading: " << v.status();
  c.expect(v, run);
}

}  // namespace pr::test
