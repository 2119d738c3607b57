// The LAZ layouts this writer produces, ChunkWriter, which hands a chunk's records to the
// layered or the point-wise encoder (laz_writer_impl.h), and the chunk table's entries written
// (ChunkTableReader, chunk_table.cpp, reads them).
#include "engine/io/laz/writer.h"

#include <cstring>

#include "engine/io/laz/chunk_table.h"
#include "laz_encoder.h"
#include "laz_writer_impl.h"

namespace pr::io::laz {

Layout make_layout(int point_format, uint16_t extra_bytes, uint32_t chunk_size) {
  Layout lo;
  lo.coder = 0;
  // LASzip 3.4 revision 3 writes these item versions; readers check the items, not the version.
  lo.version_major = 3;
  lo.version_minor = 4;
  lo.version_revision = 3;
  lo.chunk_size = chunk_size;
  const bool layered = point_format >= 6;
  lo.compressor = layered ? 3 : 2;
  if (layered) {
    lo.items.push_back({kPoint14, 30, 3});
    if (point_format == 7) lo.items.push_back({kRgb14, 6, 3});
    if (point_format == 8) lo.items.push_back({kRgbNir14, 8, 3});
    if (extra_bytes) lo.items.push_back({kByte14, extra_bytes, 3});
  } else {
    lo.items.push_back({kPoint10, 20, 2});
    if (point_format == 1 || point_format == 3) lo.items.push_back({kGpsTime11, 8, 2});
    if (point_format == 2 || point_format == 3) lo.items.push_back({kRgb12, 6, 2});
    if (extra_bytes) lo.items.push_back({kByte, extra_bytes, 2});
  }
  for (const Item& it : lo.items) lo.record_length += it.size;
  return lo;
}

std::vector<uint8_t> layout_vlr(const Layout& lo) {
  std::vector<uint8_t> v(34 + 6 * lo.items.size());
  uint8_t* p = v.data();
  auto put16 = [](uint8_t* q, uint16_t x) { std::memcpy(q, &x, 2); };
  auto put32 = [](uint8_t* q, uint32_t x) { std::memcpy(q, &x, 4); };
  put16(p, lo.compressor);
  put16(p + 2, lo.coder);
  p[4] = lo.version_major;
  p[5] = lo.version_minor;
  put16(p + 6, lo.version_revision);
  put32(p + 8, lo.options);
  put32(p + 12, lo.chunk_size);
  const int64_t none = -1;  // no special EVLRs
  std::memcpy(p + 16, &none, 8);
  std::memcpy(p + 24, &none, 8);
  put16(p + 32, uint16_t(lo.items.size()));
  for (size_t i = 0; i < lo.items.size(); ++i) {
    uint8_t* q = p + 34 + 6 * i;
    put16(q, lo.items[i].type);
    put16(q + 2, lo.items[i].size);
    put16(q + 4, lo.items[i].version);
  }
  return v;
}

struct ChunkWriter::Impl {
  std::unique_ptr<ChunkEncoder> enc;
};

ChunkWriter::ChunkWriter(const Layout& layout) : impl_(std::make_unique<Impl>()) {
  impl_->enc =
      layout.compressor == 3 ? make_layered_encoder(layout) : make_pointwise_encoder(layout);
  impl_->enc->start();
}

ChunkWriter::~ChunkWriter() = default;

void ChunkWriter::start() {
  impl_->enc->start();
}

void ChunkWriter::add(const uint8_t* record) {
  impl_->enc->add(record);
}

uint64_t ChunkWriter::count() const {
  return impl_->enc->count();
}

void ChunkWriter::finish(std::vector<uint8_t>& out) {
  impl_->enc->finish(out);
}

void write_chunk(const Layout& layout, const uint8_t* records, uint64_t count,
                 std::vector<uint8_t>& out) {
  ChunkWriter w(layout);
  for (uint64_t i = 0; i < count; ++i) w.add(records + i * layout.record_length);
  w.finish(out);
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
