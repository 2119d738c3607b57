// The projection and the standard views in a real window: Blender's keypad keys (injected SDL
// events) turn the camera to the top, bottom and iso views framing the cloud, 5 toggles the
// orthographic projection, the wheel zooms it, and the projection is remembered for the next
// window.
#include <cmath>

#include "window_support.h"

using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

constexpr double kHalfPi = 1.5707963267948966;

void press(SDL_Keycode k, SDL_Scancode sc, uint16_t mod = KMOD_NONE) {
  SDL_Event e = key_event(k, sc, true);
  e.key.keysym.mod = mod;
  SDL_PushEvent(&e);
  e = key_event(k, sc, false);
  e.key.keysym.mod = mod;
  SDL_PushEvent(&e);
}

}  // namespace

TEST(Window, ViewKeysTurnToStandardViewsAndToggleOrtho) {
  REQUIRE_DISPLAY();
  fresh_config("views");
  std::string err;
  {
    pr::ViewerTesting v(scripted(0, 800, 500, 100'000));
    ASSERT_TRUE(v.open(&err)) << err;
    std::vector<uint32_t> img;
    int w = 0, h = 0;
    double height = 0.0;
    const int steps = run_steps(v, 6, [&](int step, pr::ViewerTesting& vw) {
      pr::Camera& cam = vw.camera();
      switch (step) {
        case 0:
          EXPECT_FALSE(cam.ortho());
          press(SDLK_7, SDL_SCANCODE_7);  // top
          break;
        case 1:
          EXPECT_EQ(cam.pitch, -kHalfPi);
          EXPECT_EQ(cam.yaw, 0.0);
          EXPECT_FALSE(cam.ortho());
          EXPECT_NEAR(cam.forward().y, -1.0, 1e-12);  // the scene is y-up: looking down -y
          ASSERT_TRUE(vw.read_image(img, w, h));
          EXPECT_GT(count_not(img, w, 0, 0, w, h, kBackground), size_t(w) * h / 10);
          press(SDLK_5, SDL_SCANCODE_5);  // orthographic
          break;
        case 2:
          EXPECT_TRUE(cam.ortho());
          EXPECT_EQ(cam.pitch, -kHalfPi);  // the view kept
          ASSERT_TRUE(vw.read_image(img, w, h));
          EXPECT_GT(count_not(img, w, 0, 0, w, h, kBackground), size_t(w) * h / 10);
          press(SDLK_KP_7, SDL_SCANCODE_KP_7, KMOD_LCTRL);  // Ctrl: bottom
          break;
        case 3:
          EXPECT_EQ(cam.pitch, kHalfPi);
          EXPECT_TRUE(cam.ortho());
          press(SDLK_0, SDL_SCANCODE_0);  // iso
          // The pointer over the image (not the panel), a step before the wheel turns there.
          SDL_WarpMouseInWindow(vw.window(), 700, 250);
          {
            SDL_Event m{};
            m.type = SDL_MOUSEMOTION;
            m.motion.windowID = SDL_GetWindowID(vw.window());
            m.motion.x = 700;
            m.motion.y = 250;
            SDL_PushEvent(&m);
          }
          break;
        case 4: {
          EXPECT_NEAR(cam.yaw, -0.25 * 3.14159265358979323846, 1e-12);
          EXPECT_LT(cam.pitch, 0.0);
          height = cam.ortho_height;
          // The wheel over the image zooms the orthographic view.
          SDL_Event e{};
          e.type = SDL_MOUSEWHEEL;
          e.wheel.y = 1;
          SDL_PushEvent(&e);
          break;
        }
        case 5:
          EXPECT_NEAR(cam.ortho_height, height / 1.2, height * 1e-9);
          break;
      }
    });
    EXPECT_EQ(steps, 6);
  }  // the viewer closes and saves its settings
  // The next window starts orthographic.
  pr::ViewerTesting again(scripted(0, 800, 500, 100'000));
  ASSERT_TRUE(again.open(&err)) << err;
  bool ortho = false;
  run_steps(again, 1, [&](int, pr::ViewerTesting& vw) { ortho = vw.camera().ortho(); });
  EXPECT_TRUE(ortho);
}

TEST(Window, PanelButtonsTurnToTheTopViewAndToggleOrtho) {
  REQUIRE_DISPLAY();
  fresh_config("view_buttons");
  pr::Options o = scripted(0, 800, 900, 100'000);  // tall: the Camera section shows whole
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  PanelClick top("view.top"), ortho("view.ortho");
  int done_at = -1;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 3000 || top.failed() || ortho.failed()) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0 || frame < 3) return;
    if (!top.done()) {
      top.step(vw);
    } else if (!ortho.done()) {
      ortho.step(vw);
    } else if (done_at < 0) {
      done_at = frame;
    } else if (frame > done_at + 3) {
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_FALSE(top.failed()) << "the Top button was not drawn whole";
  ASSERT_FALSE(ortho.failed()) << "the ortho button was not drawn whole";
  EXPECT_EQ(v.camera().pitch, -kHalfPi);
  EXPECT_TRUE(v.camera().ortho());
}

// Adaptive point size from the command line: a sparse cloud's points grow into squares that
// cover much more of the image, and the choice is remembered for the next window.
TEST(Window, AdaptiveSizeFillsASparseCloudAndIsRemembered) {
  REQUIRE_DISPLAY();
  fresh_config("adaptive");
  size_t drawn[3] = {0, 0, 0};
  for (int run = 0; run < 3; ++run) {
    pr::Options o = scripted(0, 800, 500, 20'000);
    if (run == 1) {
      o.adaptive_size = true;
      o.max_point_size = 12;
    }
    pr::ViewerTesting v(o);
    std::string err;
    ASSERT_TRUE(v.open(&err)) << err;
    std::vector<uint32_t> img;
    int w = 0, h = 0;
    ASSERT_EQ(run_steps(v, 1,
                        [&](int, pr::ViewerTesting& vw) {
                          ASSERT_TRUE(vw.read_image(img, w, h));
                          drawn[run] = count_not(img, w, 0, 0, w, h, kBackground);
                        }),
              1);
  }
  EXPECT_GT(drawn[1], 2 * drawn[0]);
  EXPECT_GT(drawn[2], 2 * drawn[0]);  // run 2 without the option: the settings kept it on
}
