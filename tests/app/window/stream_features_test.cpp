// The viewer's features on a streamed survey (a COPC file with classes and extra bytes): the class
// table lists the classes of the nodes that arrived and unticking one hides its points; the
// file's named fields are color modes that change the image; a click picks a point of the file
// (its coordinates and class) and two clicks measure the distance between them.
#include <unistd.h>

#include <algorithm>
#include <map>

#include "engine/io/io.h"
#include "extra_bytes_copc.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// Pixels of `px` that are not the background.
size_t lit(const std::vector<uint32_t>& px) {
  return size_t(std::count_if(px.begin(), px.end(), [](uint32_t c) { return c != kBackground; }));
}

/// The point of `cloud` nearest `p` (world coordinates) and its distance.
std::pair<size_t, double> nearest_point(const pr::PointCloud& cloud, const glm::dvec3& p) {
  std::pair<size_t, double> best{0, 1e300};
  for (size_t i = 0; i < cloud.size(); ++i) {
    const pr::Float3& q = cloud.positions[i];
    const double d = glm::length(cloud.origin + glm::dvec3(q.x, q.y, q.z) - p);
    if (d < best.second) best = {i, d};
  }
  return best;
}

}  // namespace

TEST(Window, ClassFilterFieldsPicksAndMeasuresWorkWhileStreaming) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_feat_" + std::to_string(getpid()));
  fs::create_directories(dir);
  std::string copc, err;
  ASSERT_TRUE(extra_bytes_copc(dir, false, &copc, &err)) << err;
  pr::PointCloud whole;
  ASSERT_TRUE(pr::load_point_cloud(copc, whole, nullptr, &err)) << err;
  std::map<int, uint64_t> classes_in_file;
  for (const uint8_t c : whole.classification) ++classes_in_file[c];
  ASSERT_GE(classes_in_file.size(), 2u);
  const int hidden_class = classes_in_file.rbegin()->first;
  // Two points of the file to click on: the first one's and the one furthest from it.
  const glm::dvec3 a =
      whole.origin + glm::dvec3(whole.positions[0].x, whole.positions[0].y, whole.positions[0].z);
  glm::dvec3 b = a;
  for (const pr::Float3& q : whole.positions) {
    const glm::dvec3 w = whole.origin + glm::dvec3(q.x, q.y, q.z);
    if (glm::length(w - a) > glm::length(b - a)) b = w;
  }

  fresh_config("stream_features");
  pr::Options o = scripted_files({copc});
  o.point_budget = 1'000'000;
  o.sse = 0.0;
  o.point_size = 3;
  pr::ViewerTesting v(o);
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<std::string> modes;
  std::vector<std::pair<int, uint64_t>> class_list;
  std::vector<uint32_t> img_rgb, img_class, img_hidden, img_field;
  int w = 0, h = 0;
  std::vector<pr::PickResult> picks;
  std::vector<pr::Measurement> measured;
  int phase = 0, since = 0;
  float cx = 0, cy = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000) vw.request_quit();
    ++since;
    auto next = [&] {
      ++phase;
      since = 0;
    };
    const bool settled = since > 3 && !vw.color_busy() && vw.stream_stats().converged;
    switch (phase) {
      case 0:  // the survey converged in the file's colors
        if (!vw.streaming() || !settled) return;
        modes = vw.color_modes();
        vw.read_image(img_rgb, w, h);
        vw.set_color("classification");
        return next();
      case 1:
        if (!settled || vw.color_mode() != "classification") return;
        class_list = vw.class_list();
        vw.read_image(img_class, w, h);
        vw.set_class_visible(hidden_class, false);
        return next();
      case 2:
        if (!settled) return;
        vw.read_image(img_hidden, w, h);
        vw.set_class_visible(hidden_class, true);
        if (!vw.set_color("Time")) vw.request_quit();
        return next();
      case 3:
        if (!settled || vw.color_mode() != "Time") return;
        vw.read_image(img_field, w, h);
        vw.set_measure_tool("distance");
        return next();
      case 4:
      case 6: {  // a click on point a, then on point b
        const glm::dvec3& p = phase == 4 ? a : b;
        if (since == 1 && !vw.window_point(p, &cx, &cy)) vw.request_quit();
        if (since == 1) SDL_WarpMouseInWindow(vw.window(), int(cx), int(cy));
        if (since == 3 || since == 4) {
          SDL_Event e = mouse_button_event(SDL_BUTTON_LEFT, since == 3, int(cx), int(cy));
          SDL_PushEvent(&e);
        }
        if (since >= 6 && !vw.pick_pending()) next();
        return;
      }
      case 5:
      case 7:
        picks.push_back(vw.pick(vw.pick_count() - 1));
        return next();
      case 8:  // Enter ends the distance
        if (since == 1 || since == 2) {
          SDL_Event e = key_event(SDLK_RETURN, SDL_SCANCODE_RETURN, since == 1);
          SDL_PushEvent(&e);
        }
        if (since < 5) return;
        measured = vw.measurements();
        vw.request_quit();
        return next();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  fs::remove_all(dir);
  ASSERT_GE(phase, 4) << v.status();
  // The mode combo offers the file's fields.
  EXPECT_NE(std::find(modes.begin(), modes.end(), "Time"), modes.end());
  EXPECT_NE(std::find(modes.begin(), modes.end(), "Intensity"), modes.end());
  // The class table lists the file's classes with their points (every node arrived).
  const std::vector<std::pair<int, uint64_t>> want(classes_in_file.begin(), classes_in_file.end());
  EXPECT_EQ(class_list, want);
  // Hiding a class takes its points off the image; a field's colors differ from the classes'.
  EXPECT_LT(lit(img_hidden), lit(img_class));
  EXPECT_GT(lit(img_hidden), 0u);
  EXPECT_GT(pixels_differing(img_field, img_class), 100u);
  EXPECT_GT(pixels_differing(img_class, img_rgb), 100u);
  // The clicks picked points of the file, and the distance is theirs.
  ASSERT_EQ(picks.size(), 2u) << v.status();
  for (const pr::PickResult& p : picks) {
    ASSERT_TRUE(p.hit);
    const auto [index, distance] = nearest_point(whole, p.world);
    EXPECT_LT(distance, 1e-3);
    EXPECT_TRUE(p.has_class);
    EXPECT_EQ(p.classification, whole.classification[index]);
  }
  // The first click is on point a (the second one's point may lie behind another).
  EXPECT_LT(glm::length(picks[0].world - a), 1e-3);
  EXPECT_GT(glm::length(picks[1].world - picks[0].world), 0.0);
  ASSERT_EQ(measured.size(), 1u);
  EXPECT_NEAR(measured[0].value("3d"), glm::length(picks[1].world - picks[0].world), 1e-6);
}
