// Camera paths and videos in the app: --camera-path, --duration, --fps and --video through the
// real parser; the output names (video_writer.h); the writer's PNG frames and MP4 file moved into
// place only when complete, and nothing left behind by a cancel (the forced cancel of a video
// part way, as Ctrl-C and the viewer's Cancel do), a failing frame, or a target that cannot be
// replaced. tests/app/video_check.py checks the program's videos with ffprobe.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "options.h"
#include "path_video.h"
#include "video_writer.h"

namespace fs = std::filesystem;

namespace {

#ifdef PR_TEST_HAVE_FFMPEG
constexpr bool kWithFfmpeg = true;
#else
constexpr bool kWithFfmpeg = false;
#endif

std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

int parse(const std::vector<std::string>& args, pr::Options& o, std::string* error = nullptr) {
  o = pr::Options{};
  std::string e;
  const int rc = pr::parse_arguments(args, o, &e);
  if (error) *error = e;
  return rc;
}

std::string usage_error(const std::string& args) {
  pr::Options o;
  std::string e;
  EXPECT_EQ(parse(words(args), o, &e), 2) << args;
  EXPECT_FALSE(e.empty()) << args;
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  return e;
}

/// A fresh, empty folder for one test.
fs::path fresh_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("pr_video_test_" + name);
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

/// Every name in `dir`, hidden ones too.
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) out.push_back(e.path().filename().string());
  std::sort(out.begin(), out.end());
  return out;
}

/// A w x h frame, its pixels a gradient shifted by `k`.
pr::Image frame(int w, int h, int k) {
  pr::Image img;
  img.resize(w, h, false);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      img.rgba[size_t(y * w + x)] = pr::rgba(uint8_t(x * 20 + k), uint8_t(y * 30), uint8_t(k * 7));
  return img;
}

/// A request for a 2-key path over 1 s.
pr::VideoRequest request(const std::string& out, int w, int h, int fps) {
  pr::VideoRequest r;
  r.out = out;
  r.width = w;
  r.height = h;
  r.fps = fps;
  pr::CameraPose a, b;
  b.position = {1.0, 0.0, 0.0};
  b.yaw_deg = 30.0;
  r.path = pr::path_at_equal_times({a, b}, 1.0, false);
  return r;
}

/// A drawing that fills the frame with its camera's x position (and fails at frame `fail_at`).
pr::DrawFrame gradient_draw(int fail_at = -1) {
  auto count = std::make_shared<int>(0);
  return [count, fail_at](const pr::Camera& c, const pr::RenderSettings& rs, pr::Image& img,
                          std::string* error) {
    if ((*count)++ == fail_at) {
      *error = "the renderer broke";
      return pr::FrameDraw::kFailed;
    }
    img = frame(rs.width, rs.height, int(c.position.x * 100.0));
    return pr::FrameDraw::kDrawn;
  };
}

}  // namespace

TEST(VideoOptions, ThePathsKeysAtEqualTimesOverTheDuration) {
  pr::Options o;
  std::string e;
  ASSERT_EQ(parse({"--headless", "--camera-path", "-5,0,1,0,0;10,-2,0,90,-10;20,5,0,180,0",
                   "--duration", "4", "--video", "out.png", "--fps", "60"},
                  o, &e),
            0)
      << e;
  ASSERT_EQ(o.camera_path.keys.size(), 3u);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[0].time, 0.0);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].time, 2.0);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[2].time, 4.0);
  EXPECT_EQ(o.camera_path.keys[0].pose.position, glm::dvec3(-5, 0, 1));
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].pose.yaw_deg, 90.0);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].pose.pitch_deg, -10.0);
  EXPECT_EQ(o.video, "out.png");
  EXPECT_EQ(o.fps, 60);
  // Without --duration: 10 s. The viewer takes a path without --video.
  ASSERT_EQ(parse(words("--camera-path 0,0,0,0,0;1,1,1,0,0 --fps 24"), o, &e), 0) << e;
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].time, 10.0);
  ASSERT_EQ(parse(words("--headless --camera-path 0,0,0,0,0;1,1,1,0,0 --video frames/"), o, &e), 0)
      << e;
}

