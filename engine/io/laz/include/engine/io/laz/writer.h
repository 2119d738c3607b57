// LAZ chunks written: the mirror of laz_chunk.h. A ChunkWriter takes uncompressed LAS point
// records one at a time and returns a chunk that ChunkReader (and LASzip, laz-rs) decode back to
// the same records byte for byte. Layered chunks (compressor 3: POINT14 v3, RGB14 v3, RGBNIR14 v3,
// BYTE14 v3) for point formats 6-8, point-wise chunks (compressor 2: POINT10 v2, GPSTIME11 v2,
// RGB12 v2, BYTE v2) for formats 0-3. Chunks are independent: writers on different threads encode
// different chunks.
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/io/laz/chunk.h"

namespace pr::io::laz {

/// The LASzip layout that writes LAS point format `point_format` (0-3 point-wise v2; 6-8 layered
/// v3) with `extra_bytes` bytes after the standard fields of each record, chunked with a variable
/// chunk size (chunk_size 0xFFFFFFFF, the chunk table holds each chunk's count) or a fixed one.
Layout make_layout(int point_format, uint16_t extra_bytes, uint32_t chunk_size = 0xFFFFFFFFu);

/// The LASzip VLR payload (user "laszip encoded", record 22204) of `layout`: what parse_layout()
/// reads back.
std::vector<uint8_t> layout_vlr(const Layout& layout);

class ChunkWriter {
 public:
  explicit ChunkWriter(const Layout& layout);
  ~ChunkWriter();
  ChunkWriter(const ChunkWriter&) = delete;
  ChunkWriter& operator=(const ChunkWriter&) = delete;

  /// Starts a chunk (models afresh): after every finish() (the constructor starts the first).
  void start();
  /// Appends one record (layout.record_length bytes).
  void add(const uint8_t* record);
  /// Points added since start().
  uint64_t count() const;
  /// Appends the chunk's bytes to `out`: what ChunkReader::start(data, size, count()) reads.
  void finish(std::vector<uint8_t>& out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Encodes `count` records (layout.record_length bytes each, contiguous) as one chunk appended to
/// `out`: ChunkWriter's start/add/finish in one call.
void write_chunk(const Layout& layout, const uint8_t* records, uint64_t count,
                 std::vector<uint8_t>& out);

}  // namespace pr::io::laz
