// The Save section in a running window: the cloud on screen written as COPC in the background and
// read back, a suffix that picks no format, Cancel, and no saving while a survey streams.
#include <algorithm>
#include <vector>

#include "engine/io/io.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

fs::path save_dir(const std::string& name) {
  const fs::path d = fresh_config(name) / "saved";
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST(Window, SavesTheCloudOnScreenAsCopcAndItReadsBack) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const std::string las = data_path("las") + "/autzen_trim.las";
  const fs::path out = save_dir("save") / "autzen.copc.laz";
  pr::ViewerTesting v(scripted_files({las}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  bool bad_suffix_refused = false, started = false, recolored_while_saving = false;
  std::string bad_suffix_status, saved_status;
  int phase = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (phase == 0 && !vw.cloud_busy() && vw.cloud_points() > 0) {
      vw.set_color("elevation");  // the file's colors wait aside: the save writes those
      phase = 1;
    } else if (phase == 1 && !vw.color_busy() && vw.color_mode() == "elevation") {
      bad_suffix_refused = !vw.save_cloud((out.parent_path() / "autzen.txt").string());
      bad_suffix_status = vw.status();
      started = vw.save_cloud(out.string());
      // Asked for during the save, the colors change once it has ended.
      vw.set_color("intensity");
      phase = 2;
    } else if (phase == 2) {
      if (vw.save_busy()) {
        recolored_while_saving |= vw.color_mode() != "elevation";
      } else {
        if (saved_status.empty()) saved_status = vw.status();
        if (vw.color_mode() == "intensity") vw.request_quit();
      }
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_TRUE(bad_suffix_refused);
  EXPECT_NE(bad_suffix_status.find(".copc.laz"), std::string::npos) << bad_suffix_status;
  ASSERT_TRUE(started) << v.status();
  EXPECT_EQ(saved_status.rfind("saved " + out.string() + ": 110000 points, ", 0), 0u)
      << saved_status;
  EXPECT_FALSE(recolored_while_saving);
  EXPECT_EQ(v.color_mode(), "intensity");
  EXPECT_FALSE(fs::exists(out.parent_path() / "autzen.txt"));

  // Read back whole: the points, their bounds and colors of the file the window showed.
  pr::PointCloud saved, original;
  pr::FileInfo info;
  ASSERT_TRUE(pr::load_point_cloud(out.string(), saved, &info, &err)) << err;
  ASSERT_TRUE(pr::load_point_cloud(las, original, nullptr, &err)) << err;
  EXPECT_TRUE(info.copc.present);
  EXPECT_EQ(info.points, 110000u);
  ASSERT_EQ(saved.size(), original.size());
  const pr::Bounds a = saved.world_bounds(), b = original.world_bounds();
  for (int k = 0; k < 3; ++k) {
    EXPECT_NEAR(a.min[k], b.min[k], 0.011) << k;
    EXPECT_NEAR(a.max[k], b.max[k], 0.011) << k;
  }
  // The file's colors (not elevation's), in the octree's order.
  std::vector<uint32_t> colors_saved(saved.colors.begin(), saved.colors.end()),
      colors_original(original.colors.begin(), original.colors.end());
  std::sort(colors_saved.begin(), colors_saved.end());
  std::sort(colors_original.begin(), colors_original.end());
  EXPECT_TRUE(colors_saved == colors_original);
  EXPECT_TRUE(saved.has_intensity());
  EXPECT_EQ(saved.classification.size(), saved.size());
}

TEST(Window, CancelLeavesNoFileAndTheCloudStays) {
  REQUIRE_DISPLAY();
  const fs::path out = save_dir("savecancel") / "terrain.copc.laz";
  pr::ViewerTesting v(scripted(0, 480, 320, 500'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  bool started = false;
  std::string busy_why;
  int phase = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (phase == 0 && !vw.cloud_busy() && vw.cloud_points() > 0) {
      started = vw.save_cloud(out.string());
      busy_why = vw.save_unavailable();  // a second save waits for this one
      vw.cancel_save();
      phase = 1;
    } else if (phase == 1 && !vw.save_busy()) {
      vw.request_quit();
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_TRUE(started) << v.status();
  EXPECT_NE(busy_why.find("save"), std::string::npos) << busy_why;
  EXPECT_EQ(v.status(), "save cancelled: " + out.string() + " not written");
  EXPECT_TRUE(fs::is_empty(out.parent_path()));
  EXPECT_EQ(v.cloud_points(), 500'000u);
}

TEST(Window, NoSavingWhileASurveyStreams) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  const fs::path out = save_dir("savestream") / "lone-star-copy.copc.laz";
  pr::ViewerTesting v(scripted_files({data_path("laz") + "/lone-star.copc.laz"}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::string why;
  bool refused = false;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (vw.streaming() && vw.stream_stats().nodes_drawn > 0) {
      why = vw.save_unavailable();
      refused = !vw.save_cloud(out.string());
      vw.request_quit();
    }
    if (frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_TRUE(refused);
  EXPECT_NE(why.find("stream"), std::string::npos) << why;
  EXPECT_NE(v.status().find("--convert"), std::string::npos) << v.status();
  EXPECT_FALSE(fs::exists(out));
}