TEST(VideoOptions, BadValuesAndCombinationsGetOneLine) {
  EXPECT_NE(usage_error("--camera-path 0,0,0,0").find("X,Y,Z,YAW,PITCH"), std::string::npos);
  EXPECT_NE(usage_error("--camera-path 0,0,0,0,0").find("at least 2 keys"), std::string::npos);
  EXPECT_NE(usage_error("--camera-path 0,0,0,0,0;1,1,1,0,95").find("key 2: pitch '95'"),
            std::string::npos);
  EXPECT_NE(usage_error("--camera-path 0,0,0,0,0;1,1,x,0,0").find("'1,1,x,0,0'"),
            std::string::npos);
  const std::string path = "--camera-path 0,0,0,0,0;1,1,1,0,0 ";
  EXPECT_NE(usage_error(path + "--duration 0").find("--duration"), std::string::npos);
  EXPECT_NE(usage_error(path + "--duration -1").find("--duration"), std::string::npos);
  EXPECT_NE(usage_error(path + "--fps 0").find("--fps"), std::string::npos);
  EXPECT_NE(usage_error(path + "--fps 121").find("1 to 120"), std::string::npos);
  EXPECT_NE(usage_error(path + "--fps 2.5").find("--fps"), std::string::npos);
  EXPECT_NE(usage_error(path + "--headless --video out.avi").find("neither .mp4 nor PNG"),
            std::string::npos);
  EXPECT_NE(usage_error(path + "--headless --video f%x.png").find("one %d"), std::string::npos);
  EXPECT_NE(usage_error("--headless --video frames/").find("needs --camera-path"),
            std::string::npos);
  EXPECT_NE(usage_error("--duration 3").find("goes with --camera-path"), std::string::npos);
  EXPECT_NE(usage_error(path + "--headless").find("goes with --video"), std::string::npos);
  EXPECT_NE(usage_error(path + "--camera 1,2,3,4,5").find("--camera does not go"),
            std::string::npos);
  EXPECT_NE(usage_error(path + "--view top").find("--view does not go"), std::string::npos);
  EXPECT_NE(usage_error(path + "--headless --video f/ --frames 3").find("--frames"),
            std::string::npos);
  EXPECT_NE(usage_error(path + "--headless --video f/ --screenshot a.png").find("--screenshot"),
            std::string::npos);
}

TEST(VideoOptions, Mp4ExactlyWhenBuiltWithFfmpeg) {
  std::string why;
  EXPECT_EQ(pr::mp4_available(&why), kWithFfmpeg) << why;
  pr::Options o;
  std::string e;
  const int rc =
      parse(words("--headless --camera-path 0,0,0,0,0;1,1,1,0,0 --video out.mp4"), o, &e);
  if (kWithFfmpeg) {
    EXPECT_EQ(rc, 0) << e;
    EXPECT_EQ(o.video, "out.mp4");
  } else {
    EXPECT_EQ(rc, 2);
    EXPECT_NE(e.find("built without FFmpeg"), std::string::npos) << e;
    EXPECT_NE(e.find("PNG frames"), std::string::npos) << e;
  }
}

