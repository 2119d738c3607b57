#include "engine/io/laz/chunk_table.h"

#include "laz_codec.h"

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

}  // namespace pr::io::laz
