// The Clip section's polygon selection in a running window, with injected input: a polygon of two
// vertices gets one line and no selection, Esc drops it; four clicks on the image and a click on
// the first vertex close one (Enter and a double-click too); Save then writes exactly the points
// inside it (read back from the LAS file, each record's world position tested with the polygon's
// own camera), and every point of the file well inside it.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <vector>

#include "engine/clip_polygon.h"
#include "engine/io/base/bytes.h"
#include "engine/io/io.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

void click(float x, float y) {
  SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, int(x), int(y));
  SDL_PushEvent(&e);
  e = mouse_button_event(SDL_BUTTON_LEFT, false, int(x), int(y));
  SDL_PushEvent(&e);
}

void press(SDL_Keycode k, SDL_Scancode sc) {
  SDL_Event e = key_event(k, sc, true);
  SDL_PushEvent(&e);
  e = key_event(k, sc, false);
  SDL_PushEvent(&e);
}

/// The world positions of a LAS 1.4 file's records, as the converter computed them (X * scale +
/// offset in double).
std::vector<glm::dvec3> las_positions(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
  std::vector<glm::dvec3> out;
  if (d.size() < 375) return out;
  using pr::io::get_le;
  const uint32_t offset = get_le<uint32_t>(&d[96]);
  const uint16_t rec = get_le<uint16_t>(&d[105]);
  const uint64_t n = get_le<uint64_t>(&d[247]);
  glm::dvec3 scale, origin;
  for (int a = 0; a < 3; ++a) {
    scale[a] = get_le<double>(&d[131 + 8 * a]);
    origin[a] = get_le<double>(&d[155 + 8 * a]);
  }
  for (uint64_t i = 0; i < n && offset + (i + 1) * rec <= d.size(); ++i) {
    glm::dvec3 w;
    for (int a = 0; a < 3; ++a)
      w[a] = double(get_le<int32_t>(&d[offset + i * rec + 4 * a])) * scale[a] + origin[a];
    out.push_back(w);
  }
  return out;
}

/// The distance in pixels from `p` to the polygon's outline.
double edge_distance(const std::vector<glm::dvec2>& poly, const glm::dvec2& p) {
  double best = INFINITY;
  for (size_t i = 0, j = poly.size() - 1; i < poly.size(); j = i++) {
    const glm::dvec2 a = poly[j], d = poly[i] - a;
    const double t = std::clamp(glm::dot(p - a, d) / glm::dot(d, d), 0.0, 1.0);
    best = std::min(best, glm::length(p - (a + d * t)));
  }
  return best;
}

}  // namespace

