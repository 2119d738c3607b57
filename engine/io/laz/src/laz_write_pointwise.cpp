// Point-wise LAZ chunks (compressor 2) for point formats 0-3 with extra bytes: the chunk's first
// record raw, then one arithmetic stream holding every further point's items in item order
// (POINT10, GPSTIME11, RGB12, BYTE, all version 2), ended by Encoder::done() so that the decoder's
// look-ahead stays inside the chunk. The item set is a template parameter: the per-point path
// calls each encoder directly, without a virtual call per item, and allocates nothing.
#include <cstring>
#include <stdexcept>
#include <string>

#include "laz_enc_items10.h"
#include "laz_writer_impl.h"

namespace pr::io::laz {

namespace {

/// Where each item lies in the record; the layout's items must be POINT10 v2, then optionally
/// GPSTIME11 v2, RGB12 v2 and BYTE v2, in that order (what make_layout() gives for formats 0-3).
struct PwOffsets {
  size_t gps = 0, rgb = 0, bytes = 0, extra = 0;
  bool has_gps = false, has_rgb = false;
};

PwOffsets pointwise_offsets(const Layout& lo) {
  auto refuse = [](const std::string& why) {
    throw std::invalid_argument("point-wise LAZ encoder: " + why);
  };
  if (lo.compressor != 2) refuse("compressor " + std::to_string(lo.compressor) + " is not 2");
  PwOffsets o;
  size_t at = 0, i = 0;
  const auto& items = lo.items;
  auto next_is = [&](uint16_t type, uint16_t size) {
    if (i >= items.size() || items[i].type != type) return false;
    if (items[i].version != 2) refuse(item_name(type) + " version is not 2");
    if (size && items[i].size != size)
      refuse(item_name(type) + " size is not " + std::to_string(size));
    return true;
  };
  if (!next_is(kPoint10, 20)) refuse("the first item is not POINT10");
  at += 20, ++i;
  if (next_is(kGpsTime11, 8)) o.has_gps = true, o.gps = at, at += 8, ++i;
  if (next_is(kRgb12, 6)) o.has_rgb = true, o.rgb = at, at += 6, ++i;
  if (next_is(kByte, 0)) o.bytes = at, o.extra = items[i].size, at += o.extra, ++i;
  if (i != items.size()) refuse("item " + item_name(items[i].type) + " is not written");
  if (at != lo.record_length) refuse("the record length is not the sum of the item sizes");
  return o;
}

template <bool kGps, bool kRgb, bool kExtra>
class PointwiseEncoder final : public ChunkEncoder {
 public:
  PointwiseEncoder(const Layout& lo, const PwOffsets& o)
      : rec_(lo.record_length), o_(o), bytes_(o.extra), first_(lo.record_length) {}

  void start() override { count_ = 0; }

  void add(const uint8_t* record) override {
    if (count_++ == 0) {
      std::memcpy(first_.data(), record, rec_);
      p10_.start(record);
      if constexpr (kGps) gps_.start(record + o_.gps);
      if constexpr (kRgb) rgb_.start(record + o_.rgb);
      if constexpr (kExtra) bytes_.start(record + o_.bytes);
      enc_.init(stream_);
      return;
    }
    p10_.write(enc_, record);
    if constexpr (kGps) gps_.write(enc_, record + o_.gps);
    if constexpr (kRgb) rgb_.write(enc_, record + o_.rgb);
    if constexpr (kExtra) bytes_.write(enc_, record + o_.bytes);
  }

  uint64_t count() const override { return count_; }

  void finish(std::vector<uint8_t>& out) override {
    if (count_ == 0) return;
    enc_.done();
    out.insert(out.end(), first_.begin(), first_.end());
    out.insert(out.end(), stream_.begin(), stream_.end());
    count_ = 0;
  }

 private:
  size_t rec_;
  PwOffsets o_;
  Point10Enc p10_;
  Gps11Enc gps_;
  Rgb12Enc rgb_;
  ByteEnc bytes_;
  Encoder enc_;
  std::vector<uint8_t> first_, stream_;
  uint64_t count_ = 0;
};

template <bool kGps, bool kRgb>
std::unique_ptr<ChunkEncoder> with_extra(const Layout& lo, const PwOffsets& o) {
  if (o.extra) return std::make_unique<PointwiseEncoder<kGps, kRgb, true>>(lo, o);
  return std::make_unique<PointwiseEncoder<kGps, kRgb, false>>(lo, o);
}

}  // namespace

std::unique_ptr<ChunkEncoder> make_pointwise_encoder(const Layout& layout) {
  const PwOffsets o = pointwise_offsets(layout);
  if (o.has_gps)
    return o.has_rgb ? with_extra<true, true>(layout, o) : with_extra<true, false>(layout, o);
  return o.has_rgb ? with_extra<false, true>(layout, o) : with_extra<false, false>(layout, o);
}

}  // namespace pr::io::laz
