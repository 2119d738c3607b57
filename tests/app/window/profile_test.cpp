// The Profile tool in a real window, driven by injected input: two clicks on the cloud are the
// line's vertices, a bad width gets one status line and changes nothing, Make profile extracts
// the corridor and the Profile window shows its points; the wheel zooms it, a drag pans it, two
// clicks on its points pick them and measure the span; a color mode recolors it; Export writes
// its points.
#include <algorithm>
#include <cmath>
#include <fstream>

#include "engine/io/load.h"
#include "testdata.h"

#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// Points of `img` that are not the background, and the first one's pixel.
size_t drawn_pixels(const pr::Image& img, int* fx = nullptr, int* fy = nullptr, int skip = 0) {
  size_t n = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      if (img.rgba[size_t(y) * size_t(img.width) + size_t(x)] != kBackground) {
        if (n == size_t(skip) && fx) *fx = x, *fy = y;
        ++n;
      }
  return n;
}

/// The window-unit position of pixel (px, py) of the profile image.
void profile_point(pr::ViewerTesting& v, int px, int py, int* x, int* y) {
  float x0, y0, x1, y1;
  v.profile_image_rect(&x0, &y0, &x1, &y1);
  const pr::Image& img = v.profile_image();
  *x = int(std::lround(x0 + (float(px) + 0.5f) * (x1 - x0) / float(img.width)));
  *y = int(std::lround(y0 + (float(py) + 0.5f) * (y1 - y0) / float(img.height)));
}

struct Seen {
  size_t line_after_clicks = 0;
  bool bad_width_refused = false;
  std::string bad_width_status;
  size_t drawn = 0, drawn_after_zoom = 0;
  double height_before = 0, height_after_zoom = 0;
  glm::dvec3 pos_before_drag{0.0}, pos_after_drag{0.0};
  std::vector<pr::PickResult> picks;
  pr::ProfileSpan span;
  std::vector<uint32_t> rgb_image, elevation_image;
  size_t profile_points = 0;
  bool exported = false;
};

}  // namespace

