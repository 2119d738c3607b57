// Images: PNG written and read back, and a write error that names the file.
#include "engine/image_testing.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "render_test_util.h"

namespace pr {
namespace {

/// A w x h CPU image of `c`, for an image with content to write.
Image render(const PointCloud& c, const Camera& cam, int w, int h) {
  CpuRenderer r(2);
  std::string err;
  EXPECT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings s;
  s.width = w;
  s.height = h;
  s.background = test::kBg;
  return test::render(r, cam, s);
}

TEST(Image, PngWrittenAndReadable) {
  const PointCloud c = make_scene("galaxy", 50000, 2);
  const Image img = render(c, scene_camera("galaxy", c), 97, 61);
  const auto path = std::filesystem::temp_directory_path() /
                    ("pointraster_png_test_" + std::to_string(::getpid()) + ".png");
  std::string err;
  ASSERT_TRUE(write_png(path.string(), img, &err)) << err;
  Image back;
  ASSERT_TRUE(read_png(path.string(), back, &err)) << err;
  EXPECT_EQ(back.width, 97);
  EXPECT_EQ(back.height, 61);
  EXPECT_EQ(back.rgba, img.rgba);
  std::filesystem::remove(path);
  EXPECT_FALSE(write_png("/nonexistent-dir/x.png", img, &err));
  EXPECT_NE(err.find("/nonexistent-dir/x.png"), std::string::npos);
}

}  // namespace
}  // namespace pr
