// The real program and the whole window: scripted runs' screenshots, the panel's scale, the
// screenshot key and the settings kept between runs.
#include <cstdlib>

#include "viewer/settings.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// The pointraster binary in single quotes, for a shell command line.
std::string quoted_bin() {
  std::string q = "'";
  q += pointraster_bin();
  q += "'";
  return q;
}

}  // namespace

// The real program, as a user (or CI) runs it: window, K frames, screenshot of the whole window.
TEST(Window, ScriptedRunScreenshotShowsSceneAndPanel) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("cli");
  const fs::path png = d / "window.png";
  const std::string cmd = quoted_bin() +
                          " --frames 12 --width 960 --height 600 --points 300k --mode cpu "
                          "--vsync off --screenshot '" +
                          png.string() + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  pr::Image img;
  std::string err;
  ASSERT_TRUE(pr::read_png(png.string(), img, &err)) << err;
  ASSERT_EQ(img.width, 960);
  ASSERT_EQ(img.height, 600);
  // The image area right of the panel: the terrain covers a good part of it.
  const size_t scene = count_not(img.rgba, img.width, 400, 0, 960, 600, kBackground);
  EXPECT_GT(scene, size_t(560 * 600 / 5)) << "too few scene pixels right of the panel";
  // The panel: white text on the dark window, top left.
  const size_t text = count_text(img.rgba, img.width, 10, 10, 380, 590);
  EXPECT_GT(text, 800u) << "no panel text in the screenshot";
  // And nowhere else text-like in quantity: the scene's far right strip has (almost) none.
  EXPECT_LT(count_text(img.rgba, img.width, 900, 0, 960, 600), 200u);
  // Scripted runs do not overwrite the user's settings.
  EXPECT_FALSE(fs::exists(d / "pointraster" / "settings.ini"));
}

// The panel's scale: on a HiDPI X11 screen from the display's DPI, and always from --ui-scale
// (X11 servers, Xvfb among them, often report no DPI at all). Twice the scale: about twice the
// text, in a panel twice as wide.
TEST(Window, UiScaleOptionScalesThePanel) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("uiscale");
  size_t text[2] = {0, 0}, text_far[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const fs::path png = d / ("ui" + std::to_string(k) + ".png");
    const std::string cmd = quoted_bin() +
                            " --frames 6 --width 1200 --height 800 --points 50k --mode cpu "
                            "--vsync off --ui-scale " +
                            std::to_string(k + 1) + " --screenshot '" + png.string() + "'";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    pr::Image img;
    std::string err;
    ASSERT_TRUE(pr::read_png(png.string(), img, &err)) << err;
    text[k] = count_text(img.rgba, img.width, 0, 0, 1200, 800);
    // Right of where the 1x panel ends (it is 370 px wide at 10 px from the left).
    text_far[k] = count_text(img.rgba, img.width, 420, 0, 740, 800);
  }
  EXPECT_GT(text[1], text[0] * 3 / 2) << text[0] << " vs " << text[1];
  EXPECT_LT(text_far[0], 300u);
  EXPECT_GT(text_far[1], 1000u) << "the 2x panel should reach past x = 420";
  pr::Options o = scripted(2, 640, 400, 20'000);
  o.ui_scale = 1.5f;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_FLOAT_EQ(v.ui_scale(), 1.5f);
  EXPECT_EQ(v.run(), 0);
}

TEST(Window, SettingsPersistAndTheScreenshotKeySavesThePicture) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("persist");
  const fs::path shots = d / "shots";
  fs::create_directories(shots);
  const fs::path cwd = fs::current_path();
  fs::current_path(shots);  // the screenshot key writes into the current folder
  {
    pr::ViewerTesting v(
        scripted(0, 700, 420, 100'000));  // interactive (no --frames): saves settings
    std::string err;
    ASSERT_TRUE(v.open(&err)) << err;
    int pressed = -1;
    pr::ViewerHooks h;
    h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
      if (pressed < 0 && !vw.cloud_busy() && frame > 3) {
        SDL_Event e = key_event(SDLK_p, SDL_SCANCODE_P, true);
        SDL_PushEvent(&e);
        e = key_event(SDLK_p, SDL_SCANCODE_P, false);
        SDL_PushEvent(&e);
        pressed = frame;
      }
      if (pressed >= 0 && frame == pressed + 2) {
        SDL_Event e = key_event(SDLK_ESCAPE, SDL_SCANCODE_ESCAPE, true);  // Esc quits
        SDL_PushEvent(&e);
      }
      if (frame > 3000) vw.request_quit();
    };
    EXPECT_EQ(v.run(&h), 0);
  }
  fs::current_path(cwd);
  std::vector<fs::path> pngs;
  for (const auto& e : fs::directory_iterator(shots))
    if (e.path().extension() == ".png") pngs.push_back(e.path());
  ASSERT_EQ(pngs.size(), 1u);
  EXPECT_EQ(pngs[0].filename().string().rfind("pointraster-", 0), 0u);
  pr::Image img;
  std::string err;
  ASSERT_TRUE(pr::read_png(pngs[0].string(), img, &err)) << err;
  // The rendered image only: the window less the docked panel (370 units at the default width).
  EXPECT_EQ(img.width, 700 - 370);
  EXPECT_EQ(img.height, 420);
  EXPECT_GT(count_not(img.rgba, img.width, 0, 0, img.width, img.height, kBackground),
            size_t(img.width * 420 / 10));
  EXPECT_LT(count_text(img.rgba, img.width, 0, 0, img.width, img.height), 400u)
      << "panel in the image?";
  // Settings and the panel layout were written, and the next run reads the window size back.
  ASSERT_TRUE(fs::exists(d / "pointraster" / "settings.ini"));
  EXPECT_TRUE(fs::exists(d / "pointraster" / "imgui.ini"));
  const auto s = pr::load_settings((d / "pointraster" / "settings.ini").string());
  EXPECT_EQ(s.width, 700);
  EXPECT_EQ(s.height, 420);
  EXPECT_EQ(s.mode, "cpu");
  EXPECT_EQ(s.panel_width, pr::kDefaultPanelWidth);
}
