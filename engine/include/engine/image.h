// An RGBA8 image with an optional depth buffer: what a renderer produces for the host.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pr {

struct Image {
  int width = 0, height = 0;
  std::vector<uint32_t> rgba;  ///< row-major, top row first, 0xAABBGGRR
  std::vector<float> depth;    ///< camera-space z per pixel, +inf where empty (may be left empty)

  void resize(int w, int h, bool with_depth);
  uint32_t at(int x, int y) const { return rgba[size_t(y) * size_t(width) + size_t(x)]; }
  size_t pixel_count() const { return size_t(width) * size_t(height); }
};

/// Writes `img` as PNG (RGBA8, through engine/png_writer.h). Returns false and fills `error` on
/// failure (a file begun is removed).
bool write_png(const std::string& path, const Image& img, std::string* error);
/// Writes raw RGBA8 rows (top first) as PNG.
bool write_png_rgba(const std::string& path, const uint32_t* pixels, int width, int height,
                    std::string* error);

}  // namespace pr