TEST(Window, PolygonDrawnOnTheImageSelectsWhatSaveWrites) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const std::string las = data_path("las") + "/autzen_trim.las";
  const fs::path dir = fresh_config("polygon") / "saved";
  fs::create_directories(dir);
  const fs::path out = dir / "inside.las";
  pr::Options o = scripted_files({las});
  o.mode = "cpu";
  o.width = 1200;
  o.height = 700;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::string two_vertices_status;
  bool two_kept_drawing = false, dropped = false, closed = false, started = false;
  std::vector<glm::dvec2> corners;
  int phase = 0, wait = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 6000) t.request_quit();
    if (t.cloud_busy() || t.cloud_points() == 0 || ++wait < 5) return;
    const pr::ImageRect a = t.image_area();
    const float cx = a.ux + 0.5f * a.uw, cy = a.uy + 0.5f * a.uh;
    wait = 0;
    switch (phase++) {
      case 0:  // the pointer onto the image (ImGui takes presses over the panel)
        SDL_WarpMouseInWindow(t.window(), int(cx), int(cy));
        t.start_polygon();
        break;
      case 1:  // two vertices, Enter: refused with one line
        click(cx - 100, cy - 80);
        click(cx + 120, cy - 60);
        press(SDLK_RETURN, SDL_SCANCODE_RETURN);
        break;
      case 2:
        two_vertices_status = t.status();
        two_kept_drawing = t.polygon_drawing() && t.polygon() == nullptr;
        press(SDLK_ESCAPE, SDL_SCANCODE_ESCAPE);
        break;
      case 3:  // Esc dropped it; a concave polygon of four vertices, closed on the first one
        dropped = !t.polygon_drawing() && t.polygon_pending() == 0;
        t.start_polygon();
        corners = {{cx - 0.25 * a.uw, cy - 0.25 * a.uh},
                   {cx + 0.2 * a.uw, cy - 0.2 * a.uh},
                   {cx, cy},
                   {cx - 0.1 * a.uw, cy + 0.3 * a.uh}};
        for (const glm::dvec2& c : corners) click(float(c.x), float(c.y));
        click(float(corners[0].x) + 2, float(corners[0].y) + 2);
        break;
      case 4:
        closed = t.polygon() != nullptr && !t.polygon_drawing();
        started = closed && t.save_cloud(out.string());
        break;
      default:
        if (!t.save_busy()) t.request_quit();
        --phase;
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_EQ(two_vertices_status, "polygon: 2 vertices, at least 3 needed");
  EXPECT_TRUE(two_kept_drawing);
  EXPECT_TRUE(dropped);
  ASSERT_TRUE(closed) << v.status();
  ASSERT_TRUE(started) << v.status();
  EXPECT_EQ(v.status().rfind("saved " + out.string(), 0), 0u) << v.status();
  const pr::ClipPolygon poly = *v.polygon();
  ASSERT_EQ(poly.vertices.size(), 4u);
  EXPECT_EQ(v.pick_count(), 0);  // the clicks drew, they picked nothing

  // Every point written lies inside, by the very test the export ran.
  const std::vector<glm::dvec3> written = las_positions(out.string());
  ASSERT_GT(written.size(), 1000u);
  for (const glm::dvec3& p : written) ASSERT_TRUE(pr::clip_polygon_contains(poly, p));
  // The file's points inside by more than a hundredth of a pixel (the records' rounding moves a
  // point by far less) are all there; those outside by as much are not.
  pr::PointCloud cloud;
  ASSERT_TRUE(pr::load_point_cloud(las, cloud, nullptr, &err)) << err;
  size_t surely_in = 0, maybe_in = 0;
  for (size_t i = 0; i < cloud.size(); ++i) {
    const glm::dvec3 w =
        cloud.origin + glm::dvec3(cloud.positions[i].x, cloud.positions[i].y, cloud.positions[i].z);
    glm::dvec2 px;
    if (!pr::clip_polygon_pixel(poly, w, &px)) continue;
    const bool in = pr::polygon_contains(poly.vertices, px);
    const bool near = edge_distance(poly.vertices, px) < 0.01;
    surely_in += in && !near;
    maybe_in += in || near;
  }
  EXPECT_GE(written.size(), surely_in);
  EXPECT_LE(written.size(), maybe_in);
  EXPECT_LT(written.size(), cloud.size());
}

// Enter closes a polygon of three vertices, as does a double-click (its second press adds no
// vertex); clear takes the selection away.
TEST(Window, PolygonClosesWithEnterOrADoubleClick) {
  REQUIRE_DISPLAY();
  fresh_config("polygon_close");
  pr::Options o = scripted(0, 1000, 600, 50'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  size_t by_enter = 0, by_double = 0;
  bool cleared = false;
  const int ran = run_steps(v, 5, [&](int step, pr::ViewerTesting& t) {
    const pr::ImageRect a = t.image_area();
    const float cx = a.ux + 0.5f * a.uw, cy = a.uy + 0.5f * a.uh;
    if (step == 0) SDL_WarpMouseInWindow(t.window(), int(cx), int(cy));
    if (step == 1 || step == 3) {
      t.start_polygon();
      click(cx - 60, cy - 40);
      click(cx + 60, cy - 40);
      click(cx, cy + 50);
      if (step == 1) {
        press(SDLK_RETURN, SDL_SCANCODE_RETURN);
      } else {
        SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, true, int(cx), int(cy + 50));
        e.button.clicks = 2;
        SDL_PushEvent(&e);
      }
    }
    if (step == 2 && t.polygon()) by_enter = t.polygon()->vertices.size();
    if (step == 4 && t.polygon()) {
      by_double = t.polygon()->vertices.size();
      t.clear_polygon();
      cleared = t.polygon() == nullptr;
    }
  });
  ASSERT_EQ(ran, 5);
  EXPECT_EQ(by_enter, 3u) << v.status();
  EXPECT_EQ(by_double, 3u) << v.status();
  EXPECT_TRUE(cleared);
  EXPECT_EQ(v.pick_count(), 0);
}