TEST(Window, ProfileToolDrawsTheCorridorUnrolled) {
  REQUIRE_DISPLAY();
  const fs::path cfg = fresh_config("profile");
  pr::Options o = scripted(0, 1100, 560, 200'000);
  o.scene = "terrain";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  Seen s;
  const fs::path out = cfg / "profile.csv";
  int stage = 0, t = 0, target_x = 0, target_y = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000) vw.request_quit();
    ++t;
    auto next = [&] {
      ++stage;
      t = 0;
    };
    auto push = [](SDL_Event e) { SDL_PushEvent(&e); };
    // A click of the left button at (target_x, target_y): the pointer there, then press, release.
    auto click = [&]() {
      if (t == 1) SDL_WarpMouseInWindow(vw.window(), target_x, target_y);
      if (t == 4) push(mouse_button_event(SDL_BUTTON_LEFT, true, target_x, target_y));
      if (t == 5) push(mouse_button_event(SDL_BUTTON_LEFT, false, target_x, target_y));
      return t >= 8 && !vw.pick_pending();
    };
    const pr::ImageRect a = vw.image_area();
    switch (stage) {
      case 0:  // the cloud on screen: the tool on, the first vertex at the image's left third
        if (vw.cloud_busy() || vw.cloud_points() == 0 || frame < 4) return;
        vw.set_profile_tool(true);
        target_x = int(a.ux + a.uw * 0.3f);
        target_y = int(a.uy + a.uh * 0.55f);
        return next();
      case 1:
        if (!click()) return;
        target_x = int(a.ux + a.uw * 0.7f);
        return next();
      case 2:
        if (!click()) return;
        s.line_after_clicks = vw.profile_line().size();
        vw.set_profile_width(-1.0);
        s.bad_width_refused = !vw.make_profile();
        s.bad_width_status = vw.status();
        vw.set_profile_width(0.04 * vw.cloud_bounds().size().x);
        vw.make_profile();
        return next();
      case 3:  // the window shows the corridor's points
        if (!vw.profile() || !vw.profile_window_shown() || t < 10) return;
        s.drawn = drawn_pixels(vw.profile_image());
        s.profile_points = vw.profile()->cloud.size();
        s.height_before = vw.profile_camera().ortho_height;
        {  // the wheel over the middle one of the points drawn: it stays under the pointer
          int px = -1, py = -1;
          drawn_pixels(vw.profile_image(), &px, &py, int(s.drawn / 2));
          if (px < 0) return;
          profile_point(vw, px, py, &target_x, &target_y);
        }
        return next();
      case 4: {  // the wheel over the view zooms in
        if (t == 1) SDL_WarpMouseInWindow(vw.window(), target_x, target_y);
        if (t == 4) {
          SDL_Event e{};
          e.type = SDL_MOUSEWHEEL;
          e.wheel.y = 2;
          push(e);
        }
        if (t < 8) return;
        s.height_after_zoom = vw.profile_camera().ortho_height;
        s.drawn_after_zoom = drawn_pixels(vw.profile_image());
        s.pos_before_drag = vw.profile_camera().position;
        return next();
      }
      case 5: {  // a drag pans it
        if (t == 1) SDL_WarpMouseInWindow(vw.window(), target_x, target_y);
        if (t == 4) push(mouse_button_event(SDL_BUTTON_LEFT, true, target_x, target_y));
        if (t == 5 || t == 6) {
          SDL_Event m{};
          m.type = SDL_MOUSEMOTION;
          m.motion.x = target_x + 4 * (t - 4);
          m.motion.y = target_y + 2 * (t - 4);
          m.motion.xrel = 4;
          m.motion.yrel = 2;
          push(m);
        }
        if (t == 7) push(mouse_button_event(SDL_BUTTON_LEFT, false, target_x + 8, target_y + 4));
        if (t < 10) return;
        s.pos_after_drag = vw.profile_camera().position;
        int px = -1, py = -1;
        drawn_pixels(vw.profile_image(), &px, &py, 1);
        if (px < 0) return;  // stops the script: the test fails at its stage
        profile_point(vw, px, py, &target_x, &target_y);
        return next();
      }
      case 6: {  // a click on a drawn point picks it; another on a later point measures
        if (!click()) return;
        const size_t n = drawn_pixels(vw.profile_image());
        int px = -1, py = -1;
        drawn_pixels(vw.profile_image(), &px, &py, int(n * 3 / 4));
        if (px < 0) return;
        profile_point(vw, px, py, &target_x, &target_y);
        return next();
      }
      case 7:
        if (!click()) return;
        s.picks = vw.profile_picks();
        s.span = vw.profile_span();
        s.rgb_image = std::vector<uint32_t>(vw.profile_image().rgba);
        vw.set_color("elevation");
        return next();
      case 8:  // the color mode recolors the profile
        if (vw.color_busy() || vw.color_mode() != "elevation" || t < 10) return;
        s.elevation_image = std::vector<uint32_t>(vw.profile_image().rgba);
        vw.export_profile(out.string());
        return next();
      case 9:
        if (vw.profile_export_busy() || t < 3) return;
        s.exported = true;
        vw.request_quit();
        return next();
      default:
        vw.request_quit();
    }
  };
  v.run(&hooks);
  ASSERT_GE(stage, 10) << "stopped at stage " << stage << "; status: " << v.status();
  EXPECT_EQ(s.line_after_clicks, 2u);
  EXPECT_TRUE(s.bad_width_refused);
  EXPECT_NE(s.bad_width_status.find("the width must be a number above 0"), std::string::npos)
      << s.bad_width_status;
  EXPECT_GT(s.profile_points, 200u);
  EXPECT_GT(s.drawn, 100u);
  EXPECT_NEAR(s.height_after_zoom, s.height_before / 1.5625, s.height_before * 1e-9);
  EXPECT_GT(s.drawn_after_zoom, 0u);
  // 8 x 4 window units at ortho_height / (image height) world units each, against the drag.
  const double wpu = s.height_after_zoom / double(v.profile_image().height);
  EXPECT_NEAR(s.pos_after_drag.x - s.pos_before_drag.x, -8.0 * wpu, 1e-6);
  EXPECT_NEAR(s.pos_after_drag.z - s.pos_before_drag.z, 4.0 * wpu, 1e-6);
  ASSERT_EQ(s.picks.size(), 2u);
  EXPECT_TRUE(s.picks[0].hit && s.picks[1].hit);
  const pr::ProfileCloud* p = v.profile();
  ASSERT_NE(p, nullptr);
  const double da = p->station[s.picks[0].index], db = p->station[s.picks[1].index];
  EXPECT_NEAR(s.span.along, std::abs(db - da), 1e-9);
  EXPECT_NEAR(std::abs(s.span.height), std::abs(s.picks[1].world.z - s.picks[0].world.z), 1e-9);
  ASSERT_EQ(s.rgb_image.size(), s.elevation_image.size());
  EXPECT_GT(pixels_differing(s.rgb_image, s.elevation_image), 50u);
  ASSERT_TRUE(s.exported);
  std::ifstream in(out);
  size_t rows = 0;
  std::string row;
  while (std::getline(in, row)) ++rows;
  EXPECT_EQ(rows, s.profile_points + 1) << out;
}

