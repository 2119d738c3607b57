// A PNG written row by row (RGBA8, 8 bits a channel), so that an image of any size (a tiled
// 16384 x 16384 image is 1 GiB of pixels) is written without being held whole: each row is
// filtered with PNG's "up" filter (each byte less the byte above it: rendered images have long
// runs of equal rows and columns, which it turns into zeros) and fed to one zlib stream, whose
// output goes out in IDAT chunks as it comes. write_png() (engine/image.h) writes through it too.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace pr {

/// zlib's level the writer compresses at by default: 1, its fastest (on a 16384 x 16384 render
/// over twice the speed of zlib's default, 6, for a file a quarter larger; docs/PERFORMANCE.md).
constexpr int kPngLevel = 1;

class PngWriter {
 public:
  PngWriter();
  /// A file opened and not finished is closed and removed.
  ~PngWriter();
  PngWriter(const PngWriter&) = delete;
  PngWriter& operator=(const PngWriter&) = delete;

  /// Creates `path` for a width x height image (width 1 .. 2^28, height 1 .. 2^31 - 1) and writes
  /// its header; `level`: zlib's, 1 (fastest) to 9 (smallest). False with a one-line message
  /// naming the file when it cannot.
  bool open(const std::string& path, int width, int height, std::string* error,
            int level = kPngLevel);
  /// The next `rows` rows, top first: width pixels each, 0xAABBGGRR (Image::rgba). False with a
  /// message when the file cannot be written or more rows come than the image has.
  bool write_rows(const uint32_t* rgba, int rows, std::string* error);
  /// Ends the stream after the last row and closes the file; false with a message when rows are
  /// missing or the file cannot be written (it is then removed).
  bool finish(std::string* error);
  /// Closes and removes an unfinished file.
  void abort();
  bool is_open() const { return file_ != nullptr; }
  int rows_written() const { return rows_; }

 private:
  struct Stream;  // zlib's state
  bool deflate_some(int flush, std::string* error);
  bool write_chunk(const char type[4], const uint8_t* data, size_t size, std::string* error);
  bool fail(const std::string& what, std::string* error);

  std::FILE* file_ = nullptr;
  std::string path_;
  int width_ = 0, height_ = 0, rows_ = 0;
  std::unique_ptr<Stream> z_;
  std::vector<uint8_t> line_, out_;  // a filtered row (its filter byte first), zlib's output
  std::vector<uint32_t> prev_;       // the row above
};

}  // namespace pr
