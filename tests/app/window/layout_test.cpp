// The window's layout in a real window: the docked panel beside the image (the renderer draws the
// window less the panel, a click picks at its place in the image, Tab gives the image the whole
// window), F frames the cloud in the image, a tiny window and back keeps running, and the panel's
// width dragged by its edge comes back in the next run.
#include <cmath>

#include "viewer/settings.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// `world` projected with `cam` onto a w x h image, in pixels; false behind the camera.
bool project(const pr::Camera& cam, const glm::dvec3& world, int w, int h, double* x, double* y) {
  const glm::dvec3 d = world - cam.position;
  const double cz = glm::dot(d, cam.forward());
  if (!(cz > 0.0)) return false;
  const double s = cam.focus / cz * h * 0.5;
  *x = glm::dot(d, cam.right()) * s + w * 0.5;
  *y = h * 0.5 - glm::dot(d, cam.up()) * s;
  return true;
}

void push_key(SDL_Keycode k, SDL_Scancode sc) {
  SDL_Event e = key_event(k, sc, true);
  SDL_PushEvent(&e);
  e = key_event(k, sc, false);
  SDL_PushEvent(&e);
}

/// The image on screen's rectangle matches the window less the panel, in pixels.
void expect_image_beside_panel(const pr::ViewerTesting& v, int window_w, int window_h) {
  const pr::ImageRect r = v.image_area();
  EXPECT_EQ(v.image_width(), r.w);
  EXPECT_EQ(v.image_height(), r.h);
  EXPECT_EQ(r.x + r.w, window_w);
  EXPECT_EQ(r.h, window_h);
}

}  // namespace

