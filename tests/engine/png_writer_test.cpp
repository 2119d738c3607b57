// The PNG written row by row (engine/png_writer.h): read back by stb_image pixel for pixel
// (alpha included) whatever pieces the rows come in, and its errors, which leave no file behind.
#include "engine/png_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <random>
#include <string>

#include "engine/image.h"
#include "engine/image_testing.h"

namespace pr {
namespace {

std::string temp_png(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("pointraster_pngw_" + std::to_string(::getpid()) + "_" + name + ".png"))
      .string();
}

/// Noise over flat runs and repeated rows: every byte value, and what the filter and zlib
/// compress.
Image test_image(int w, int h, uint32_t seed) {
  std::mt19937 rng(seed);
  Image img;
  img.resize(w, h, false);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x) {
      const size_t i = size_t(y) * size_t(w) + size_t(x);
      if (y % 7 == 3 && y > 0)
        img.rgba[i] = img.rgba[i - size_t(w)];
      else if (x % 5 == 0)
        img.rgba[i] = uint32_t(rng());
      else
        img.rgba[i] = x > 0 ? img.rgba[i - 1] : 0xff102030u;
    }
  return img;
}

TEST(PngWriter, RowsInPiecesReadBackExactly) {
  for (const auto& [w, h] : {std::pair{1, 1}, {3, 250}, {1001, 67}, {4099, 5}}) {
    const Image img = test_image(w, h, uint32_t(w * 31 + h));
    const std::string path = temp_png(std::to_string(w));
    PngWriter out;
    std::string err;
    ASSERT_TRUE(out.open(path, w, h, &err)) << err;
    int y = 0;
    for (int piece = 1; y < h; piece = piece * 2 + 1) {
      const int rows = std::min(piece, h - y);
      ASSERT_TRUE(out.write_rows(img.rgba.data() + size_t(y) * size_t(w), rows, &err)) << err;
      y += rows;
    }
    ASSERT_TRUE(out.finish(&err)) << err;
    Image back;
    ASSERT_TRUE(read_png(path, back, &err)) << err;
    EXPECT_EQ(back.width, w);
    EXPECT_EQ(back.height, h);
    EXPECT_EQ(back.rgba, img.rgba) << w << "x" << h;
    std::filesystem::remove(path);
  }
}

TEST(PngWriter, ErrorsLeaveNoFile) {
  const Image img = test_image(64, 10, 1);
  std::string err;
  const std::string path = temp_png("short");
  {
    PngWriter out;
    ASSERT_TRUE(out.open(path, 64, 10, &err)) << err;
    ASSERT_TRUE(out.write_rows(img.rgba.data(), 9, &err)) << err;
    EXPECT_FALSE(out.finish(&err));
    EXPECT_NE(err.find("9 of 10 rows"), std::string::npos) << err;
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  {
    PngWriter out;
    ASSERT_TRUE(out.open(path, 64, 5, &err)) << err;
    EXPECT_FALSE(out.write_rows(img.rgba.data(), 6, &err));
    EXPECT_NE(err.find(path), std::string::npos) << err;
    EXPECT_FALSE(std::filesystem::exists(path));
  }
  {
    PngWriter out;  // abandoned: the destructor removes the unfinished file
    ASSERT_TRUE(out.open(path, 64, 10, &err)) << err;
    ASSERT_TRUE(out.write_rows(img.rgba.data(), 3, &err)) << err;
  }
  EXPECT_FALSE(std::filesystem::exists(path));
  PngWriter out;
  EXPECT_FALSE(out.open("/nonexistent-dir/x.png", 4, 4, &err));
  EXPECT_NE(err.find("/nonexistent-dir/x.png"), std::string::npos) << err;
  EXPECT_FALSE(out.open(path, 0, 4, &err));
  EXPECT_FALSE(write_png_rgba(path, img.rgba.data(), 64, 0, &err));
  EXPECT_FALSE(std::filesystem::exists(path));
}

}  // namespace
}  // namespace pr
