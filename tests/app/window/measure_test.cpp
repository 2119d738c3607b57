// The Measurements section in a real window: a tool takes the points that injected clicks pick,
// Enter finishes a polyline or polygon, Esc drops the one under way (and does not quit), each
// measurement is listed in the panel and exported; a volume arrives from its thread.
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// One step of a script: a left click at (x, y), a key, a call, or a wait until a condition.
struct Action {
  int x = -1, y = -1;
  SDL_Keycode key = 0;
  SDL_Scancode scancode = SDL_SCANCODE_UNKNOWN;
  std::function<void(pr::ViewerTesting&)> call;
  std::function<bool(pr::ViewerTesting&)> until;
};

Action click(int x, int y) {
  Action a;
  a.x = x;
  a.y = y;
  return a;
}
Action key(SDL_Keycode k, SDL_Scancode sc) {
  Action a;
  a.key = k;
  a.scancode = sc;
  return a;
}
Action call(std::function<void(pr::ViewerTesting&)> fn) {
  Action a;
  a.call = std::move(fn);
  return a;
}
Action until(std::function<bool(pr::ViewerTesting&)> fn) {
  Action a;
  a.until = std::move(fn);
  return a;
}

/// Runs the actions a few frames apart once the cloud is on screen (a click waits for its pick
/// to land), then quits. Returns how many ran.
size_t run_actions(pr::ViewerTesting& v, const std::vector<Action>& actions) {
  size_t step = 0;
  int start = -1;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 5000) vw.request_quit();
    if (start < 0) {
      if (!vw.cloud_busy() && vw.cloud_points() > 0 && frame > 3) start = frame;
      return;
    }
    if (step == actions.size()) {
      vw.request_quit();
      return;
    }
    const Action& a = actions[step];
    const int since = frame - start;
    SDL_Event e{};
    bool next = false;
    if (a.call) {
      a.call(vw);
      next = true;
    } else if (a.until) {
      next = a.until(vw);
    } else if (a.key) {
      if (since == 1 || since == 2) {
        e = key_event(a.key, a.scancode, since == 1);
        SDL_PushEvent(&e);
      }
      next = since >= 4;
    } else {
      if (since == 1) SDL_WarpMouseInWindow(vw.window(), a.x, a.y);
      if (since == 3 || since == 4) {
        e = mouse_button_event(SDL_BUTTON_LEFT, since == 3, a.x, a.y);
        SDL_PushEvent(&e);
      }
      next = since >= 6 && !vw.pick_pending();
    }
    if (next) {
      ++step;
      start = frame;
    }
  };
  v.run(&hooks);
  return step;
}

}  // namespace

