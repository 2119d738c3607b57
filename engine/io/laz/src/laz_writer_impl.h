// The two kinds of chunk encoder behind ChunkWriter (laz_writer.h): layered chunks
// (laz_write_layered.cpp) and point-wise chunks (laz_write_pointwise.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/io/laz/chunk.h"

namespace pr::io::laz {

class ChunkEncoder {
 public:
  virtual ~ChunkEncoder() = default;
  /// Starts a chunk: every model afresh, the next record is the chunk's first (stored raw).
  virtual void start() = 0;
  virtual void add(const uint8_t* record) = 0;
  virtual uint64_t count() const = 0;
  /// Appends the chunk's bytes to `out` (a point-wise chunk: the first record raw, then the one
  /// arithmetic stream; a layered chunk: the first record raw, the point count, every layer's
  /// size, then the layers).
  virtual void finish(std::vector<uint8_t>& out) = 0;
};

/// Compressor 3: POINT14 v3, RGB14 v3, RGBNIR14 v3, BYTE14 v3 items.
std::unique_ptr<ChunkEncoder> make_layered_encoder(const Layout& layout);
/// Compressor 2: POINT10 v2, GPSTIME11 v2, RGB12 v2, BYTE v2 items.
std::unique_ptr<ChunkEncoder> make_pointwise_encoder(const Layout& layout);

}  // namespace pr::io::laz
