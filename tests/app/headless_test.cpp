// Headless rendering (app/headless.cpp) through run_headless(): exit codes and the PNG.
#include "headless.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>
#include <vector>

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