TEST(VideoNames, FormatsAndPatterns) {
  const fs::path d = fresh_dir("names");
  EXPECT_EQ(pr::video_format("a.mp4"), pr::VideoFormat::kMp4);
  EXPECT_EQ(pr::video_format("A.MP4"), pr::VideoFormat::kMp4);
  EXPECT_EQ(pr::video_format("out/"), pr::VideoFormat::kPng);
  EXPECT_EQ(pr::video_format(d.string()), pr::VideoFormat::kPng);  // a folder that exists
  EXPECT_EQ(pr::video_format("f_%05d.png"), pr::VideoFormat::kPng);
  EXPECT_EQ(pr::video_format("shot.PNG"), pr::VideoFormat::kPng);
  EXPECT_EQ(pr::video_format("out.avi"), pr::VideoFormat::kNone);
  std::string p, e;
  ASSERT_TRUE(pr::png_pattern("out/", &p, &e)) << e;
  EXPECT_EQ(p, "out/frame_%05d.png");
  ASSERT_TRUE(pr::png_pattern("dir/shot.png", &p, &e)) << e;
  EXPECT_EQ(p, "dir/shot_%05d.png");
  ASSERT_TRUE(pr::png_pattern("f%d.png", &p, &e)) << e;
  EXPECT_EQ(p, "f%d.png");
  ASSERT_TRUE(pr::png_pattern("f_%04d.png", &p, &e)) << e;
  EXPECT_FALSE(pr::png_pattern("f_%d_%d.png", &p, &e));
  EXPECT_FALSE(pr::png_pattern("f_%s.png", &p, &e));
  EXPECT_FALSE(pr::png_pattern("a%d/f.png", &p, &e));
  int w = 0, h = 0;
  pr::video_size(pr::VideoFormat::kMp4, 1279, 721, &w, &h);
  EXPECT_EQ(w, 1278);
  EXPECT_EQ(h, 720);
  pr::video_size(pr::VideoFormat::kMp4, 1, 1, &w, &h);
  EXPECT_EQ(w, 2);
  EXPECT_EQ(h, 2);
  pr::video_size(pr::VideoFormat::kPng, 1279, 721, &w, &h);
  EXPECT_EQ(w, 1279);
  EXPECT_EQ(h, 721);
}

TEST(VideoWriter, PngFramesAppearOnlyWhenFinished) {
  const fs::path d = fresh_dir("png");
  pr::VideoWriter vw;
  std::string e;
  ASSERT_TRUE(vw.open((d / "f_%03d.png").string(), 5, 3, 10, &e)) << e;
  for (int k = 0; k < 4; ++k) {
    pr::Image img = frame(5, 3, k);
    ASSERT_TRUE(vw.write(img, &e)) << e;
  }
  // Only the hidden folder so far.
  std::vector<std::string> names = listing(d);
  ASSERT_EQ(names.size(), 1u);
  EXPECT_EQ(names[0].front(), '.');
  ASSERT_TRUE(vw.finish(&e)) << e;
  EXPECT_EQ(listing(d),
            (std::vector<std::string>{"f_000.png", "f_001.png", "f_002.png", "f_003.png"}));
  pr::Image back;
  ASSERT_TRUE(pr::read_png((d / "f_002.png").string(), back, &e)) << e;
  EXPECT_EQ(back.rgba, frame(5, 3, 2).rgba);
}

TEST(VideoWriter, AFolderNamedForFramesIsMadeAndRemovedOnCancel) {
  const fs::path d = fresh_dir("folder");
  pr::VideoWriter vw;
  std::string e;
  ASSERT_TRUE(vw.open((d / "made/").string(), 4, 4, 10, &e)) << e;
  pr::Image img = frame(4, 4, 0);
  ASSERT_TRUE(vw.write(img, &e)) << e;
  vw.cancel();
  EXPECT_TRUE(listing(d).empty());
  ASSERT_TRUE(vw.open((d / "made/").string(), 4, 4, 10, &e)) << e;
  img = frame(4, 4, 1);
  ASSERT_TRUE(vw.write(img, &e)) << e;
  ASSERT_TRUE(vw.finish(&e)) << e;
  EXPECT_EQ(listing(d / "made"), std::vector<std::string>{"frame_00000.png"});
}

TEST(VideoWriter, BadTargetsAndFramesAreNamed) {
  const fs::path d = fresh_dir("bad");
  pr::VideoWriter vw;
  std::string e;
  EXPECT_FALSE(vw.open((d / "missing" / "a.mp4").string(), 4, 4, 10, &e));
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  EXPECT_FALSE(vw.open((d / "missing" / "f_%d.png").string(), 4, 4, 10, &e));
  EXPECT_NE(e.find("does not exist"), std::string::npos) << e;
  ASSERT_TRUE(vw.open((d / "f.png").string(), 4, 4, 10, &e)) << e;
  pr::Image wrong = frame(5, 4, 0);
  EXPECT_FALSE(vw.write(wrong, &e));
  EXPECT_NE(e.find("5x4"), std::string::npos) << e;
  vw.cancel();
  EXPECT_TRUE(listing(d).empty());
}

