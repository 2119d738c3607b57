// The Camera path section in a real window: clicks on its header and on "Add the view as a key"
// make keys of the view, Play moves the view along the path (two keys: the straight line between
// them) and stops at the last key; --camera-path loads the section's keys, and Render video
// writes PNG frames and an MP4 file offscreen while the window runs, its Cancel leaving nothing.
#include <algorithm>
#include <cmath>
#include <fstream>

#include "options.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

#ifdef PR_TEST_HAVE_FFMPEG
constexpr bool kWithFfmpeg = true;
#else
constexpr bool kWithFfmpeg = false;
#endif

/// The distance of `p` from the line through a and b, and where along it p lies (0 at a, 1 at b).
void on_line(const glm::dvec3& p, const glm::dvec3& a, const glm::dvec3& b, double* off,
             double* along) {
  const glm::dvec3 d = b - a;
  *along = glm::dot(p - a, d) / glm::dot(d, d);
  *off = glm::length(p - (a + *along * d));
}

std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST(Window, CameraPathSectionAddsKeysAndPlayMovesTheView) {
  REQUIRE_DISPLAY();
  fresh_config("path");
  pr::Options o = scripted(0, 1100, 640, 100'000);
  o.scene = "terrain";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  PanelClick header("path.header"), add1("path.add"), add2("path.add"), play("path.play");
  pr::Camera c0, c1;
  std::vector<glm::dvec3> seen;
  int stage = 0, playing_frames = 0;
  bool stopped = false;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 4000) stage = 99;
    if (stage < 99 && (t.cloud_busy() || t.cloud_points() == 0 || frame < 5)) return;
    PanelClick* click[] = {&header, &add1, nullptr, &add2, nullptr, &play};
    if (stage < 6 && click[stage]) {
      if (click[stage]->failed()) stage = 99;
      if (click[stage]->step(t)) ++stage;
      return;
    }
    switch (stage) {
      case 2:  // the view moved and turned for the second key
        c0 = t.camera();
        t.camera().position += glm::dvec3(60.0, 10.0, 40.0);
        t.camera().turn(0.4, -0.1);
        c1 = t.camera();
        ++stage;
        return;
      case 4:  // the view elsewhere: playing must bring it onto the path
        t.camera().position = glm::dvec3(0.0, 600.0, 0.0);
        ++stage;
        return;
      case 6:  // playing (from the frame after the click's): the view's positions, until it stops
        if (++playing_frames > 1) seen.push_back(t.camera().position);
        if (!t.path_playing()) {
          stopped = true;
          stage = 99;
        }
        return;
      default:
        t.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_TRUE(stopped) << "header " << header.failed() << ", add " << add1.failed() << "/"
                       << add2.failed() << ", play " << play.failed();
  const pr::CameraPath& path = v.camera_path();
  ASSERT_EQ(path.keys.size(), 2u);
  EXPECT_EQ(path.keys[0].pose.position, c0.position);
  EXPECT_EQ(path.keys[1].pose.position, c1.position);
  EXPECT_NEAR(path.keys[1].pose.yaw_deg, c1.yaw * 180.0 / 3.14159265358979323846, 1e-9);
  EXPECT_DOUBLE_EQ(path.keys[1].time, 2.0);
  // Two keys: the straight line from the first to the second, onward only, ending at the second.
  ASSERT_GE(seen.size(), 3u);
  double last = -1e-9, off = 0.0, along = 0.0;
  int inside = 0;
  for (const glm::dvec3& p : seen) {
    on_line(p, c0.position, c1.position, &off, &along);
    EXPECT_LT(off, 1e-6 * glm::length(c1.position - c0.position));
    EXPECT_GE(along, last);
    EXPECT_LE(along, 1.0 + 1e-12);
    inside += along > 0.01 && along < 0.99;
    last = along;
  }
  EXPECT_GE(inside, 2) << "the view passed between the keys";
  EXPECT_NEAR(glm::length(v.camera().position - c1.position), 0.0, 1e-9);
  EXPECT_NEAR(std::remainder(v.camera().yaw - c1.yaw, 2.0 * 3.14159265358979323846), 0.0, 1e-9);
}

TEST(Window, CameraPathRendersVideosOffscreenAndCancelLeavesNothing) {
  REQUIRE_DISPLAY();
  const fs::path cfg = fresh_config("path_video");
  const fs::path out = cfg / "videos";
  fs::create_directories(out);
  pr::Options parsed;
  std::string err;
  ASSERT_EQ(pr::parse_arguments(
                {"--camera-path", "-100,150,-640,10,-14;100,150,-640,-10,-14", "--duration", "1"},
                parsed, &err),
            0)
      << err;
  pr::Options o = scripted(0, 800, 500, 100'000);
  o.scene = "terrain";
  o.camera_path = parsed.camera_path;
  pr::ViewerTesting v(o);
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_EQ(v.camera_path().keys.size(), 2u);  // --camera-path in the section
  int stage = 0, cancel_at = -1;
  bool started[3] = {false, false, false};
  std::string status[2];
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 6000) stage = 99;
    if (stage < 99 && (t.cloud_busy() || t.cloud_points() == 0 || frame < 5)) return;
    switch (stage) {
      case 0:  // PNG frames into a folder: 10 frames of 64x48
        started[0] = t.render_video((out / "frames/").string(), 64, 48, 10);
        ++stage;
        return;
      case 1:
      case 3:
        if (t.video_busy()) return;
        status[stage / 2] = t.status();
        if (stage == 1)  // an MP4 where the build has FFmpeg; PNG frames named NAME.png else
          started[1] =
              t.render_video((out / (kWithFfmpeg ? "v.mp4" : "v.png")).string(), 65, 49, 10);
        ++stage;
        return;
      case 2:
        ++stage;
        return;
      case 4:  // a long one, cancelled a few frames in
        started[2] = t.render_video((out / (kWithFfmpeg ? "c.mp4" : "c/")).string(), 320, 240, 120);
        ++stage;
        return;
      case 5:
        if (t.video_next_frame() < 3) return;
        cancel_at = t.video_next_frame();
        t.cancel_video();
        stage = 99;
        return;
      default:
        t.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_TRUE(started[0] && started[1] && started[2]) << v.status();
  EXPECT_NE(status[0].find("wrote"), std::string::npos) << status[0];
  EXPECT_NE(status[1].find("wrote"), std::string::npos) << status[1];
  std::vector<std::string> want;
  for (int k = 0; k < 10; ++k) {
    char name[32];
    std::snprintf(name, sizeof name, "frame_%05d.png", k);
    want.push_back(name);
  }
  EXPECT_EQ(listing(out / "frames"), want);
  if (kWithFfmpeg) {  // the MP4: an ISO media file (its first box "ftyp")
    std::ifstream f(out / "v.mp4", std::ios::binary);
    char head[8] = {};
    f.read(head, 8);
    EXPECT_EQ(std::string(head + 4, 4), "ftyp");
  }
  EXPECT_GT(cancel_at, 0);
  EXPECT_LT(cancel_at, 120);
  std::vector<std::string> left = listing(out);
  left.resize(std::min<size_t>(left.size(), 2));  // PNG frames: v_00000.png ... after "frames"
  EXPECT_EQ(left, (std::vector<std::string>{"frames", kWithFfmpeg ? "v.mp4" : "v_00000.png"}));
  EXPECT_EQ(listing(out).size(), kWithFfmpeg ? 2u : 11u);
  EXPECT_FALSE(v.video_busy());
}

// A streamed survey's video: each frame waits until the survey has read the view of that frame's
// camera (a path along the file, looking down at it), so that every frame shows the points.
TEST(Window, CameraPathVideoOfAStreamedSurveyDrawsEveryFrame) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  const fs::path cfg = fresh_config("path_survey");
  const fs::path out = cfg / "survey";
  pr::Options o = scripted_files({data_path("laz") + "/lone-star.copc.laz"});
  o.point_budget = 200'000;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  bool started = false, streamed = false;
  int stage = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 6000) stage = 99;
    switch (stage) {
      case 0: {  // the survey on screen: a path over it, from one side to the other
        if (!t.streaming() || t.stream_opening() || !t.stream_stats().converged) return;
        streamed = true;
        const pr::Bounds b = t.cloud_bounds();
        const glm::dvec3 c = b.center(), s = b.size();
        const double z = b.max.z + 1.5 * std::max(s.x, s.y);
        pr::CameraPose a, e;
        a.position = {b.min.x, c.y - s.y, z};
        e.position = {b.max.x, c.y - s.y, z};
        a.pitch_deg = e.pitch_deg = -40.0;
        t.camera_path() = pr::path_at_equal_times({a, e}, 1.0, false);
        started = t.render_video((out / "").string(), 64, 40, 6);
        stage = 1;
        return;
      }
      case 1:
        if (!t.video_busy()) stage = 99;
        return;
      default:
        t.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_TRUE(streamed && started) << v.status();
  EXPECT_NE(v.status().find("wrote"), std::string::npos) << v.status();
  const std::vector<std::string> names = listing(out);
  ASSERT_EQ(names.size(), 6u);
  for (const std::string& n : names) {
    pr::Image img;
    ASSERT_TRUE(pr::read_png((out / n).string(), img, &err)) << err;
    size_t drawn = 0;
    for (uint32_t px : img.rgba) drawn += px != kBackground;
    EXPECT_GT(drawn, img.pixel_count() / 20) << n;
  }
}
