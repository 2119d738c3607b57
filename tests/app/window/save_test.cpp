// The Save section in a running window: the cloud on screen written as COPC in the background and
// read back, a suffix that picks no format, Cancel, and a streamed survey saved within a clip.
#include <algorithm>
#include <array>
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

namespace {

/// The X, Y, Z integers and world positions (X * scale + offset) of a LAS or LAZ file's records.
struct Records {
  std::vector<std::array<int32_t, 3>> xyz;
  std::vector<glm::dvec3> world;
};

Records read_records(const std::string& path) {
  Records r;
  std::vector<uint8_t> bytes;
  size_t rec = 0;
  std::string err;
  std::ifstream f(path, std::ios::binary);
  const std::vector<uint8_t> d((std::istreambuf_iterator<char>(f)),
                               std::istreambuf_iterator<char>());
  EXPECT_GE(d.size(), 375u) << path;
  if (d.size() < 375) return r;
  const uint8_t* h = d.data();
  if (path.substr(path.size() - 4) == ".las") {  // LAS 1.4: the 64-bit count
    rec = pr::io::get_le<uint16_t>(h + 105);
    const uint32_t at = pr::io::get_le<uint32_t>(h + 96);
    const uint64_t n = pr::io::get_le<uint64_t>(h + 247);
    bytes.assign(d.begin() + at, d.begin() + ptrdiff_t(at + n * rec));
  } else {
    EXPECT_TRUE(pr::decompress_laz(path, bytes, &rec, &err)) << err;
  }
  glm::dvec3 scale, offset;
  for (int a = 0; a < 3; ++a) {
    scale[a] = pr::io::get_le<double>(h + 131 + 8 * a);
    offset[a] = pr::io::get_le<double>(h + 155 + 8 * a);
  }
  for (size_t at = 0; rec && at + rec <= bytes.size(); at += rec) {
    std::array<int32_t, 3> q;
    glm::dvec3 w;
    for (int a = 0; a < 3; ++a) {
      q[size_t(a)] = pr::io::get_le<int32_t>(&bytes[at + 4 * size_t(a)]);
      w[a] = double(q[size_t(a)]) * scale[a] + offset[a];
    }
    r.xyz.push_back(q);
    r.world.push_back(w);
  }
  return r;
}

}  // namespace

// A streamed survey saves at full detail from its file, only what the clip shows: the nodes
// outside it are not read, and the file holds exactly the survey's records inside the box.
TEST(Window, SavesAStreamedSurveyWithinTheClip) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  const std::string copc = data_path("laz") + "/lone-star.copc.laz";
  const fs::path out = save_dir("savestream") / "lone-star-box.las";
  pr::ViewerTesting v(scripted_files({copc}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::string why = "not asked";
  bool started = false;
  pr::Clip clip;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (!started && vw.streaming() && vw.stream_stats().nodes_drawn > 0) {
      const pr::Bounds b = vw.cloud_bounds();
      pr::ClipBox box = pr::clip_box_around(b.min, b.max);
      box.size.x *= 0.1;
      box.size.y *= 0.1;
      vw.clip().boxes = {box};
      clip = vw.clip();
      why = vw.save_unavailable();
      started = vw.save_cloud(out.string());
    } else if (started && !vw.save_busy()) {
      vw.request_quit();
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_EQ(why, "");
  ASSERT_TRUE(started) << v.status();
  EXPECT_EQ(v.status().rfind("saved " + out.string(), 0), 0u) << v.status();
  EXPECT_NE(v.status().find("not read"), std::string::npos) << v.status();
  const Records in = read_records(copc), saved = read_records(out.string());
  const auto keep = pr::export_keep(clip, nullptr);
  std::vector<std::array<int32_t, 3>> want;
  for (size_t i = 0; i < in.world.size(); ++i)
    if (keep(in.world[i])) want.push_back(in.xyz[i]);
  std::vector<std::array<int32_t, 3>> got = saved.xyz;
  std::sort(want.begin(), want.end());
  std::sort(got.begin(), got.end());
  EXPECT_GT(want.size(), 1000u);
  EXPECT_LT(want.size(), in.xyz.size() / 10);
  EXPECT_TRUE(got == want) << got.size() << " points written, " << want.size() << " inside";
}
