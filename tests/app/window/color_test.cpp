// The Color section in a real window.
#include "engine/colorize.h"

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