TEST(Window, MeasureToolsTakeClickedPointsAndListThem) {
  REQUIRE_DISPLAY();
  const fs::path cfg = fresh_config("measure");
  pr::ViewerTesting v(scripted(0, 800, 500, 200'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<pr::PickResult> picked;
  size_t pending_after_esc = 99, listed_before_esc = 0;
  bool item_drawn = false;
  pr::ViewerTesting::PanelItem item;
  const fs::path out = cfg / "measurements.geojson";
  auto keep_pick = [&](pr::ViewerTesting& vw) { picked.push_back(vw.pick(vw.pick_count() - 1)); };
  const std::vector<Action> actions = {
      call([](pr::ViewerTesting& vw) { vw.set_measure_tool("distance"); }),
      click(600, 250),
      call(keep_pick),
      click(700, 330),
      call(keep_pick),
      click(640, 300),
      call(keep_pick),
      key(SDLK_RETURN, SDL_SCANCODE_RETURN),
      call([](pr::ViewerTesting& vw) { vw.set_measure_tool("area"); }),
      click(610, 260),
      call(keep_pick),
      click(690, 320),
      call(keep_pick),
      click(620, 320),
      call(keep_pick),
      key(SDLK_RETURN, SDL_SCANCODE_RETURN),
      // Esc drops the polygon under way; the window keeps running.
      click(650, 280),
      call([&](pr::ViewerTesting& vw) { listed_before_esc = vw.measurements().size(); }),
      key(SDLK_ESCAPE, SDL_SCANCODE_ESCAPE),
      call([&](pr::ViewerTesting& vw) {
        pending_after_esc = vw.measure_pending();
        item_drawn = vw.panel_item("measure.item.1", &item);  // starts recording
      }),
      call([](pr::ViewerTesting&) {}),  // a frame drawn while the panel records its items
      call([&](pr::ViewerTesting& vw) {
        item_drawn = vw.panel_item("measure.item.1", &item);
        vw.export_measurements(out.string());
      }),
      // A volume over the same triangle, computed on its own thread.
      call([](pr::ViewerTesting& vw) { vw.set_measure_tool("volume"); }),
      click(610, 260),
      click(690, 320),
      click(620, 320),
      key(SDLK_RETURN, SDL_SCANCODE_RETURN),
      until([](pr::ViewerTesting& vw) { return vw.measurements().size() == 3; }),
  };
  EXPECT_EQ(run_actions(v, actions), actions.size()) << v.status();
  const std::vector<pr::Measurement> ms = v.measurements();
  ASSERT_EQ(ms.size(), 3u) << v.status();
  ASSERT_EQ(picked.size(), 6u);
  for (const pr::PickResult& p : picked) ASSERT_TRUE(p.hit);
  // The distance: the polyline through the three points picked.
  EXPECT_EQ(ms[0].kind, pr::MeasureKind::kDistance);
  ASSERT_EQ(ms[0].points.size(), 3u);
  const double d = glm::distance(picked[0].world, picked[1].world) +
                   glm::distance(picked[1].world, picked[2].world);
  EXPECT_NEAR(ms[0].value("3d"), d, 1e-9 * d);
  // The area: the triangle of the next three.
  EXPECT_EQ(ms[1].kind, pr::MeasureKind::kArea);
  const glm::dvec3 a = picked[3].world, b = picked[4].world, c = picked[5].world;
  const double area = 0.5 * glm::length(glm::cross(b - a, c - a));
  EXPECT_NEAR(ms[1].value("3d"), area, 1e-9 * area);
  EXPECT_EQ(listed_before_esc, 2u);
  EXPECT_EQ(pending_after_esc, 0u);
  EXPECT_TRUE(item_drawn);  // listed in the panel
  // Exported: two features with the values.
  std::ifstream in(out);
  ASSERT_TRUE(in.good()) << v.status();
  const nlohmann::json doc = nlohmann::json::parse(in);
  ASSERT_EQ(doc["features"].size(), 2u);
  EXPECT_EQ(doc["features"][1]["properties"]["kind"], "area");
  EXPECT_DOUBLE_EQ(doc["features"][1]["properties"]["3d"].get<double>(), ms[1].value("3d"));
  // The volume: the same triangle's cells, its base the vertices' mean height.
  EXPECT_EQ(ms[2].kind, pr::MeasureKind::kVolume);
  EXPECT_GT(ms[2].value("cells"), 0.0);
  EXPECT_GT(ms[2].value("points"), 0.0);
  const pr::UpAxis up = v.camera().up_axis;
  const double base =
      (pr::up_component(a, up) + pr::up_component(b, up) + pr::up_component(c, up)) / 3.0;
  EXPECT_NEAR(ms[2].value("base"), base, 1e-9 * std::fabs(base) + 1e-9);
  EXPECT_NEAR(ms[2].value("polygon_area"), ms[1].value("horizontal"),
              1e-6 * ms[1].value("horizontal"));
}

// --measure-show: the viewer opens with the command line's measurements measured on the loaded
// cloud and listed (a box counts its points); a bad one is left out with a line in the status.
TEST(Window, CommandLineMeasurementsOpenInTheViewer) {
  REQUIRE_DISPLAY();
  fresh_config("measure_show");
  pr::Options o = scripted(0, 480, 320, 50'000);
  o.mode = "cpu";
  o.measure_show = true;
  pr::MeasureArg d;
  d.kind = pr::MeasureKind::kDistance;
  d.points = {{0, 0, 0}, {3, 4, 0}, {3, 4, 12}};
  pr::MeasureArg box;
  box.kind = pr::MeasureKind::kBox;
  box.points = {{0, 0, 0}, {1e5, 1e5, 1e5}};  // centre, size: around the scene
  pr::MeasureArg bad;
  bad.kind = pr::MeasureKind::kArea;
  bad.points = {{0, 0, 0}, {1, 0, 0}};  // two points: no polygon
  o.measures = {d, bad, box};
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  const int ran = run_steps(v, 2, [](int, pr::ViewerTesting&) {});
  ASSERT_EQ(ran, 2);
  const std::vector<pr::Measurement> m = v.measurements();
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].kind, pr::MeasureKind::kDistance);
  EXPECT_NEAR(m[0].value("3d"), 17.0, 1e-9);
  EXPECT_EQ(m[1].kind, pr::MeasureKind::kBox);
  EXPECT_EQ(m[1].value("inside"), double(v.cloud_points()));
  EXPECT_NE(v.status().find("--measure"), std::string::npos) << v.status();
}

// The Clip section's "through 3 picks": three clicked points set the section's plane (its
// normal across both edges from the first point), and the mode ends.
TEST(Window, SectionThroughThreePickedPoints) {
  REQUIRE_DISPLAY();
  fresh_config("section_picks");
  pr::Options o = scripted(0, 800, 500, 200'000);
  o.mode = "cpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<pr::PickResult> picked;
  auto keep_pick = [&](pr::ViewerTesting& vw) { picked.push_back(vw.pick(vw.pick_count() - 1)); };
  const std::vector<Action> actions = {
      call([](pr::ViewerTesting& vw) { vw.set_section_through_picks(true); }),
      click(600, 250),
      call(keep_pick),
      click(700, 330),
      call(keep_pick),
      click(640, 300),
      call(keep_pick),
  };
  ASSERT_EQ(run_actions(v, actions), actions.size());
  ASSERT_EQ(picked.size(), 3u);
  for (const pr::PickResult& p : picked) ASSERT_TRUE(p.hit);
  const pr::ClipSection s = v.clip().section;
  ASSERT_TRUE(s.enabled);
  const glm::dvec3 n = glm::normalize(s.normal);
  const glm::dvec3 a = picked[1].world - picked[0].world, b = picked[2].world - picked[0].world;
  EXPECT_NEAR(glm::dot(n, glm::normalize(a)), 0.0, 1e-9);
  EXPECT_NEAR(glm::dot(n, glm::normalize(b)), 0.0, 1e-9);
  EXPECT_NEAR(glm::dot(n, s.point - picked[0].world), 0.0, 1e-6 * glm::length(a));
}
