#include "engine/io/laz/chunk_table.h"

#include "laz_codec.h"
#include "laz_encoder.h"

namespace pr::io::laz {

struct ChunkTableReader::Impl {
  Decoder dec;
  IntDecoder ic;
  uint32_t points = 0, bytes = 0;  // the last entry: the next one's prediction
};

ChunkTableReader::ChunkTableReader(const uint8_t* data, size_t size)
    : impl_(std::make_unique<Impl>()) {
  impl_->dec.init(data, size);
  impl_->ic.init(32, 2);
}

ChunkTableReader::~ChunkTableReader() = default;

void ChunkTableReader::next(bool variable, uint32_t& points, uint32_t& bytes) {
  Impl& m = *impl_;
  if (variable) {
    m.points = uint32_t(m.ic.decode(m.dec, int32_t(m.points), 0));
    points = m.points;
  }
  m.bytes = uint32_t(m.ic.decode(m.dec, int32_t(m.bytes), 1));
  bytes = m.bytes;
}

bool ChunkTableReader::overrun() const {
  return impl_->dec.overrun();
}

std::vector<uint8_t> encode_chunk_table(const std::vector<uint64_t>& points,
                                        const std::vector<uint64_t>& bytes, bool variable) {
  std::vector<uint8_t> coded;
  Encoder enc;
  enc.init(coded);
  IntEncoder ic;
  ic.init(32, 2);
  for (size_t i = 0; i < bytes.size(); ++i) {
    if (variable) ic.encode(enc, i ? int32_t(points[i - 1]) : 0, int32_t(points[i]), 0);
    ic.encode(enc, i ? int32_t(bytes[i - 1]) : 0, int32_t(bytes[i]), 1);
  }
  enc.done();
  return coded;
}

}  // namespace pr::io::laz
