#include "engine/image.h"
#include "engine/image_testing.h"

#include <cmath>
#include <cstdio>
#include <cstring>

#include <stb_image.h>

#include "engine/png_writer.h"

namespace pr {

void Image::resize(int w, int h, bool with_depth) {
  width = w < 0 ? 0 : w;
  height = h < 0 ? 0 : h;
  rgba.resize(pixel_count());
  if (with_depth)
    depth.resize(pixel_count());
  else
    depth.clear();
}

bool write_png_rgba(const std::string& path, const uint32_t* pixels, int width, int height,
                    std::string* error) {
  PngWriter w;
  return w.open(path, width, height, error) && w.write_rows(pixels, height, error) &&
         w.finish(error);
}

bool write_png(const std::string& path, const Image& img, std::string* error) {
  return write_png_rgba(path, img.rgba.data(), img.width, img.height, error);
}

bool read_png(const std::string& path, Image& img, std::string* error) {
  int w = 0, h = 0, n = 0;
  unsigned char* data = stbi_load(path.c_str(), &w, &h, &n, 4);
  if (!data) {
    if (error) *error = "cannot read image " + path + ": " + stbi_failure_reason();
    return false;
  }
  img.resize(w, h, false);
  std::memcpy(img.rgba.data(), data, img.pixel_count() * 4);
  stbi_image_free(data);
  return true;
}

}  // namespace pr
