// Headless rendering (app/headless.cpp) through run_headless(): exit codes and the PNG.
#include "headless.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "options.h"

namespace fs = std::filesystem;

namespace {

pr::Options parsed(const std::vector<std::string>& args) {
  pr::Options o;
  std::string error;
  EXPECT_EQ(pr::parse_arguments(args, o, &error), 0) << error;
  return o;
}

fs::path scratch_dir() {
  const fs::path d = fs::temp_directory_path() / ("pr_headless_test_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

/// Pixels of `img` other than its most frequent color (the background).
size_t drawn_pixels(const pr::Image& img) {
  std::map<uint32_t, size_t> n;
  for (uint32_t c : img.rgba) ++n[c];
  size_t most = 0;
  for (const auto& [c, k] : n) most = std::max(most, k);
  return img.rgba.size() - most;
}

}  // namespace

TEST(Headless, RendersTheFramesAndWritesThePng) {
  const fs::path png = scratch_dir() / "cube.png";
  const pr::Options o =
      parsed({"--headless", "--scene", "cube", "--points", "2k", "--width", "32", "--height", "24",
              "--frames", "2", "--pick", "16,12", "--screenshot", png.string()});
  EXPECT_EQ(pr::run_headless(o), 0);
  EXPECT_GT(fs::file_size(png), 8u);
  fs::remove_all(png.parent_path());
}

TEST(Headless, AdaptiveSizeFillsASparseCloseUp) {
  // 3000 points of the cube scene seen from its default camera: a few pixels each, scattered.
  const fs::path dir = scratch_dir();
  pr::Image img[2];
  for (int adaptive = 0; adaptive < 2; ++adaptive) {
    const fs::path png = dir / ("adaptive" + std::to_string(adaptive) + ".png");
    std::vector<std::string> args = {
        "--headless", "--mode",   "cpu", "--scene",  "cube", "--points",     "3k",        "--width",
        "320",        "--height", "240", "--frames", "1",    "--screenshot", png.string()};
    if (adaptive) args.insert(args.end(), {"--adaptive-size", "--max-point-size", "10"});
    ASSERT_EQ(pr::run_headless(parsed(args)), 0);
    std::string err;
    ASSERT_TRUE(pr::read_png(png.string(), img[adaptive], &err)) << err;
  }
  EXPECT_GT(drawn_pixels(img[1]), 3 * drawn_pixels(img[0]));
  fs::remove_all(dir);
}

TEST(Headless, ExitCodesOfItsFailures) {
  // A file that cannot be read: 1.
  EXPECT_EQ(pr::run_headless(parsed({"--headless", "/nonexistent/x.ply"})), 1);
  // A color mode the cloud lacks: 2, as a bad option.
  EXPECT_EQ(pr::run_headless(parsed({"--headless", "--scene", "cube", "--points", "1k", "--frames",
                                     "1", "--color", "classification"})),
            2);
  // A screenshot that cannot be written: 1.
  EXPECT_EQ(pr::run_headless(parsed({"--headless", "--scene", "cube", "--points", "1k", "--width",
                                     "8", "--height", "8", "--frames", "1", "--screenshot",
                                     "/nonexistent/dir/x.png"})),
            1);
}