TEST(PathVideo, ACancelPartWayLeavesNothing) {
  std::vector<std::string> names = {"frames/", "v.png"};
  if (kWithFfmpeg) names.push_back("v.mp4");
  for (const std::string& name : names) {
    const fs::path d = fresh_dir("cancel");
    pr::PathVideo v;
    std::string e;
    ASSERT_TRUE(v.start(request((d / name).string(), 32, 18, 20), &e)) << e;
    EXPECT_EQ(v.frames(), 20);
    const pr::DrawFrame draw = gradient_draw();
    for (int k = 0; k < 7; ++k) ASSERT_TRUE(v.step(draw, &e)) << e;
    EXPECT_EQ(v.next(), 7);
    v.cancel();
    EXPECT_TRUE(listing(d).empty()) << name << ": " << listing(d).front();
  }
}

TEST(PathVideo, AFailingFrameLeavesNothing) {
  const fs::path d = fresh_dir("fail");
  pr::PathVideo v;
  std::string e;
  ASSERT_TRUE(v.start(request((d / "v.png").string(), 8, 8, 10), &e)) << e;
  const pr::DrawFrame draw = gradient_draw(3);
  bool ok = true;
  while (ok && !v.done()) ok = v.step(draw, &e);
  EXPECT_FALSE(ok);
  EXPECT_EQ(e, "frame 4: the renderer broke");
  v.cancel();
  EXPECT_TRUE(listing(d).empty());
}

#ifdef PR_TEST_HAVE_FFMPEG  // the PNG frames' case is the next test
TEST(PathVideo, AnOutputThatCannotBeReplacedLeavesNothing) {
  const fs::path d = fresh_dir("replace");
  fs::create_directory(d / "v.mp4");  // a folder where the video should go
  pr::PathVideo v;
  std::string e;
  ASSERT_TRUE(v.start(request((d / "v.mp4").string(), 16, 16, 10), &e)) << e;
  const pr::DrawFrame draw = gradient_draw();
  while (!v.done()) ASSERT_TRUE(v.step(draw, &e)) << e;
  EXPECT_FALSE(v.finish(&e));
  EXPECT_NE(e.find("into place"), std::string::npos) << e;
  EXPECT_NE(e.find("not written"), std::string::npos) << e;
  EXPECT_EQ(listing(d), std::vector<std::string>{"v.mp4"});
  EXPECT_TRUE(fs::is_directory(d / "v.mp4") && fs::is_empty(d / "v.mp4"));
}

#endif

TEST(PathVideo, PngFramesAreAllOrNothing) {
  // A folder where frame 3 should go: frames 0 - 2 moved into place are taken back.
  const fs::path d = fresh_dir("png_all");
  fs::create_directory(d / "f_3.png");
  pr::PathVideo v;
  std::string e;
  ASSERT_TRUE(v.start(request((d / "f_%d.png").string(), 8, 8, 10), &e)) << e;
  const pr::DrawFrame draw = gradient_draw();
  while (!v.done()) ASSERT_TRUE(v.step(draw, &e)) << e;
  EXPECT_FALSE(v.finish(&e));
  EXPECT_NE(e.find("frame f_3.png"), std::string::npos) << e;
  EXPECT_EQ(listing(d), std::vector<std::string>{"f_3.png"});
}

TEST(PathVideo, FramesRunFromTheFirstKeyToTheLastOrAroundALoop) {
  pr::VideoRequest r = request("unused.mp4", 8, 8, 10);
  pr::CameraPathPlayer open(r.path);
  EXPECT_EQ(pr::video_frame_count(open.duration(), 10), 10);
  EXPECT_DOUBLE_EQ(pr::video_frame_time(open, 0, 10), 0.0);
  EXPECT_DOUBLE_EQ(pr::video_frame_time(open, 9, 10), 1.0);  // the last key
  r.path.loop = true;  // 2 keys: a round is 2 s, the last frame a step before the first again
  pr::CameraPathPlayer loop(r.path);
  EXPECT_EQ(pr::video_frame_count(loop.duration(), 10), 20);
  EXPECT_DOUBLE_EQ(pr::video_frame_time(loop, 19, 20), 1.9);
  EXPECT_EQ(pr::video_frame_count(0.01, 10), 2);
}
