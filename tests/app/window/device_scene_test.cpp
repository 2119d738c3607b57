// A scene the host cannot hold (here: 2^32 points, beyond the host renderers' 32-bit index) in a
// real window: in CPU mode the window says in one line why it cannot make it and keeps running; in
// GPU mode the GPU makes it (GpuRenderer::generate_scene()), the host keeps an even subset of it
// for the CPU renderer, picks and tools, and color modes other than the scene's own are refused.
#include <cstdio>

#include "scene_home.h"
#include "window_support.h"

namespace {

using pr::ViewerTesting;
using pr::test::kBackground;
using pr::test::pixels_differing;
using pr::test::scripted;
using pr::test::SwitchCase;
using pr::test::SwitchRun;

constexpr uint64_t kBeyondIndex = uint64_t{1} << 32;

TEST(Window, SceneTheHostCannotHoldIsRefusedInOneLineOnTheCpu) {
  REQUIRE_DISPLAY();
  pr::test::fresh_config("SceneTheHostCannotHold");
  pr::Options o = scripted(0, 480, 300, kBeyondIndex);
  o.scene = "cube";
  ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int settled = -1, frames = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, ViewerTesting& vw) {
    frames = frame;
    if (settled < 0 && !vw.cloud_busy() && vw.status().find("points of scene") != std::string::npos)
      settled = frame;
    // Frames go on after the refusal.
    if ((settled >= 0 && frame >= settled + 10) || frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_GE(settled, 0) << "the scene job never ended";
  EXPECT_GE(frames, settled + 10);
  const std::string status = v.status();
  EXPECT_EQ(status.rfind("4294967296 points of scene cube: the host", 0), 0u) << status;
  EXPECT_NE(status.find("; GPU mode (--mode gpu) makes cube clouds on the device"),
            std::string::npos)
      << status;
  EXPECT_EQ(v.cloud_points(), 0u);
}

// GPU mode from the start: the GPU makes the 2^32 points (compact: 30 GB); the CPU draws the
// host's subset, the GPU the whole scene again after the switch back, the same image as before;
// elevation is refused in one line and the image stays.
SwitchCase device_scene() {
  SwitchCase c{"SceneTheHostCannotHoldIsMadeOnTheGpu",
               true,
               scripted(0, 640, 400, kBeyondIndex),
               {},
               {},
               {}};
  c.options.scene = "cube";
  c.options.mode = "gpu";
  c.options.compact = true;
  c.steps = {[](ViewerTesting& v, SwitchRun& r) {
               r.notes.push_back(v.status());
               r.counts.push_back(v.cloud_points());
               r.results.push_back(v.set_mode("cpu"));
               r.notes.push_back(v.status());
             },
             [](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_mode("gpu")); },
             [](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_color("elevation")); },
             [](ViewerTesting& v, SwitchRun& r) {
               r.notes.push_back(v.status());
               r.notes.push_back(v.color_mode());
             }};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    const std::string &ready = r.notes[0], &cpu = r.notes[1], &color = r.notes[2];
    std::printf("made: %s\nCPU: %s\ncolor: %s\n", ready.c_str(), cpu.c_str(), color.c_str());
    EXPECT_NE(ready.find("4294967296 points ready (the host holds an even subset of 10000000"),
              std::string::npos)
        << ready;
    EXPECT_NE(ready.find("made on the GPU in"), std::string::npos) << ready;
    EXPECT_EQ(r.counts[0], kBeyondIndex);
    ASSERT_TRUE(r.results[0]) << cpu;
    EXPECT_NE(cpu.find("10000000 of the 4294967296 points the GPU made, an even subset"),
              std::string::npos)
        << cpu;
    EXPECT_TRUE(r.results[1]) << v.status();
    EXPECT_NE(color.find("refused: a scene made on the GPU keeps its own colors"),
              std::string::npos)
        << color;
    EXPECT_EQ(r.notes[3], "rgb");
    ASSERT_EQ(r.images.size(), 4u);
    const auto &gpu = r.images[0], &subset = r.images[1];
    ASSERT_FALSE(gpu.empty());
    ASSERT_EQ(gpu.size(), subset.size());
    const size_t w = size_t(r.w), h = size_t(r.h);
    EXPECT_GT(pr::test::count_not(gpu, r.w, 0, 0, r.w, r.h, kBackground), w * h / 2)
        << "2^32 points of the cube should cover the view";
    EXPECT_GT(pr::test::count_not(subset, r.w, 0, 0, r.w, r.h, kBackground), size_t(1000));
    EXPECT_GT(pixels_differing(gpu, subset), size_t(1000)) << "the CPU drew more than its subset";
    EXPECT_EQ(r.images[2], gpu) << "the GPU's scene after the switch back is another image";
    EXPECT_EQ(r.images[3], gpu) << "a refused color mode changed the image";
  };
  return c;
}

const bool kRegistered = pr::test::register_switch_cases({device_scene()}, __FILE__, __LINE__);

}  // namespace
