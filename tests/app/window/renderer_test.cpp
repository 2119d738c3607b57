// Which renderer the window draws with: the default, the fallback without a GPU, the command
// line's render options, a cloud the GPU cannot hold.
#include "startup.h"

#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

// No --mode and no saved choice: the GPU when a CUDA device is there, else the CPU without an
// error on the status line.
TEST(Window, DefaultModeIsTheGpuWhenThereIsOne) {
  REQUIRE_DISPLAY();
  fresh_config("automode");
  pr::Options o = scripted(3, 640, 400, 20'000);
  o.mode.reset();
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_EQ(v.run(), 0);
  std::string why;
  const bool gpu = pr::gpu_renderer_available(&why);
  EXPECT_EQ(v.mode(), gpu ? "gpu" : "cpu") << why;
  EXPECT_EQ(v.status().find("unavailable"), std::string::npos) << v.status();
}

TEST(Window, GpuModeFallsBackToCpuWithAReasonWhenUnavailable) {
  REQUIRE_DISPLAY();
  std::string why;
  if (pr::gpu_renderer_available(&why)) GTEST_SKIP() << "a GPU is available: covered on the device";
  fresh_config("gpu");
  pr::Options o = scripted(3, 480, 320, 50'000);
  o.mode = "gpu";
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_EQ(v.run(), 0);
  EXPECT_EQ(v.mode(), "cpu");
  EXPECT_NE(v.display_path().find("CPU"), std::string::npos);
  // G asks for the GPU again: refused with the reason, still drawing on the CPU.
  EXPECT_FALSE(v.set_mode("gpu"));
  EXPECT_NE(v.status().find("unavailable"), std::string::npos) << v.status();
}

/// The command line's renderer options reach the viewer's renderers: with --culling off the cube
/// scene's own camera, inside the cube, skips no batch (CullingSwitchKeepsTheImage: most, with it
/// on), and --occlusion on is what the panel shows.
TEST(Window, CommandLineRenderOptionsReachTheRenderers) {
  REQUIRE_DISPLAY();
  fresh_config("options");
  pr::Options o = scripted(6, 480, 300, 300'000);
  o.scene = "cube";
  o.culling = false;
  o.occlusion = pr::Toggle::kOn;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_FALSE(v.render_options().culling);
  EXPECT_EQ(v.render_options().occlusion, pr::Toggle::kOn);
  EXPECT_FALSE(v.render_options().compact);
  EXPECT_EQ(v.run(), 0);
  EXPECT_EQ(v.cloud_points(), 300'000u);
  EXPECT_EQ(v.cpu_culled_batches(), 0u);
}

/// GPU mode, then a regenerated scene that fits on the GPU in no form (2M points under a 10 MiB
/// limit: 30 MB at full precision, 14 MB compact): the new cloud is drawn on the CPU, and the
/// status line says why next to the "ready" message.
TEST(Window, CloudTooLargeForTheGpuInAnyFormIsDrawnOnTheCpu) {
  REQUIRE_DISPLAY();
  std::string why;
  if (!pr::gpu_renderer_available(&why)) GTEST_SKIP() << "no GPU mode here: " << why;
  fresh_config("refused");
  pr::Options o = scripted(0, 640, 400, 200'000);  // 3 MB at full precision: fits
  o.gpu_memory_limit = 10u << 20;                  // --gpu-memory-limit 10M
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int stage = 0;
  bool switched = false;
  std::string status, mode;
  uint64_t drawn = 0;
  pr::ViewerHooks hk;
  hk.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (stage == 0 && !vw.cloud_busy() && frame > 3) {
      switched = vw.set_mode("gpu");
      vw.set_point_count(2'000'000);
      stage = 1;
    } else if (stage == 1 && !vw.cloud_busy() && vw.cloud_points() == 2'000'000) {
      status = vw.status();
      mode = vw.mode();
      stage = 2;
    } else if (stage == 2) {
      drawn = vw.points_drawn();
      vw.request_quit();
    }
    if (frame > 20000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hk), 0);
  ASSERT_TRUE(switched) << v.status();
  ASSERT_EQ(stage, 2) << v.status();
  EXPECT_EQ(mode, "cpu");
  EXPECT_NE(status.find("points ready"), std::string::npos) << status;
  EXPECT_NE(status.find("the GPU renderer refused it"), std::string::npos) << status;
  EXPECT_NE(status.find("over the limit"), std::string::npos) << status;
  EXPECT_EQ(drawn, 2'000'000u);
}
