// The Clip section in the window: a box added as the panel's "add box" does hides the points
// outside it, its edges are drawn over the image, "highlight" tints instead of hiding, and
// PageUp steps a section.
#include <cmath>

#include "window_support.h"

using namespace pr::test;  // NOLINT: the window tests' helpers

TEST(Window, ClipBoxFromThePanelChangesTheImage) {
  REQUIRE_DISPLAY();
  fresh_config("clip");
  pr::Options o = scripted(0, 480, 320, 200'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<std::vector<uint32_t>> images;
  int w = 0, h = 0;
  double section_x = 0.0, thickness = 0.0;
  const int ran = run_steps(v, 5, [&](int step, pr::ViewerTesting& t) {
    std::vector<uint32_t> px;
    ASSERT_TRUE(t.read_image(px, w, h));
    images.push_back(px);
    if (step == 0) t.add_clip_box();  // the panel's "add box"
    if (step == 1) t.clip().boxes[0].mode = pr::ClipMode::kHighlight;
    if (step == 2) {  // a slab across x through the box's centre, a fifth of its width
      const pr::ClipBox b = t.clip().boxes[0];
      t.clip().boxes.clear();
      t.clip().section = pr::section_along_axis(0, b.centre.x, b.size.x * 0.2);
      section_x = b.centre.x;
      thickness = b.size.x * 0.2;
    }
    if (step == 3) {
      SDL_Event e = key_event(SDLK_PAGEUP, SDL_SCANCODE_PAGEUP, true);
      SDL_PushEvent(&e);
      e = key_event(SDLK_PAGEUP, SDL_SCANCODE_PAGEUP, false);
      SDL_PushEvent(&e);
    }
  });
  ASSERT_EQ(ran, 5);
  ASSERT_EQ(images.size(), 5u);
  // The box hides the points outside it: fewer pixels drawn than without it.
  const size_t before = count_not(images[0], w, 0, 0, w, h, kBackground);
  const size_t boxed = count_not(images[1], w, 0, 0, w, h, kBackground);
  EXPECT_GT(before, 1000u);
  EXPECT_LT(boxed, before);
  EXPECT_GT(pixels_differing(images[0], images[1]), 100u);
  // Highlighted: every point drawn again, those in the box tinted.
  EXPECT_GT(pixels_differing(images[0], images[2]), 100u);
  EXPECT_GT(count_not(images[2], w, 0, 0, w, h, kBackground), boxed);
  // PageUp moved the section by its thickness: another slab, another image.
  EXPECT_GT(pixels_differing(images[3], images[4]), 0u);
  EXPECT_DOUBLE_EQ(v.clip().section.point.x, section_x + thickness);
}

// The panel itself: a click opens the Clip section, a click on "add box" adds a box of half the
// cloud around its centre, and the image changes; the box's rows are drawn.
TEST(Window, ClipSectionAddBoxButton) {
  REQUIRE_DISPLAY();
  fresh_config("clip_click");
  pr::Options o = scripted(0, 640, 480, 100'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  PanelClick header("clip.header"), add("clip.add");
  int stage = 0, wait = 0, w = 0, h = 0;
  std::vector<uint32_t> before, after;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 3000) stage = 9;
    if (stage < 9 && (t.cloud_busy() || frame < 5)) return;
    switch (stage) {
      case 0:
        if (t.read_image(before, w, h)) stage = 1;
        break;
      case 1:
        if (header.step(t)) stage = 2;
        if (header.failed()) stage = 9;
        break;
      case 2:
        if (add.step(t)) stage = 3;
        if (add.failed()) stage = 9;
        break;
      case 3:
        if (++wait > 3 && t.read_image(after, w, h)) stage = 4;
        break;
      default:
        t.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(stage, 4) << "header click failed: " << header.failed()
                      << ", add click failed: " << add.failed();
  ASSERT_EQ(v.clip().boxes.size(), 1u);
  EXPECT_EQ(v.clip().boxes[0].mode, pr::ClipMode::kInside);
  pr::ViewerTesting::PanelItem rows;
  EXPECT_TRUE(v.panel_item("clip.box.1", &rows));
  ASSERT_EQ(after.size(), before.size());
  EXPECT_GT(pixels_differing(before, after), 100u);
}

namespace {

/// A left-button drag from (x0, y0) to (x1, y1) in window units: press, a motion, release.
void push_drag(float x0, float y0, float x1, float y1) {
  SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, int(x0), int(y0));
  SDL_PushEvent(&e);
  SDL_Event m{};
  m.type = SDL_MOUSEMOTION;
  m.motion.x = int(x1);
  m.motion.y = int(y1);
  m.motion.xrel = int(x1) - int(x0);
  m.motion.yrel = int(y1) - int(y0);
  m.motion.state = SDL_BUTTON_LMASK;
  SDL_PushEvent(&m);
  e = mouse_button_event(SDL_BUTTON_LEFT, false, int(x1), int(y1));
  SDL_PushEvent(&e);
}

}  // namespace

// The drag handles: the centre's moves the box across the view, a face's moves that face along
// its axis (the opposite face stays); a press on a handle picks nothing.
TEST(Window, ClipBoxHandlesMoveAndResizeTheBox) {
  REQUIRE_DISPLAY();
  fresh_config("clip_drag");
  // Wide enough that the cloud's centre lies right of the panel.
  pr::Options o = scripted(0, 1200, 600, 100'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  pr::ClipBox start, moved, resized;
  bool handles = true;
  float x = 0, y = 0, fx = 0, fy = 0;
  // The pointer goes onto a handle a step before the drag (ImGui takes presses over the panel,
  // where an earlier test may have left it).
  const int ran = run_steps(v, 5, [&](int step, pr::ViewerTesting& t) {
    if (step == 0) {
      t.add_clip_box();
      SDL_WarpMouseInWindow(t.window(), 40, 60);  // over the panel, as a test before may leave it
    }
    if (step == 1) {
      start = t.clip().boxes[0];
      handles = handles && t.clip_handle(0, 0, &x, &y);
      SDL_WarpMouseInWindow(t.window(), int(x), int(y));
    }
    if (step == 2) push_drag(x, y, x + 40.0f, y);  // the centre, 40 units right
    if (step == 3) {
      moved = t.clip().boxes[0];
      handles = handles && t.clip_handle(0, 2, &fx, &fy);  // the +x face
      SDL_WarpMouseInWindow(t.window(), int(fx), int(fy));
    }
    if (step == 4) {
      float cx = 0, cy = 0;
      handles = handles && t.clip_handle(0, 0, &cx, &cy);
      // Away from the centre along the face's direction on screen.
      const float dx = fx - cx, dy = fy - cy, len = std::sqrt(dx * dx + dy * dy);
      push_drag(fx, fy, fx + 30.0f * dx / len, fy + 30.0f * dy / len);
    }
  });
  resized = v.clip().boxes[0];
  ASSERT_EQ(ran, 5);
  ASSERT_TRUE(handles);
  EXPECT_EQ(v.pick_count(), 0);  // the presses took handles, not points
  // Moved across the view (its right axis), the size kept.
  const glm::dvec3 d = moved.centre - start.centre;
  EXPECT_GT(glm::dot(d, v.camera().right()), 0.0);
  EXPECT_EQ(moved.size, start.size);
  // The +x face moved out: wider along x, the -x face where it was.
  EXPECT_GT(resized.size.x, moved.size.x);
  EXPECT_NEAR(resized.centre.x - 0.5 * resized.size.x, moved.centre.x - 0.5 * moved.size.x,
              1e-6 * moved.size.x);
  EXPECT_EQ(resized.size.y, moved.size.y);
}

// The ring beyond a box's +x face turns the box about z as the pointer turns around the box's
// centre on the screen: counterclockwise seen from where the camera looks.
TEST(Window, ClipBoxRingTurnsTheBox) {
  REQUIRE_DISPLAY();
  fresh_config("clip_turn");
  pr::Options o = scripted(0, 1200, 600, 100'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  pr::ClipBox start;
  bool handles = true;
  float cx = 0, cy = 0, rx = 0, ry = 0;
  const double kTurn = 40.0;  // degrees, counterclockwise on the screen
  const int ran = run_steps(v, 3, [&](int step, pr::ViewerTesting& t) {
    if (step == 0) {
      t.add_clip_box();
      SDL_WarpMouseInWindow(t.window(), 40, 60);
    }
    if (step == 1) {
      start = t.clip().boxes[0];
      handles = t.clip_handle(0, 0, &cx, &cy) && t.clip_handle(0, 7, &rx, &ry);
      SDL_WarpMouseInWindow(t.window(), int(rx), int(ry));
    }
    if (step == 2) {
      // The ring's position turned around the centre (window y points down).
      const double a = kTurn * 3.14159265358979323846 / 180.0;
      const double dx = rx - cx, dy = ry - cy;
      const double tx = cx + dx * std::cos(a) + dy * std::sin(a);
      const double ty = cy - dx * std::sin(a) + dy * std::cos(a);
      push_drag(rx, ry, float(tx), float(ty));
    }
  });
  ASSERT_EQ(ran, 3);
  ASSERT_TRUE(handles);
  EXPECT_EQ(v.pick_count(), 0);
  const pr::ClipBox turned = v.clip().boxes[0];
  const double facing = v.camera().forward().z <= 0.0 ? 1.0 : -1.0;
  // Whole window units: the turn within a few degrees.
  EXPECT_NEAR(turned.yaw - start.yaw, facing * kTurn, 3.0);
  EXPECT_EQ(turned.size, start.size);
  EXPECT_EQ(turned.centre, start.centre);
}

// "draw a box": a rectangle dragged on the image makes a box over it, the cloud's whole height,
// its centre drawn inside the rectangle; the drag picks nothing and the mode ends.
TEST(Window, ClipBoxDrawnOnTheCloud) {
  REQUIRE_DISPLAY();
  fresh_config("clip_draw");
  pr::Options o = scripted(0, 1200, 600, 100'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  const float x0 = 700, y0 = 260, x1 = 900, y1 = 380;
  const int ran = run_steps(v, 3, [&](int step, pr::ViewerTesting& t) {
    if (step == 0) {
      t.set_clip_drawing(true);
      SDL_WarpMouseInWindow(t.window(), 40, 60);
    }
    if (step == 1) SDL_WarpMouseInWindow(t.window(), int(x0), int(y0));
    if (step == 2) push_drag(x0, y0, x1, y1);
  });
  ASSERT_EQ(ran, 3);
  ASSERT_EQ(v.clip().boxes.size(), 1u);
  EXPECT_FALSE(v.clip_drawing());
  EXPECT_EQ(v.pick_count(), 0);
  const pr::ClipBox b = v.clip().boxes[0];
  const pr::Bounds cb = v.cloud_bounds();
  // The scene's y is up: the box spans its whole height, along the axes.
  EXPECT_NEAR(b.size.y, (cb.max.y - cb.min.y) * 1.02, 1e-6 * (cb.max.y - cb.min.y));
  EXPECT_EQ(b.yaw, 0.0);
  float cx = 0, cy = 0;
  ASSERT_TRUE(v.window_point(b.centre, &cx, &cy));
  EXPECT_GT(cx, x0);
  EXPECT_LT(cx, x1);
  EXPECT_GT(cy, y0);
  EXPECT_LT(cy, y1);
  // The rectangle's corners lie within the box's image: its ground-level corners reach them.
  float lx = 0, ly = 0, hx = 0, hy = 0;
  ASSERT_TRUE(v.window_point(b.centre - glm::dvec3(b.size.x, 0, b.size.z) * 0.5, &lx, &ly));
  ASSERT_TRUE(v.window_point(b.centre + glm::dvec3(b.size.x, 0, b.size.z) * 0.5, &hx, &hy));
  EXPECT_GT(std::abs(hx - lx), 0.9f * (x1 - x0));
}

// A rectangle too small to mean one makes no box, and the mode stays on.
TEST(Window, ClipBoxTooSmallARectangleMakesNone) {
  REQUIRE_DISPLAY();
  fresh_config("clip_draw_small");
  pr::Options o = scripted(0, 1200, 600, 100'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  const int ran = run_steps(v, 3, [&](int step, pr::ViewerTesting& t) {
    if (step == 0) {
      t.set_clip_drawing(true);
      SDL_WarpMouseInWindow(t.window(), 40, 60);
    }
    if (step == 1) SDL_WarpMouseInWindow(t.window(), 800, 300);
    if (step == 2) push_drag(800, 300, 802, 340);
  });
  ASSERT_EQ(ran, 3);
  EXPECT_TRUE(v.clip().boxes.empty());
  EXPECT_TRUE(v.clip_drawing());
}

// --clip-box reaches the viewer's first frames: a box away from the cloud leaves only the
// background.
TEST(Window, CommandLineClipStartsTheViewer) {
  REQUIRE_DISPLAY();
  fresh_config("clip_option");
  pr::Options o = scripted(0, 480, 320, 50'000);
  o.mode = "cpu";
  pr::ClipBox far;
  far.centre = glm::dvec3(1e6, 1e6, 1e6);
  o.clip.boxes.push_back(far);
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<uint32_t> px;
  int w = 0, h = 0;
  const int ran =
      run_steps(v, 1, [&](int, pr::ViewerTesting& t) { ASSERT_TRUE(t.read_image(px, w, h)); });
  ASSERT_EQ(ran, 1);
  ASSERT_EQ(v.clip().boxes.size(), 1u);
  EXPECT_EQ(count_not(px, w, 0, 0, w, h, kBackground), 0u);
  EXPECT_GT(v.cloud_points(), 0u);
}
