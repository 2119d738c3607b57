// Layered LAZ chunks (compressor 3) for LAS 1.4 point formats 6, 7 and 8 with extra bytes:
// POINT14, then RGB14 or RGBNIR14, then BYTE14, all version 3. A chunk is the first record raw,
// the point count (u32), the size of every layer (u32 each, items in order, 0 for a layer left
// out), then the layers' bytes in the same order: what ChunkReader::start reads.
//
// The encoder is a template over the items a format holds, so that a point's path through the
// items is one inlined body, as the decoders' is.
#include <stdexcept>
#include <string>

#include "laz_enc_items14.h"
#include "laz_writer_impl.h"

namespace pr::io::laz {

namespace {

/// Colour items of a layered layout.
enum class Color { kNone, kRgb, kRgbNir };

template <Color kColor, bool kBytes>
class LayeredEncoder final : public ChunkEncoder {
 public:
  explicit LayeredEncoder(uint16_t extra)
      : rgb_(kColor == Color::kRgbNir), bytes_(kBytes ? extra : 0) {
    color_size_ = kColor == Color::kNone ? 0 : kColor == Color::kRgb ? 6 : 8;
    record_length_ = 30 + color_size_ + (kBytes ? extra : 0);
    first_.resize(record_length_);
  }

  void start() override { count_ = 0; }

  void add(const uint8_t* record) override {
    // The items hand the scanner channel along: POINT14 sets it (version 3: only on the point
    // that switches channel, 0 on the others, as the decoders expect it).
    uint32_t context = 0;
    if (count_ == 0) {
      std::memcpy(first_.data(), record, record_length_);
      point_.init(record, context);
      if constexpr (kColor != Color::kNone) rgb_.init(record + 30, context);
      if constexpr (kBytes) bytes_.init(record + 30 + color_size_, context);
    } else {
      point_.write(record, context);
      if constexpr (kColor != Color::kNone) rgb_.write(record + 30, context);
      if constexpr (kBytes) bytes_.write(record + 30 + color_size_, context);
    }
    ++count_;
  }

  uint64_t count() const override { return count_; }

  void finish(std::vector<uint8_t>& out) override {
    if (count_ == 0) return;  // no points, no chunk
    out.insert(out.end(), first_.begin(), first_.end());
    put_u32(out, uint32_t(count_));
    for (EncLayer& l : point_.lay) put_u32(out, l.finish());
    if constexpr (kColor != Color::kNone) {
      put_u32(out, rgb_.lay[0].finish());
      if constexpr (kColor == Color::kRgbNir) put_u32(out, rgb_.lay[1].finish());
    }
    if constexpr (kBytes)
      for (EncLayer& l : bytes_.lay) put_u32(out, l.finish());
    for (const EncLayer& l : point_.lay) l.append(out);
    if constexpr (kColor != Color::kNone) {
      rgb_.lay[0].append(out);
      if constexpr (kColor == Color::kRgbNir) rgb_.lay[1].append(out);
    }
    if constexpr (kBytes)
      for (const EncLayer& l : bytes_.lay) l.append(out);
    count_ = 0;
  }

 private:
  static void put_u32(std::vector<uint8_t>& out, uint32_t v) {
    const uint8_t b[4] = {uint8_t(v), uint8_t(v >> 8), uint8_t(v >> 16), uint8_t(v >> 24)};
    out.insert(out.end(), b, b + 4);
  }

  Point14Enc point_;
  Rgb14Enc rgb_;
  Byte14Enc bytes_;
  std::vector<uint8_t> first_;
  size_t color_size_ = 0, record_length_ = 0;
  uint64_t count_ = 0;
};

template <Color kColor>
std::unique_ptr<ChunkEncoder> with_bytes(uint16_t extra) {
  if (extra) return std::make_unique<LayeredEncoder<kColor, true>>(extra);
  return std::make_unique<LayeredEncoder<kColor, false>>(extra);
}

}  // namespace

std::unique_ptr<ChunkEncoder> make_layered_encoder(const Layout& layout) {
  // The layouts make_layout() gives: POINT14, an optional RGB14 or RGBNIR14, an optional BYTE14,
  // each version 3.
  const auto& it = layout.items;
  size_t i = 0;
  bool ok = !it.empty() && it[0].type == kPoint14 && it[0].size == 30;
  Color color = Color::kNone;
  uint16_t extra = 0;
  if (ok) ++i;
  if (ok && i < it.size() && (it[i].type == kRgb14 || it[i].type == kRgbNir14)) {
    color = it[i].type == kRgb14 ? Color::kRgb : Color::kRgbNir;
    ok = it[i].size == (color == Color::kRgb ? 6 : 8);
    ++i;
  }
  if (ok && i < it.size() && it[i].type == kByte14) {
    extra = it[i].size;
    ok = extra > 0;
    ++i;
  }
  ok = ok && i == it.size() && layout.compressor == 3;
  for (const Item& item : it) ok = ok && item.version == 3;
  if (!ok)
    throw std::invalid_argument(
        "the layered LAZ encoder writes POINT14, RGB14 or RGBNIR14 and BYTE14 version 3 items "
        "only");
  switch (color) {
    case Color::kNone:
      return with_bytes<Color::kNone>(extra);
    case Color::kRgb:
      return with_bytes<Color::kRgb>(extra);
    default:
      return with_bytes<Color::kRgbNir>(extra);
  }
}

}  // namespace pr::io::laz
