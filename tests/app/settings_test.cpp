// The viewer's settings file: what is saved is read back, bad values are ignored, and the file
// lives under $XDG_CONFIG_HOME/pointraster. No display needed.
#include "viewer/settings.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

namespace fs = std::filesystem;

namespace {

/// An empty folder of this test process, made $XDG_CONFIG_HOME.
fs::path fresh_config(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_settings_test_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  setenv("XDG_CONFIG_HOME", d.c_str(), 1);
  return d;
}

}  // namespace

TEST(Settings, RoundTripAndBadValuesIgnored) {
  const fs::path d = fresh_config("settings");
  pr::ViewerSettings s;
  s.width = 1111;
  s.height = 777;
  s.mode = "gpu";
  s.vsync = false;
  s.point_size = 3;
  s.adaptive_size = true;
  s.max_point_size = 14;
  s.projection = "ortho";
  s.panel_width = 455;
  s.add_recent("/a/b.ply");
  s.add_recent("/c/d.las");
  s.add_recent("/a/b.ply");  // moves to the front, no duplicate
  std::string err;
  ASSERT_TRUE(pr::save_settings((d / "x/settings.ini").string(), s, &err)) << err;
  const auto t = pr::load_settings((d / "x/settings.ini").string());
  EXPECT_EQ(t.width, 1111);
  EXPECT_EQ(t.height, 777);
  EXPECT_EQ(t.mode, "gpu");
  EXPECT_FALSE(t.vsync);
  EXPECT_EQ(t.point_size, 3);
  EXPECT_TRUE(t.adaptive_size);
  EXPECT_EQ(t.max_point_size, 14);
  EXPECT_EQ(t.projection, "ortho");
  EXPECT_EQ(pr::ViewerSettings{}.projection, "perspective");
  EXPECT_EQ(t.panel_width, 455);
  ASSERT_EQ(t.recent.size(), 2u);
  EXPECT_EQ(t.recent[0], "/a/b.ply");
  // A URL stays a URL (no folder in front of it), a relative path becomes absolute; the file
  // keeps both as they are.
  pr::ViewerSettings r;
  r.add_recent("http://127.0.0.1:8123/city.copc.laz");
  r.add_recent("HTTPS://example.org/a/../b.copc.laz?x=1");
  r.add_recent("rel/c.las");
  ASSERT_EQ(r.recent.size(), 3u);
  EXPECT_EQ(r.recent[2], "http://127.0.0.1:8123/city.copc.laz");
  EXPECT_EQ(r.recent[1], "HTTPS://example.org/a/../b.copc.laz?x=1");
  EXPECT_EQ(r.recent[0], (fs::current_path() / "rel/c.las").string());
  ASSERT_TRUE(pr::save_settings((d / "urls.ini").string(), r, &err)) << err;
  EXPECT_EQ(pr::load_settings((d / "urls.ini").string()).recent, r.recent);
  {
    std::FILE* f = std::fopen((d / "bad.ini").c_str(), "w");
    std::fputs(
        "width=-5\nmode=tpu\npoint_size=99\nprojection=fisheye\npanel_width=7\ngarbage\n"
        "adaptive_size=yes\nmax_point_size=40\n",
        f);
    std::fclose(f);
  }
  const auto u = pr::load_settings((d / "bad.ini").string());
  EXPECT_EQ(u.width, pr::ViewerSettings{}.width);
  EXPECT_EQ(u.mode, "auto");  // the default: the GPU when there is one
  EXPECT_EQ(u.point_size, 1);
  EXPECT_FALSE(u.adaptive_size);
  EXPECT_EQ(u.max_point_size, pr::ViewerSettings{}.max_point_size);
  EXPECT_EQ(u.projection, "perspective");
  EXPECT_EQ(u.panel_width, pr::ViewerSettings{}.panel_width);
  EXPECT_EQ(pr::config_dir(), (d / "pointraster").string());
}
