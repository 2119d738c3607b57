// The Color section in a real window.
#include "engine/colorize.h"
#include "kernels/gpu_renderer.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

size_t count_rgb(const std::vector<uint32_t>& px, uint32_t c) {
  size_t n = 0;
  for (uint32_t p : px) n += (p & 0xffffffu) == (c & 0xffffffu);
  return n;
}

}  // namespace

// The Color section on a real classified scan: classification mode (computed in the background,
// then handed to the renderer) shows the ground in its palette color; unticking the ground's box
// removes every pixel of that color.
TEST(Window, ColorByClassAndHideTheGround) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path las = fs::path(pr::test::data_path("las")) / "autzen_trim.las";
  fresh_config("color");
  pr::ViewerTesting v(scripted_files({las.string()}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  const uint32_t ground = pr::class_color(2);
  int step = 0, since = 0;
  bool unknown_refused = false;
  size_t ground_shown = 0, ground_hidden = ~size_t(0), drawn_hidden = 0;
  std::string mode_shown;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0 || vw.color_busy()) return;
    if (++since < 3) return;  // a frame or two with what was handed over
    std::vector<uint32_t> px;
    int w = 0, hh = 0;
    if (step == 0) {
      unknown_refused = !vw.set_color("nosuch");
      EXPECT_TRUE(vw.set_color("classification"));
    } else if (step == 1) {
      mode_shown = vw.color_mode();
      vw.read_image(px, w, hh);
      ground_shown = count_rgb(px, ground);
      vw.set_class_visible(2, false);
    } else {
      vw.read_image(px, w, hh);
      ground_hidden = count_rgb(px, ground);
      drawn_hidden = count_not(px, w, 0, 0, w, hh, kBackground);
      vw.request_quit();
    }
    ++step;
    since = 0;
  };
  EXPECT_EQ(v.run(&h), 0);
  EXPECT_TRUE(unknown_refused);
  EXPECT_EQ(mode_shown, "classification");
  EXPECT_GT(ground_shown, 1000u);
  EXPECT_EQ(ground_hidden, 0u);
  EXPECT_GT(drawn_hidden, 1000u);
}

// GPU mode (on a machine with a CUDA device): a color mode is computed by the GPU from its recipe
// and shown before the host's copy is made (the status line says "on the GPU"); the GPU's image
// is the CPU's after a live switch to CPU mode, and back to RGB (its recipe copies the file's
// colors on the GPU) gives the first image again.
TEST(Window, GpuShowsTheNewColorsAheadAndDrawsTheCpuImage) {
  REQUIRE_DISPLAY();
  std::string why;
  if (!pr::gpu_renderer_available(&why)) GTEST_SKIP() << "no GPU mode here: " << why;
  fresh_config("gpu_color");
  pr::ViewerTesting v(scripted(0, 640, 400, 1'000'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int step = 0, since = 0, w = 0, hh = 0;
  bool to_gpu = false, to_cpu = false, elevation = false, rgb = false;
  std::string status, status_rgb;
  std::vector<uint32_t> gpu_rgb, gpu_elevation, cpu_elevation, gpu_rgb_again;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0 || vw.color_busy()) return;
    if (++since < 3) return;  // a frame or two with what was handed over
    if (step == 0) {
      to_gpu = vw.set_mode("gpu");
    } else if (step == 1) {
      vw.read_image(gpu_rgb, w, hh);
      elevation = vw.set_color("elevation");
    } else if (step == 2) {
      status = vw.status();
      vw.read_image(gpu_elevation, w, hh);
      to_cpu = vw.set_mode("cpu");
    } else if (step == 3) {
      vw.read_image(cpu_elevation, w, hh);
      vw.set_mode("gpu");
      rgb = vw.set_color("rgb");
    } else {
      status_rgb = vw.status();
      vw.read_image(gpu_rgb_again, w, hh);
      vw.request_quit();
    }
    ++step;
    since = 0;
  };
  EXPECT_EQ(v.run(&h), 0);
  ASSERT_TRUE(to_gpu && elevation && to_cpu && rgb) << v.status();
  EXPECT_NE(status.find("on the GPU"), std::string::npos) << status;
  EXPECT_NE(status_rgb.find("rgb in"), std::string::npos) << status_rgb;  // RGB's recipe too
  EXPECT_NE(status_rgb.find("on the GPU"), std::string::npos) << status_rgb;
  ASSERT_EQ(gpu_elevation.size(), cpu_elevation.size());
  EXPECT_GT(pixels_differing(gpu_rgb, gpu_elevation), gpu_rgb.size() / 4);
  EXPECT_EQ(pixels_differing(gpu_elevation, cpu_elevation), 0u);
  EXPECT_EQ(pixels_differing(gpu_rgb, gpu_rgb_again), 0u);
}
