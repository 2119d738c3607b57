// The shared parts of the LAZ item decoders (laz_items10.h, laz_items14.h): the GPS time, RGB and
// wave packet decoders (each shared by a point-wise and a layered item; their state, shared with
// the encoders, is laz_state.h's), and the two item interfaces the chunk reader calls once per
// item and point: point-wise items read the chunk's one arithmetic stream, layered items their
// own layers. These three headers are parts of one translation unit, laz_chunk.cpp (hence the
// unnamed namespace): the compiler sees every decoder with its only caller and inlines the
// per-point code exactly as in a single file.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/io/laz/chunk.h"
#include "laz_codec.h"
#include "laz_state.h"

namespace pr::io::laz {

namespace {

/// A model of the decoding side, created on first use.
template <uint32_t kSymbols>
inline SymbolModel& lazy(Model<kSymbols>& m) {
  return Decoding::use(m);
}

/// Decodes the next time of `g` (into g.times[g.last]). A switch to another sequence is followed
/// by that sequence's own code; valid streams switch once, the bound stops corrupt ones.
inline void read_gps(GpsState<Decoding>& g, Decoder& d) {
  for (int guard = 0; guard < 8; ++guard) {
    if (g.diffs[g.last] == 0) {
      const uint32_t m = d.symbol(g.zero_diff_model());
      if (!g.layered && m == 0) return;  // v2: unchanged
      if (m == g.zero_base()) return g.set_diff(g.ic.decode(d, 0, 0));
      if (m > g.zero_base() + 1) {
        g.switch_by(m - g.zero_base() - 1);
        continue;
      }
    } else {
      const int32_t m = int32_t(d.symbol(g.multi_model()));
      if (!g.layered && m == kGpsUnchanged) return;
      const int32_t code_full = int32_t(g.code_full());
      if (m < code_full) {
        const GpsCode code = gps_code(m);
        return g.add(code, g.ic.decode(d, g.predict(code), code.context));
      }
      if (m > code_full) {
        g.switch_by(uint32_t(m - code_full));
        continue;
      }
    }
    // A full time: its high half predicted from the last time's, the low half raw.
    const int32_t hi = g.ic.decode(d, int32_t(uint32_t(g.times[g.last] >> 32)), 8);
    return g.start_sequence((uint64_t(uint32_t(hi)) << 32) | d.u32());
  }
}

/// The mirror of encode_rgb (laz_enc_items.h): the symbol, red's bytes as differences to the last
/// red, green's and blue's as corrections of their predictions from red's change.
inline void decode_rgb(Decoder& d, RgbModels<Decoding>& mo, const uint16_t* last, uint16_t* c) {
  const uint32_t sym = d.symbol(lazy(mo.used));
  c[0] = (sym & 1) ? uint16_t(fold(d.symbol(lazy(mo.diff[0])) + uint32_t(last[0] & 0xFF)))
                   : uint16_t(last[0] & 0xFF);
  c[0] |= (sym & 2) ? uint16_t(fold(d.symbol(lazy(mo.diff[1])) + uint32_t(last[0] >> 8)) << 8)
                    : uint16_t(last[0] & 0xFF00);
  if (!(sym & 64)) {
    c[1] = c[2] = c[0];
    return;
  }
  c[1] = (sym & 4)
             ? uint16_t(fold(d.symbol(lazy(mo.diff[2])) + uint32_t(green_prediction(c, last, 0))))
             : uint16_t(last[1] & 0xFF);
  c[2] = (sym & 16)
             ? uint16_t(fold(d.symbol(lazy(mo.diff[4])) + uint32_t(blue_prediction(c, last, 0))))
             : uint16_t(last[2] & 0xFF);
  c[1] |=
      (sym & 8)
          ? uint16_t(fold(d.symbol(lazy(mo.diff[3])) + uint32_t(green_prediction(c, last, 8))) << 8)
          : uint16_t(last[1] & 0xFF00);
  c[2] |=
      (sym & 32)
          ? uint16_t(fold(d.symbol(lazy(mo.diff[5])) + uint32_t(blue_prediction(c, last, 8))) << 8)
          : uint16_t(last[2] & 0xFF00);
}

/// The wave packet models (WAVEPACKET13 and, per channel, WAVEPACKET14).
struct WaveModels {
  Model<256> index;
  Model<4> offset_diff[4];
  IntDecoder ic_offset, ic_size, ic_return, ic_xyz;
  uint32_t sym_last = 0;
  int32_t last_diff = 0;
  void reset() {
    Decoding::reset(index);
    for (auto& m : offset_diff) Decoding::reset(m);
    ic_offset.init(32, 1);
    ic_size.init(32, 1);
    ic_return.init(32, 1);
    ic_xyz.init(32, 3);
    sym_last = 0;
    last_diff = 0;
  }
};

/// Descriptor index, byte offset (same, after the last packet, a 32-bit difference or raw),
/// packet size, return point and x/y/z step, each predicted from the last packet `l` (29 bytes).
inline void decode_wave(Decoder& d, WaveModels& k, uint8_t* l) {
  uint8_t item[29];
  item[0] = uint8_t(d.symbol(lazy(k.index)));
  const uint64_t last_offset = get_le<uint64_t>(l + 1);
  const uint32_t last_size = get_le<uint32_t>(l + 9);
  k.sym_last = d.symbol(lazy(k.offset_diff[k.sym_last]));
  uint64_t offset;
  if (k.sym_last == 0) {
    offset = last_offset;
  } else if (k.sym_last == 1) {
    offset = last_offset + last_size;
  } else if (k.sym_last == 2) {
    k.last_diff = k.ic_offset.decode(d, k.last_diff);
    offset = last_offset + uint64_t(int64_t(k.last_diff));
  } else {
    offset = d.u64();
  }
  put_le(item + 1, offset);
  put_le(item + 9, uint32_t(k.ic_size.decode(d, int32_t(last_size))));
  put_le(item + 13, k.ic_return.decode(d, get_le<int32_t>(l + 13)));
  for (uint32_t i = 0; i < 3; ++i)
    put_le(item + 17 + 4 * i, k.ic_xyz.decode(d, get_le<int32_t>(l + 17 + 4 * i), i));
  std::memcpy(l, item, 29);
}

// ---------------------------------------------------------------- point-wise items

/// An item of a point-wise chunk: init() takes the chunk's first point (stored raw), read() decodes
/// the item of each further point from the chunk's one stream.
struct PwItem {
  virtual ~PwItem() = default;
  virtual void init(const uint8_t* raw) = 0;
  virtual void read(Decoder& d, uint8_t* out) = 0;
};

// ---------------------------------------------------------------- layered items

/// One layer of a layered chunk: its own arithmetic decoder over its own bytes. An empty layer
/// means the field never changes within the chunk.
struct Layer {
  Decoder d;
  bool changed = false;
  void set(const uint8_t* p, uint32_t n) {
    changed = n != 0;
    // Initialised even when empty: a layer read regardless (POINT14's first) then reads zeros,
    // not the state of an earlier chunk.
    d.init(p, n);
  }
  bool overrun() const { return changed && d.overrun(); }
};

struct LyItem {
  virtual ~LyItem() = default;
  virtual size_t layers() const = 0;
  virtual Layer* layer(size_t i) = 0;
  /// The SkipField bit of the field layer `i` holds, 0 where it may not be skipped.
  virtual uint32_t field(size_t) const { return 0; }
  /// The chunk's first point: `context` is its scanner channel (set by POINT14, read by others).
  virtual void init(const uint8_t* raw, uint32_t& context) = 0;
  virtual void read(uint8_t* out, uint32_t& context) = 0;
};

}  // namespace

}  // namespace pr::io::laz
