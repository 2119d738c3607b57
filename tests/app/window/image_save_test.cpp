// The Image section in a running window (CPU renderer): "Save image at W x H" at the view's size
// writes the image on screen; at a larger size, drawn in many tiles between the frames, the same
// PNG as drawn in one frame; sizes out of range are refused; Cancel leaves no file.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

std::vector<char> file_bytes(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(Window, SavesTheViewAtAnySizeInTiles) {
  REQUIRE_DISPLAY();
  const fs::path dir = fresh_config("image_save") / "images";
  fs::create_directories(dir);
  const fs::path at_view = dir / "view.png", whole = dir / "whole.png", tiled = dir / "tiled.png",
                 cancelled = dir / "cancelled.png";
  pr::Options o = scripted(0, 640, 400, 200000);
  o.point_size = 3;
  o.edl = 1.5f;  // squares and eye-dome lighting: the tiles need their margins
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<uint32_t> screen;
  int sw = 0, sh = 0, phase = 0, waited = 0, busy_frames = 0;
  bool refused = true, started[4] = {};
  double last_progress = 0.0;
  bool progress_rose = false;
  std::string refused_status, statuses[4];
  pr::ViewerHooks hooks;
  // Each phase starts a save and waits for it to end, then reads the status line.
  auto wait_for = [&](int k, pr::ViewerTesting& vw) {
    if (vw.image_save_busy()) {
      ++busy_frames;
      const double p = vw.image_save_progress();
      progress_rose |= p > last_progress;
      last_progress = p;
      return false;
    }
    statuses[k] = vw.status();
    return true;
  };
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (phase == 0 && !vw.cloud_busy() && vw.cloud_points() > 0 && ++waited > 3) {
      vw.read_image(screen, sw, sh);
      refused = !vw.save_image((dir / "x.png").string(), 20000, 100) &&
                !vw.save_image((dir / "x.png").string(), 100, 0);
      refused_status = vw.status();
      started[0] = vw.save_image(at_view.string(), vw.image_width(), vw.image_height());
      phase = 1;
    } else if (phase == 1 && wait_for(0, vw)) {
      started[1] = vw.save_image(whole.string(), 1501, 899);
      phase = 2;
    } else if (phase == 2 && wait_for(1, vw)) {
      last_progress = 0.0;
      started[2] = vw.save_image(tiled.string(), 1501, 899, 257 * 211);
      phase = 3;
    } else if (phase == 3 && wait_for(2, vw)) {
      started[3] = vw.save_image(cancelled.string(), 9000, 7000, 600 * 600);
      phase = 4;
    } else if (phase == 4) {
      vw.cancel_image_save();
      phase = 5;
    } else if (phase == 5 && wait_for(3, vw)) {
      vw.request_quit();
    }
    if (frame > 20000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_TRUE(refused);
  EXPECT_NE(refused_status.find("1 to 16384"), std::string::npos) << refused_status;
  for (int k = 0; k < 4; ++k) EXPECT_TRUE(started[k]) << k << ": " << statuses[k];
  EXPECT_EQ(v.render_settings().point_size, 3);
  EXPECT_TRUE(v.render_settings().edl);

  // At the view's size: the image on screen (opaque), in one tile.
  char view_size[64];
  std::snprintf(view_size, sizeof view_size, "(%d x %d, 1 tile)", sw, sh);
  EXPECT_NE(statuses[0].find(view_size), std::string::npos) << statuses[0];
  pr::Image saved;
  ASSERT_TRUE(pr::read_png(at_view.string(), saved, &err)) << err;
  ASSERT_EQ(saved.width, sw);
  ASSERT_EQ(saved.height, sh);
  for (uint32_t& p : screen) p |= 0xff000000u;
  EXPECT_EQ(saved.rgba, screen);

  // 1501 x 899 in one frame and in tiles of 257 x 211 pixels at most: the same file.
  EXPECT_NE(statuses[1].find("(1501 x 899, 1 tile)"), std::string::npos) << statuses[1];
  EXPECT_NE(statuses[2].find("saved image " + tiled.string()), std::string::npos) << statuses[2];
  EXPECT_EQ(statuses[2].find(", 1 tile)"), std::string::npos) << statuses[2];
  const std::vector<char> a = file_bytes(whole), b = file_bytes(tiled);
  EXPECT_GT(a.size(), 1000u);
  EXPECT_TRUE(a == b) << "the tiled image differs from the whole one";
  EXPECT_TRUE(progress_rose);
  EXPECT_GT(busy_frames, 0);

  // Cancelled: no file, and the status line says so.
  EXPECT_NE(statuses[3].find("cancelled"), std::string::npos) << statuses[3];
  EXPECT_FALSE(fs::exists(cancelled));
}
