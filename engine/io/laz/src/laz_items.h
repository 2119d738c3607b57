// The shared parts of the LAZ item decoders (laz_items10.h, laz_items14.h): byte access and small
// arithmetic helpers, the GPS time predictor (GPSTIME11 and POINT14), the RGB and wave packet
// decoders (each shared by a point-wise and a layered item), and the two item interfaces the chunk
// reader calls once per item and point: point-wise items read the chunk's one arithmetic stream,
// layered items their own layers. These three headers are parts of one translation unit,
// laz_chunk.cpp (hence the unnamed namespace): the compiler sees every decoder with its only
// caller and inlines the per-point code exactly as in a single file.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory>

#include "engine/io/base/bytes.h"
#include "engine/io/laz/chunk.h"
#include "laz_codec.h"

namespace pr::io::laz {

namespace {

template <class T>
void put(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

/// Adds a byte difference modulo 256.
inline uint8_t fold(uint32_t v) {
  return uint8_t(v & 0xFF);
}
inline int32_t clamp_u8(int32_t v) {
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

/// A symbol model created on first use.
inline SymbolModel& lazy(SymbolModel& m, uint32_t symbols) {
  if (!m.ready()) m.init(symbols);
  return m;
}

inline uint32_t level(uint32_t n, uint32_t r, uint32_t cap) {
  const uint32_t d = n > r ? n - r : r - n;
  return d < cap ? d : cap;
}

// GPS time coding: a difference is predicted as `multi` times the last difference.
constexpr int32_t kGpsMulti = 500;
constexpr int32_t kGpsMultiMinus = -10;
constexpr int32_t kGpsUnchanged = kGpsMulti - kGpsMultiMinus + 1;  // point-wise v2 only
constexpr int32_t kGpsCodeFull2 = kGpsMulti - kGpsMultiMinus + 2;  // point-wise v2
constexpr int32_t kGpsTotal2 = kGpsMulti - kGpsMultiMinus + 6;
constexpr int32_t kGpsCodeFull3 = kGpsMulti - kGpsMultiMinus + 1;  // layered v3/v4
constexpr int32_t kGpsTotal3 = kGpsMulti - kGpsMultiMinus + 5;

/// The GPS time predictor shared by GPSTIME11 v2 and POINT14: four sequences of times (for
/// interleaved flight lines), each with its last difference.
struct GpsState {
  SymbolModel multi, zero_diff;
  IntDecoder ic;
  uint32_t last = 0, next = 0;
  uint64_t times[4] = {0, 0, 0, 0};
  int32_t diffs[4] = {0, 0, 0, 0};
  int32_t extreme[4] = {0, 0, 0, 0};
  bool layered = false;

  void init(uint64_t first, bool layered_codes) {
    layered = layered_codes;
    multi = SymbolModel();
    zero_diff = SymbolModel();
    ic.init(32, 9);
    last = next = 0;
    for (int i = 0; i < 4; ++i) times[i] = 0, diffs[i] = 0, extreme[i] = 0;
    times[0] = first;
  }

  void full(Decoder& d) {
    next = (next + 1) & 3;
    const int32_t hi = ic.decode(d, int32_t(uint32_t(times[last] >> 32)), 8);
    times[next] = (uint64_t(uint32_t(hi)) << 32) | d.u32();
    last = next;
    diffs[last] = 0;
    extreme[last] = 0;
  }

  void add(int32_t diff) { times[last] += uint64_t(int64_t(diff)); }

  /// One difference coded relative to the last one, `m` times it (contexts 2..6).
  void multiple(Decoder& d, int32_t m) {
    int32_t diff;
    if (m == 0) {
      diff = ic.decode(d, 0, 7);
      if (++extreme[last] > 3) diffs[last] = diff, extreme[last] = 0;
    } else if (m < kGpsMulti) {
      diff = ic.decode(d, int32_t(uint32_t(m) * uint32_t(diffs[last])), m < 10 ? 2 : 3);
    } else if (m == kGpsMulti) {
      diff = ic.decode(d, int32_t(uint32_t(m) * uint32_t(diffs[last])), 4);
      if (++extreme[last] > 3) diffs[last] = diff, extreme[last] = 0;
    } else {
      m = kGpsMulti - m;
      if (m > kGpsMultiMinus) {
        diff = ic.decode(d, int32_t(uint32_t(m) * uint32_t(diffs[last])), 5);
      } else {
        diff = ic.decode(d, int32_t(uint32_t(kGpsMultiMinus) * uint32_t(diffs[last])), 6);
        if (++extreme[last] > 3) diffs[last] = diff, extreme[last] = 0;
      }
    }
    add(diff);
  }

  /// Decodes the next time (into times[last]). A switch to another sequence is followed by
  /// that sequence's own code; valid streams switch once, the bound stops corrupt ones.
  void read(Decoder& d) {
    for (int guard = 0; guard < 8; ++guard) {
      if (diffs[last] == 0) {
        const int32_t m = int32_t(d.symbol(lazy(zero_diff, layered ? 5 : 6)));
        if (!layered) {
          if (m == 0) return;  // v2: unchanged
          if (m == 1) {
            diffs[last] = ic.decode(d, 0, 0);
            add(diffs[last]);
            extreme[last] = 0;
            return;
          }
          if (m == 2) return full(d);
          last = (last + uint32_t(m) - 2) & 3;
        } else {
          if (m == 0) {
            diffs[last] = ic.decode(d, 0, 0);
            add(diffs[last]);
            extreme[last] = 0;
            return;
          }
          if (m == 1) return full(d);
          last = (last + uint32_t(m) - 1) & 3;
        }
      } else {
        const int32_t m =
            int32_t(d.symbol(lazy(multi, uint32_t(layered ? kGpsTotal3 : kGpsTotal2))));
        const int32_t code_full = layered ? kGpsCodeFull3 : kGpsCodeFull2;
        if (m == 1) {
          add(ic.decode(d, diffs[last], 1));
          extreme[last] = 0;
          return;
        }
        if (!layered && m == kGpsUnchanged) return;
        if (m < (layered ? code_full : kGpsUnchanged)) return multiple(d, m);
        if (m == code_full) return full(d);
        last = (last + uint32_t(m - code_full)) & 3;
      }
    }
  }
};

/// Red, green, blue with byte-wise differences (RGB12 v2 and the layered RGB14).
struct RgbModels {
  SymbolModel used, diff[6];
  void reset() {
    used = SymbolModel();
    for (auto& m : diff) m = SymbolModel();
  }
};

inline void decode_rgb(Decoder& d, RgbModels& mo, const uint16_t* last, uint16_t* c) {
  const uint32_t sym = d.symbol(lazy(mo.used, 128));
  auto lo = [](uint16_t v) { return int32_t(v & 0xFF); };
  auto hi = [](uint16_t v) { return int32_t(v >> 8); };
  c[0] = (sym & 1) ? uint16_t(fold(d.symbol(lazy(mo.diff[0], 256)) + uint32_t(lo(last[0]))))
                   : uint16_t(last[0] & 0xFF);
  c[0] |= (sym & 2) ? uint16_t(fold(d.symbol(lazy(mo.diff[1], 256)) + uint32_t(hi(last[0]))) << 8)
                    : uint16_t(last[0] & 0xFF00);
  if (sym & 64) {
    int32_t diff = lo(c[0]) - lo(last[0]);
    if (sym & 4)
      c[1] = fold(d.symbol(lazy(mo.diff[2], 256)) + uint32_t(clamp_u8(diff + lo(last[1]))));
    else
      c[1] = uint16_t(last[1] & 0xFF);
    if (sym & 16) {
      diff = (diff + lo(c[1]) - lo(last[1])) / 2;
      c[2] = fold(d.symbol(lazy(mo.diff[4], 256)) + uint32_t(clamp_u8(diff + lo(last[2]))));
    } else {
      c[2] = uint16_t(last[2] & 0xFF);
    }
    diff = hi(c[0]) - hi(last[0]);
    if (sym & 8)
      c[1] |= uint16_t(
          fold(d.symbol(lazy(mo.diff[3], 256)) + uint32_t(clamp_u8(diff + hi(last[1])))) << 8);
    else
      c[1] |= uint16_t(last[1] & 0xFF00);
    if (sym & 32) {
      diff = (diff + hi(c[1]) - hi(last[1])) / 2;
      c[2] |= uint16_t(
          fold(d.symbol(lazy(mo.diff[5], 256)) + uint32_t(clamp_u8(diff + hi(last[2])))) << 8);
    } else {
      c[2] |= uint16_t(last[2] & 0xFF00);
    }
  } else {
    c[1] = c[2] = c[0];
  }
}

/// The wave packet models (WAVEPACKET13 and, per channel, WAVEPACKET14).
struct WaveModels {
  SymbolModel index, offset_diff[4];
  IntDecoder ic_offset, ic_size, ic_return, ic_xyz;
  uint32_t sym_last = 0;
  int32_t last_diff = 0;
  void reset() {
    index = SymbolModel();
    for (auto& m : offset_diff) m = SymbolModel();
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
  item[0] = uint8_t(d.symbol(lazy(k.index, 256)));
  const uint64_t last_offset = get_le<uint64_t>(l + 1);
  const uint32_t last_size = get_le<uint32_t>(l + 9);
  k.sym_last = d.symbol(lazy(k.offset_diff[k.sym_last], 4));
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
  put(item + 1, offset);
  put(item + 9, uint32_t(k.ic_size.decode(d, int32_t(last_size))));
  put(item + 13, k.ic_return.decode(d, get_le<int32_t>(l + 13)));
  for (uint32_t i = 0; i < 3; ++i)
    put(item + 17 + 4 * i, k.ic_xyz.decode(d, get_le<int32_t>(l + 17 + 4 * i), i));
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