// A streamed survey's profile is read from its files at every level near the line, not taken
// from the pool's level of detail: the same points as the file read whole; a color mode chosen
// then colors them.
TEST(Window, ProfileOfAStreamedSurveyReadsTheCorridorAtFullDepth) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  const std::string copc = data_path("laz") + "/lone-star.copc.laz";
  fresh_config("profile_stream");
  pr::Options o = scripted_files({copc});
  o.point_budget = 10'000'000;
  o.sse = 200.0;  // a coarse view: the pool holds the top levels only
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  pr::PointCloud whole;
  ASSERT_TRUE(pr::load_point_cloud(copc, whole, nullptr, &err)) << err;
  const pr::Bounds b = whole.world_bounds();
  const pr::Profile line{{b.min + glm::dvec3(2.0, 3.0, 0.0), b.max - glm::dvec3(4.0, 2.0, 0.0)},
                         1.5};
  pr::ProfileCloud expected;
  ASSERT_TRUE(pr::extract_profile(whole, line, pr::UpAxis::kZ, &expected, &err)) << err;
  uint64_t pool_points = 0;
  size_t got = 0;
  std::vector<double> stations;
  std::vector<uint32_t> before, after;
  int stage = 0, start = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 3000) vw.request_quit();
    if (stage == 0 && vw.streaming() && vw.stream_stats().converged) {
      pool_points = vw.stream_stats().points_drawn;
      vw.profile_line() = line.line;
      vw.set_profile_width(line.width);
      stage = vw.make_profile() ? 1 : 9;
    } else if (stage == 1 && !vw.profile_busy() && vw.profile()) {
      got = vw.profile()->cloud.size();
      stations.assign(vw.profile()->station.begin(), vw.profile()->station.end());
      before.assign(vw.profile()->cloud.colors.begin(), vw.profile()->cloud.colors.end());
      vw.set_color(vw.color_mode() == "intensity" ? "elevation" : "intensity");
      stage = 2;
      start = frame;
    } else if (stage == 2 && !vw.color_busy() && frame > start + 5) {
      after.assign(vw.profile()->cloud.colors.begin(), vw.profile()->cloud.colors.end());
      stage = 3;
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(stage, 3) << v.status();
  // The color mode applies to the survey's profile too.
  ASSERT_EQ(before.size(), after.size());
  EXPECT_GT(pixels_differing(before, after), before.size() / 4);
  EXPECT_LT(pool_points, whole.size());  // the view drew a coarser level than the profile reads
  EXPECT_EQ(got, expected.cloud.size());
  std::vector<double> want(expected.station.begin(), expected.station.end());
  std::sort(want.begin(), want.end());
  std::sort(stations.begin(), stations.end());
  EXPECT_EQ(stations, want);
  EXPECT_GT(got, 1000u);
}
