// What the headless tests of tests/app that render files share: the options of a command line
// (with its scene file), a camera that sees a file's points, run_headless() with its output, the
// summary line's values, and images compared pixel for pixel.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "engine/io/io.h"
#include "headless.h"
#include "options.h"
#include "scene_file.h"

namespace pr::test {

/// The options of `args`, a scene file's under them (as parse_options() takes them).
inline Options parsed(const std::vector<std::string>& args) {
  Options o;
  std::string error;
  EXPECT_EQ(parse_arguments(args, o, &error), 0) << error;
  std::vector<std::string> notes;
  int rc = 0;
  if (!o.scene_file.empty()) {
    EXPECT_TRUE(apply_scene_file(args, o, &notes, &error, &rc)) << error;
  }
  return o;
}

/// --camera looking at the points of `path` (read whole) from the south-west, above them.
inline std::string camera_for(const std::string& path) {
  PointCloud cloud;
  FileInfo info;
  std::string error;
  EXPECT_TRUE(load_point_cloud(path, cloud, &info, &error)) << error;
  const Bounds b = cloud.world_bounds();
  const glm::dvec3 c = b.center(), s = b.size();
  const double r = std::max({s.x, s.y, s.z});
  char arg[256];
  std::snprintf(arg, sizeof arg, "%.6f,%.6f,%.6f,%.3f,%.3f", c.x - 0.6 * r, c.y - 0.9 * r,
                c.z + 0.8 * r, 33.0, -35.0);
  return arg;
}

/// run_headless()'s exit code and what it printed.
inline int run(const std::vector<std::string>& args, std::string* out) {
  testing::internal::CaptureStdout();
  const int rc = run_headless(parsed(args));
  *out = testing::internal::GetCapturedStdout();
  return rc;
}

/// run()'s exit code and what it wrote to stderr.
inline int run_err(const std::vector<std::string>& args, std::string* err) {
  std::string out;
  testing::internal::CaptureStderr();
  const int rc = run(args, &out);
  *err = testing::internal::GetCapturedStderr();
  return rc;
}

/// The value of `key=` on the summary line, or -1.
inline double summary_value(const std::string& out, const std::string& key) {
  const std::regex re(" " + key + "=([0-9.e+-]+)");
  std::smatch m;
  return std::regex_search(out, m, re) ? std::stod(m[1]) : -1.0;
}

/// The pixels (RGBA words) of two images of one size that differ, and those of `a` that are not
/// its first pixel's color (the cloud, on the background).
inline void count_pixels(const std::filesystem::path& a, const std::filesystem::path& b,
                         size_t* differ, size_t* lit) {
  Image ia, ib;
  std::string error;
  ASSERT_TRUE(read_png(a.string(), ia, &error)) << error;
  ASSERT_TRUE(read_png(b.string(), ib, &error)) << error;
  ASSERT_EQ(ia.width, ib.width);
  ASSERT_EQ(ia.height, ib.height);
  *differ = *lit = 0;
  for (size_t i = 0; i < ia.rgba.size(); ++i) {
    *differ += ia.rgba[i] != ib.rgba[i];
    *lit += ia.rgba[i] != ia.rgba[0];
  }
}

/// The two images are the same, pixel for pixel, and show the cloud (500 pixels or more).
inline void expect_same_images(const std::filesystem::path& a, const std::filesystem::path& b) {
  size_t differ = 0, lit = 0;
  count_pixels(a, b, &differ, &lit);
  EXPECT_EQ(differ, 0u) << a << " and " << b;
  EXPECT_GT(lit, 500u) << "the view shows the cloud";
}

}  // namespace pr::test
