#include "engine/png_writer.h"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace pr {

namespace {

/// Bytes of compressed output an IDAT chunk carries (the last one less).
constexpr size_t kChunk = size_t{1} << 18;

void put_u32(uint8_t* p, uint32_t v) {
  p[0] = uint8_t(v >> 24);
  p[1] = uint8_t(v >> 16);
  p[2] = uint8_t(v >> 8);
  p[3] = uint8_t(v);
}

}  // namespace

struct PngWriter::Stream {
  z_stream z{};
  bool live = false;
  ~Stream() {
    if (live) deflateEnd(&z);
  }
};

PngWriter::PngWriter() = default;

PngWriter::~PngWriter() {
  abort();
}

bool PngWriter::fail(const std::string& what, std::string* error) {
  if (error) *error = "cannot write PNG " + path_ + ": " + what;
  abort();
  return false;
}

void PngWriter::abort() {
  z_.reset();
  if (!file_) return;
  std::fclose(file_);
  file_ = nullptr;
  std::error_code ec;
  std::filesystem::remove(path_, ec);
}

bool PngWriter::write_chunk(const char type[4], const uint8_t* data, size_t size,
                            std::string* error) {
  uint8_t head[8];
  put_u32(head, uint32_t(size));
  std::memcpy(head + 4, type, 4);
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(type), 4);
  if (size) crc = crc32(crc, data, uInt(size));
  uint8_t tail[4];
  put_u32(tail, uint32_t(crc));
  if (std::fwrite(head, 1, 8, file_) != 8 || (size && std::fwrite(data, 1, size, file_) != size) ||
      std::fwrite(tail, 1, 4, file_) != 4)
    return fail(std::strerror(errno), error);
  return true;
}

bool PngWriter::open(const std::string& path, int width, int height, std::string* error,
                     int level) {
  abort();
  path_ = path;
  if (width <= 0 || height <= 0) {
    if (error) *error = "cannot write an empty image to " + path;
    return false;
  }
  if (width > (1 << 28)) {  // a row's bytes are handed to zlib in one piece (32-bit counts)
    if (error) *error = "cannot write PNG " + path + ": wider than 2^28 pixels";
    return false;
  }
  file_ = std::fopen(path.c_str(), "wb");
  if (!file_) {
    if (error) *error = "cannot write PNG " + path + ": " + std::strerror(errno);
    return false;
  }
  width_ = width;
  height_ = height;
  rows_ = 0;
  static const uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  if (std::fwrite(kSignature, 1, 8, file_) != 8) return fail(std::strerror(errno), error);
  // IHDR: the size, 8 bits a channel, color type 6 (RGBA), deflate, adaptive filtering, no
  // interlace.
  uint8_t ihdr[13] = {};
  put_u32(ihdr, uint32_t(width));
  put_u32(ihdr + 4, uint32_t(height));
  ihdr[8] = 8;
  ihdr[9] = 6;
  if (!write_chunk("IHDR", ihdr, sizeof ihdr, error)) return false;
  z_ = std::make_unique<Stream>();
  if (deflateInit(&z_->z, level < 1 ? 1 : level > 9 ? 9 : level) != Z_OK)
    return fail("zlib refused to start", error);
  z_->live = true;
  const size_t row_bytes = size_t(width) * 4;
  line_.assign(row_bytes + 1, 0);
  prev_.assign(size_t(width), 0);  // the row above the first is zeros (PNG's rule)
  out_.resize(kChunk);
  z_->z.next_out = out_.data();
  z_->z.avail_out = uInt(out_.size());
  return true;
}

/// Runs deflate over what next_in holds (all of it, or with Z_FINISH to the stream's end),
/// writing an IDAT chunk each time the output buffer fills.
bool PngWriter::deflate_some(int flush, std::string* error) {
  z_stream& z = z_->z;
  for (;;) {
    const int rc = deflate(&z, flush);
    if (rc == Z_STREAM_ERROR) return fail("zlib failed", error);
    const bool full = z.avail_out == 0;
    const bool ended = rc == Z_STREAM_END;
    if (full || (ended && z.avail_out < out_.size())) {
      if (!write_chunk("IDAT", out_.data(), out_.size() - z.avail_out, error)) return false;
      z.next_out = out_.data();
      z.avail_out = uInt(out_.size());
    }
    if (ended) return true;
    if (flush == Z_NO_FLUSH && z.avail_in == 0 && !full) return true;
  }
}

bool PngWriter::write_rows(const uint32_t* rgba, int rows, std::string* error) {
  if (!file_) {
    if (error) *error = "PNG " + path_ + " is not open";
    return false;
  }
  if (rows < 0 || rows > height_ - rows_)
    return fail("more rows than the image's " + std::to_string(height_), error);
  const size_t W = size_t(width_);
  for (int r = 0; r < rows; ++r) {
    const uint32_t* src = rgba + size_t(r) * W;
    const uint32_t* above = prev_.data();
    line_[0] = 2;  // filter "up": each byte less the one above it, modulo 256
    uint8_t* dst = line_.data() + 1;
    // A 0xAABBGGRR word's bytes in PNG's order R, G, B, A, whatever the machine's byte order.
    for (size_t x = 0; x < W; ++x) {
      const uint32_t v = src[x], a = above[x];
      for (int c = 0; c < 4; ++c) dst[4 * x + size_t(c)] = uint8_t((v >> (8 * c)) - (a >> (8 * c)));
    }
    std::memcpy(prev_.data(), src, W * 4);
    z_->z.next_in = line_.data();
    z_->z.avail_in = uInt(line_.size());
    if (!deflate_some(Z_NO_FLUSH, error)) return false;
  }
  rows_ += rows;
  return true;
}

bool PngWriter::finish(std::string* error) {
  if (!file_) {
    if (error) *error = "PNG " + path_ + " is not open";
    return false;
  }
  if (rows_ != height_)
    return fail(std::to_string(rows_) + " of " + std::to_string(height_) + " rows written", error);
  z_->z.next_in = nullptr;
  z_->z.avail_in = 0;
  if (!deflate_some(Z_FINISH, error)) return false;
  z_.reset();
  if (!write_chunk("IEND", nullptr, 0, error)) return false;
  const bool closed = std::fclose(file_) == 0;
  file_ = nullptr;
  if (!closed) {
    const std::string why = std::strerror(errno);
    std::error_code ec;
    std::filesystem::remove(path_, ec);
    if (error) *error = "cannot write PNG " + path_ + ": " + why;
    return false;
  }
  return true;
}

}  // namespace pr