// The panel docked at the left: the renderer draws the window less the panel (not under it), the
// panel ends where the image begins, a click in the image picks the point drawn under it (pixel
// coordinates from the image's corner), and Tab hides the panel: the image takes the whole
// window; Tab again brings it back.
TEST(Window, DockedPanelLeavesTheImageItsOwnPartOfTheWindow) {
  REQUIRE_DISPLAY();
  fresh_config("dock");
  pr::ViewerTesting v(scripted(0, 900, 500, 200'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  pr::ImageRect docked, hidden, back;
  int widths[3] = {0, 0, 0}, click_x = 0, w = 0, h = 0;
  bool shown[3] = {false, true, false};
  pr::ViewerTesting::PanelItem panel;
  bool have_panel = false;
  pr::PickResult picked;
  std::vector<uint32_t> full;
  const int steps = run_steps(v, 9, [&](int step, pr::ViewerTesting& vw) {
    if (step == 0) {
      docked = vw.image_area();
      widths[0] = vw.image_width();
      shown[0] = vw.panel_shown();
      vw.panel_item("panel", &panel);  // starts recording where the panel draws
      w = vw.image_width(), h = vw.image_height();
      click_x = int(docked.ux) + 200;  // 200 units into the image
      SDL_WarpMouseInWindow(vw.window(), click_x, 250);
    } else if (step == 1) {
      have_panel = vw.panel_item("panel", &panel);
      SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, click_x, 250);
      SDL_PushEvent(&e);
      e = mouse_button_event(SDL_BUTTON_LEFT, false, click_x, 250);
      SDL_PushEvent(&e);
    } else if (step == 4) {  // the pick ran on its thread meanwhile
      picked = vw.pick(0);
      push_key(SDLK_TAB, SDL_SCANCODE_TAB);
    } else if (step == 5) {
      hidden = vw.image_area();
      widths[1] = vw.image_width();
      shown[1] = vw.panel_shown();
    } else if (step == 6) {
      int iw = 0, ih = 0;
      vw.read_image(full, iw, ih);
      push_key(SDLK_TAB, SDL_SCANCODE_TAB);
    } else if (step == 8) {
      back = vw.image_area();
      widths[2] = vw.image_width();
      shown[2] = vw.panel_shown();
    }
  });
  ASSERT_EQ(steps, 9) << v.status();
  // Docked: the image is the window less the panel, and the panel ends where it begins.
  EXPECT_TRUE(shown[0]);
  EXPECT_NEAR(docked.ux, 370.0f, 1.0f);
  EXPECT_EQ(widths[0], 900 - docked.x);
  EXPECT_EQ(docked.h, 500);
  ASSERT_TRUE(have_panel);
  EXPECT_NEAR(panel.x0, 0.0f, 0.5f);
  EXPECT_LE(panel.x1, docked.ux + 0.5f);
  // The click 200 units into the image picked the point drawn at pixel 200 of the image.
  ASSERT_TRUE(picked.hit) << v.status();
  double px = 0, py = 0;
  ASSERT_TRUE(project(v.camera(), picked.world, w, h, &px, &py));
  EXPECT_LT(std::hypot(px - 200.0, py - 250.0), 8.0) << px << ", " << py;
  // Hidden: the whole window, and the scene reaches into its left part.
  EXPECT_FALSE(shown[1]);
  EXPECT_EQ(hidden.x, 0);
  EXPECT_EQ(widths[1], 900);
  ASSERT_EQ(full.size(), size_t(900 * 500));
  EXPECT_GT(count_not(full, 900, 0, 0, 370, 500, kBackground), size_t(370 * 500 / 10));
  // Shown again: docked as before.
  EXPECT_TRUE(shown[2]);
  EXPECT_EQ(back.x, docked.x);
  EXPECT_EQ(widths[2], widths[0]);
}

// F frames the cloud in the image, not the window: from a view turned and moved aside, the
// corners of the cloud's bounds project inside the image's middle 90% (fill_view's margin) and
// span most of it on one axis; the start view of a file does the same.
TEST(Window, FrameTheCloudFillsTheImageBesideThePanel) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  fresh_config("frame");
  for (int run = 0; run < 2; ++run) {
    pr::Options o = scripted(0, 1000, 500, 100'000);
    if (run == 1)
      o = scripted_files({(fs::path(data_path("las")) / "1.2-with-color.las").string()});
    pr::ViewerTesting v(o);
    std::string err;
    ASSERT_TRUE(v.open(&err)) << err;
    const int steps = run_steps(v, 3, [&](int step, pr::ViewerTesting& vw) {
      if (run == 1 || step != 0) return;  // a file: its start view
      vw.camera().turn(0.4, -0.2);
      vw.camera().position += vw.camera().right() * 50.0;
      push_key(SDLK_f, SDL_SCANCODE_F);
    });
    ASSERT_EQ(steps, 3) << v.status();
    const pr::ImageRect r = v.image_area();
    ASSERT_FALSE(r.empty());
    EXPECT_GT(r.x, 0) << "the panel is docked";
    const pr::Bounds b = v.cloud_bounds();
    ASSERT_FALSE(b.empty);
    double x0 = 1e300, x1 = -1e300, y0 = 1e300, y1 = -1e300;
    for (int k = 0; k < 8; ++k) {
      const glm::dvec3 c((k & 1) ? b.max.x : b.min.x, (k & 2) ? b.max.y : b.min.y,
                         (k & 4) ? b.max.z : b.min.z);
      double x = 0, y = 0;
      ASSERT_TRUE(project(v.camera(), c, r.w, r.h, &x, &y)) << "corner " << k << " behind";
      x0 = std::min(x0, x), x1 = std::max(x1, x), y0 = std::min(y0, y), y1 = std::max(y1, y);
    }
    SCOPED_TRACE(run == 0 ? "F on a scene" : "a file's start view");
    EXPECT_GE(x0, 0.05 * r.w - 1.0);
    EXPECT_LE(x1, 0.95 * r.w + 1.0);
    EXPECT_GE(y0, 0.05 * r.h - 1.0);
    EXPECT_LE(y1, 0.95 * r.h + 1.0);
    EXPECT_GT(std::max((x1 - x0) / r.w, (y1 - y0) / r.h), 0.85);
    // Centred in the image, so beside the panel, not under it.
    EXPECT_NEAR(0.5 * (x0 + x1), 0.5 * r.w, 0.05 * r.w);
  }
}

// A window made tiny (1x1, then narrower than the panel) and minimized keeps running, and back
// at its size the image is the window less the panel again and shows the scene.
TEST(Window, TinyAndMinimizedWindowKeepsRunningAndComesBack) {
  REQUIRE_DISPLAY();
  fresh_config("tiny");
  pr::ViewerTesting v(scripted(0, 800, 500, 100'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  SDL_SetWindowMinimumSize(v.window(), 1, 1);  // the viewer's own minimum is 320x200
  pr::ImageRect tiny[3];
  const int steps = run_steps(v, 8, [&](int step, pr::ViewerTesting& vw) {
    if (step == 0) SDL_SetWindowSize(vw.window(), 1, 1);
    if (step == 1) tiny[0] = vw.image_area();
    if (step == 1) SDL_SetWindowSize(vw.window(), 100, 60);
    if (step == 2) tiny[1] = vw.image_area();
    if (step == 2) SDL_SetWindowSize(vw.window(), 40, 30);  // no room for a panel
    if (step == 3) tiny[2] = vw.image_area();
    if (step == 3) SDL_MinimizeWindow(vw.window());
    if (step == 5) SDL_RestoreWindow(vw.window());
    if (step == 6) SDL_SetWindowSize(vw.window(), 800, 500);
  });
  ASSERT_EQ(steps, 8) << v.status();
  // Whatever size the X server gave, nothing is negative and the image never leaves the window.
  for (const pr::ImageRect& r : tiny) {
    EXPECT_GE(r.w, 0);
    EXPECT_GE(r.x, 0);
    EXPECT_LE(r.ux + r.uw, 100.5f);
  }
  int w = 0, h = 0;
  SDL_GetWindowSize(v.window(), &w, &h);
  ASSERT_EQ(w, 800);
  expect_image_beside_panel(v, 800, 500);
  std::vector<uint32_t> px;
  int iw = 0, ih = 0;
  ASSERT_TRUE(v.read_image(px, iw, ih));
  EXPECT_GT(count_not(px, iw, 0, 0, iw, ih, kBackground), size_t(iw) * size_t(ih) / 10);
}

// The panel's right edge dragged 100 units to the right widens it (the image narrows by as
// much), and the next run starts with that width from the settings file.
TEST(Window, PanelWidthDraggedPersistsAcrossARestart) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("panel_width");
  int dragged = 0, start = 0;
  {
    pr::ViewerTesting v(scripted(0, 1000, 500, 20'000));  // interactive: saves its settings
    std::string err;
    ASSERT_TRUE(v.open(&err)) << err;
    REQUIRE_PANEL_INPUT();
    start = v.panel_width();
    // The pointer just right of the edge (ImGui's resize border reaches 4 units out), then the
    // button held (a press each frame: ImGui 1.86's SDL backend counts a pushed press for one
    // frame) while the pointer moves 100 units right, 10 a frame, and let go.
    const int edge = start + 2;
    int at = 0;
    pr::ViewerHooks hooks;
    hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
      if (frame > 3000) return vw.request_quit();
      if (at == 0 && (vw.cloud_busy() || frame < 4)) return;
      if (at == 0) at = frame;
      const int k = frame - at;  // 0, 1: hover; 2 - 12: held and moving; 13: up
      const int x = edge + std::clamp(k - 2, 0, 10) * 10;
      SDL_WarpMouseInWindow(vw.window(), x, 250);
      if (k >= 2 && k <= 12) {
        SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, x, 250);
        SDL_PushEvent(&e);
      }
      if (k == 13) {
        SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, false, x, 250);
        SDL_PushEvent(&e);
      }
      if (k == 16) {
        dragged = vw.panel_width();
        vw.request_quit();
      }
    };
    EXPECT_EQ(v.run(&hooks), 0);
    EXPECT_NEAR(dragged, start + 100, 12) << "the drag did not resize the panel";
    EXPECT_NEAR(v.image_area().ux, float(dragged), 1.0f);
  }
  const auto s = pr::load_settings((d / "pointraster" / "settings.ini").string());
  EXPECT_EQ(s.panel_width, dragged);
  pr::ViewerTesting again(scripted(3, 1000, 500, 20'000));
  std::string err;
  ASSERT_TRUE(again.open(&err)) << err;
  EXPECT_EQ(again.panel_width(), dragged);
  EXPECT_EQ(again.run(), 0);
  EXPECT_NEAR(again.image_area().ux, float(dragged), 1.0f);
  expect_image_beside_panel(again, 1000, 500);
}
