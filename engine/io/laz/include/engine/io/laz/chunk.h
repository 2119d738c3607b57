// LAZ chunks: the item layout of a LAZ file's points and a reader that decodes one chunk at a
// time into uncompressed LAS point records. Chunks are independent (every model starts afresh and
// the first point of a chunk is stored raw), so readers on different threads decode different
// chunks of the same memory map.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pr::io::laz {

/// Item types of the LASzip VLR.
enum ItemType : uint16_t {
  kByte = 0,
  kPoint10 = 6,
  kGpsTime11 = 7,
  kRgb12 = 8,
  kWavePacket13 = 9,
  kPoint14 = 10,
  kRgb14 = 11,
  kRgbNir14 = 12,
  kWavePacket14 = 13,
  kByte14 = 14,
};

struct Item {
  uint16_t type = 0, size = 0, version = 0;
};

/// What the LASzip VLR says about the points.
struct Layout {
  uint16_t compressor = 0;  ///< 1: point-wise, one stream; 2: point-wise chunked; 3: layered
  uint16_t coder = 0;       ///< 0: arithmetic
  uint8_t version_major = 0, version_minor = 0;
  uint16_t version_revision = 0;
  uint32_t options = 0;
  uint32_t chunk_size = 0;  ///< points per chunk; 0xFFFFFFFF: variable (from the chunk table)
  std::vector<Item> items;
  size_t record_length = 0;  ///< the sum of the item sizes
};

/// Item name as LASzip calls it ("POINT10", "RGB14", ...).
std::string item_name(uint16_t type);

/// Parses the LASzip VLR's payload. False with a one-line reason on malformed data.
bool parse_layout(const uint8_t* p, size_t n, Layout& out, std::string* why);

/// True when this decoder reads every item of `layout` (compressor, item types and versions);
/// else a one-line reason naming the first item it does not read.
bool supported(const Layout& layout, std::string* why);

/// Fields a reader may leave undecoded (LASzip's selective decompression), for callers that do
/// not keep them. A layered chunk holds each in its own layer, whose bytes are then not read: the
/// records keep the chunk's first point's value. A point-wise chunk, one stream, decodes them all.
enum SkipField : uint32_t {
  kSkipFlags = 1,        ///< POINT14's classification flags, scan direction, edge of flight line
  kSkipScanAngle = 2,    ///< POINT14's scan angle
  kSkipUserData = 4,     ///< POINT14's user data
  kSkipNir = 8,          ///< RGBNIR14's NIR
  kSkipWavePacket = 16,  ///< WAVEPACKET14
};

class ChunkReader {
 public:
  /// A reader of `layout`'s chunks that does not decode the `skip` fields (SkipField bits).
  explicit ChunkReader(const Layout& layout, uint32_t skip = 0);
  ~ChunkReader();
  ChunkReader(const ChunkReader&) = delete;
  ChunkReader& operator=(const ChunkReader&) = delete;

  /// Starts a chunk of `count` points stored in [data, data + size). False (with a reason) when
  /// the chunk's own header (layer sizes) does not fit.
  bool start(const uint8_t* data, size_t size, uint64_t count, std::string* why);
  /// True when the last start() failed because the bytes end before the chunk's first point, its
  /// header or a layer does: a chunk cut short, as a file that ends inside it gives.
  bool cut() const;

  /// Decodes the next point of the chunk into `record` (layout.record_length bytes).
  void next(uint8_t* record);

  /// True once any decoder of the chunk read past its bytes: the chunk is truncated or corrupt.
  bool overrun();

  /// Bytes of the chunk read so far: once every point is decoded, the chunk's size (a layered
  /// chunk's header names its layers' sizes; a point-wise chunk's arithmetic coder ends by writing
  /// the bytes its decoder reads last). Walks the chunks of a file without a chunk table.
  size_t consumed() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pr::io::laz
