// The LAZ item decoders (LASzip's point-wise items POINT10, GPSTIME11, RGB12, BYTE version 2 and
// the layered LAS 1.4 items POINT14, RGB14, RGBNIR14, BYTE14, WAVEPACKET14 versions 3 and 4),
// written from the format's description: each item predicts its fields from the previous point
// (per return kind, per scanner channel) and codes the differences with adaptive models.
#include "io/laz_chunk.h"

#include <array>
#include <cstring>

#include "io/laz_codec.h"

namespace pr::io::laz {

namespace {

template <class T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
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

// Return-kind contexts of the point-wise POINT10 (return number r, number of returns n, 3 bits
// each): m maps (n, r) to 16 classes, l is the distance |n - r| (level of penetration).
constexpr uint8_t kReturnMap[8][8] = {
    {15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
    {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
    {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
    {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};

// POINT14 (4-bit r and n): 6 return classes.
constexpr uint8_t kReturnMap6[16][16] = {{0, 1, 2, 3, 4, 5, 3, 4, 4, 5, 5, 5, 5, 5, 5, 5},
                                         {1, 0, 1, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3},
                                         {2, 1, 2, 4, 4, 4, 4, 4, 4, 4, 4, 3, 3, 3, 3, 3},
                                         {3, 3, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
                                         {4, 3, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
                                         {5, 3, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4},
                                         {3, 3, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4, 4},
                                         {4, 3, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4, 4},
                                         {4, 3, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4, 4},
                                         {5, 3, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4, 4},
                                         {5, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 4, 4, 4, 4, 4},
                                         {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 4, 4, 4},
                                         {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4, 4},
                                         {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5, 4},
                                         {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5, 5},
                                         {5, 3, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 5, 5}};

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

// ---------------------------------------------------------------- point-wise items

struct PwItem {
  virtual ~PwItem() = default;
  virtual void init(const uint8_t* raw) = 0;
  virtual void read(Decoder& d, uint8_t* out) = 0;
};

/// POINT10 v2: x, y, z, intensity, return bits, classification, scan angle rank, user data,
/// point source id (20 bytes).
struct Point10v2 final : PwItem {
  int32_t x = 0, y = 0, z = 0;
  uint16_t intensity = 0, psid = 0;
  uint8_t bits = 0, cls = 0, user = 0;
  uint8_t angle = 0;
  uint16_t last_intensity[16] = {};
  int32_t last_height[8] = {};
  Median5 mx[16], my[16];
  SymbolModel changed, angle_m[2];
  std::vector<SymbolModel> bit_m, cls_m, user_m;
  IntDecoder ic_intensity, ic_psid, ic_dx, ic_dy, ic_z;

  void init(const uint8_t* raw) override {
    x = get<int32_t>(raw);
    y = get<int32_t>(raw + 4);
    z = get<int32_t>(raw + 8);
    intensity = 0;
    bits = raw[14];
    cls = raw[15];
    angle = raw[16];
    user = raw[17];
    psid = get<uint16_t>(raw + 18);
    for (auto& v : last_intensity) v = 0;
    for (auto& v : last_height) v = 0;
    for (auto& m : mx) m = Median5();
    for (auto& m : my) m = Median5();
    changed = SymbolModel();
    angle_m[0] = angle_m[1] = SymbolModel();
    bit_m.assign(256, SymbolModel());
    cls_m.assign(256, SymbolModel());
    user_m.assign(256, SymbolModel());
    ic_intensity.init(16, 4);
    ic_psid.init(16, 1);
    ic_dx.init(32, 2);
    ic_dy.init(32, 22);
    ic_z.init(32, 20);
  }

  void read(Decoder& d, uint8_t* out) override {
    const uint32_t changed_values = d.symbol(lazy(changed, 64));
    if (changed_values) {
      if (changed_values & 32) bits = uint8_t(d.symbol(lazy(bit_m[bits], 256)));
    }
    const uint32_t r = bits & 7u, n = (bits >> 3) & 7u;
    const uint32_t m = kReturnMap[n][r], l = level(n, r, 7);
    if (changed_values) {
      if (changed_values & 16) {
        intensity = uint16_t(ic_intensity.decode(d, last_intensity[m], m < 3 ? m : 3));
        last_intensity[m] = intensity;
      } else {
        intensity = last_intensity[m];
      }
      if (changed_values & 8) cls = uint8_t(d.symbol(lazy(cls_m[cls], 256)));
      if (changed_values & 4) angle = fold(angle + d.symbol(lazy(angle_m[(bits >> 6) & 1u], 256)));
      if (changed_values & 2) user = uint8_t(d.symbol(lazy(user_m[user], 256)));
      if (changed_values & 1) psid = uint16_t(ic_psid.decode(d, psid));
    } else {
      intensity = last_intensity[m];
    }
    int32_t diff = ic_dx.decode(d, mx[m].get(), n == 1);
    x = int32_t(uint32_t(x) + uint32_t(diff));
    mx[m].add(diff);
    uint32_t k = ic_dx.k();
    diff = ic_dy.decode(d, my[m].get(), (n == 1) + (k < 20 ? (k & ~1u) : 20));
    y = int32_t(uint32_t(y) + uint32_t(diff));
    my[m].add(diff);
    k = (ic_dx.k() + ic_dy.k()) / 2;
    z = ic_z.decode(d, last_height[l], (n == 1) + (k < 18 ? (k & ~1u) : 18));
    last_height[l] = z;
    put(out, x);
    put(out + 4, y);
    put(out + 8, z);
    put(out + 12, intensity);
    out[14] = bits;
    out[15] = cls;
    out[16] = angle;
    out[17] = user;
    put(out + 18, psid);
  }
};

/// GPSTIME11 v2: the GPS time (double, coded as its 64 bits).
struct Gps11v2 final : PwItem {
  GpsState g;
  void init(const uint8_t* raw) override { g.init(get<uint64_t>(raw), false); }
  void read(Decoder& d, uint8_t* out) override {
    g.read(d);
    put(out, g.times[g.last]);
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

struct Rgb12v2 final : PwItem {
  uint16_t last[3] = {};
  RgbModels mo;
  void init(const uint8_t* raw) override {
    std::memcpy(last, raw, 6);
    mo.reset();
  }
  void read(Decoder& d, uint8_t* out) override {
    uint16_t c[3];
    decode_rgb(d, mo, last, c);
    std::memcpy(last, c, 6);
    std::memcpy(out, c, 6);
  }
};

/// BYTE v2 (extra bytes): each byte as a difference to the previous point's byte.
struct Byte2 final : PwItem {
  explicit Byte2(size_t n) : last(n), mo(n) {}
  std::vector<uint8_t> last;
  std::vector<SymbolModel> mo;
  void init(const uint8_t* raw) override {
    std::memcpy(last.data(), raw, last.size());
    for (auto& m : mo) m = SymbolModel();
  }
  void read(Decoder& d, uint8_t* out) override {
    for (size_t i = 0; i < last.size(); ++i) {
      last[i] = fold(last[i] + d.symbol(lazy(mo[i], 256)));
      out[i] = last[i];
    }
  }
};

// ---------------------------------------------------------------- layered items

/// One layer of a layered chunk: its own arithmetic decoder over its own bytes. An empty layer
/// means the field never changes within the chunk.
struct Layer {
  Decoder d;
  bool changed = false;
  void set(const uint8_t* p, uint32_t n) {
    changed = n != 0;
    if (changed) d.init(p, n);
  }
  bool overrun() const { return changed && d.overrun(); }
};

struct LyItem {
  virtual ~LyItem() = default;
  virtual size_t layers() const = 0;
  virtual Layer* layer(size_t i) = 0;
  /// The chunk's first point: `context` is its scanner channel (set by POINT14, read by others).
  virtual void init(const uint8_t* raw, uint32_t& context) = 0;
  virtual void read(uint8_t* out, uint32_t& context) = 0;
};

/// The state of a LAS 1.4 point as POINT14 predicts it.
struct P14 {
  int32_t x = 0, y = 0, z = 0;
  uint16_t intensity = 0, psid = 0;
  uint8_t ret = 0, nret = 0, class_flags = 0, channel = 0, scan_dir = 0, edge = 0, cls = 0,
          user = 0;
  int16_t angle = 0;
  uint64_t gps = 0;
  bool gps_change = false;

  void unpack(const uint8_t* r) {
    x = get<int32_t>(r);
    y = get<int32_t>(r + 4);
    z = get<int32_t>(r + 8);
    intensity = get<uint16_t>(r + 12);
    ret = r[14] & 15;
    nret = r[14] >> 4;
    class_flags = r[15] & 15;
    channel = (r[15] >> 4) & 3;
    scan_dir = (r[15] >> 6) & 1;
    edge = r[15] >> 7;
    cls = r[16];
    user = r[17];
    angle = get<int16_t>(r + 18);
    psid = get<uint16_t>(r + 20);
    gps = get<uint64_t>(r + 22);
  }
  void pack(uint8_t* r) const {
    put(r, x);
    put(r + 4, y);
    put(r + 8, z);
    put(r + 12, intensity);
    r[14] = uint8_t(ret | (nret << 4));
    r[15] = uint8_t(class_flags | (channel << 4) | (scan_dir << 6) | (edge << 7));
    r[16] = cls;
    r[17] = user;
    put(r + 18, angle);
    put(r + 20, psid);
    put(r + 22, gps);
  }
};

/// POINT14 v3/v4: nine layers (returns+XY, Z, classification, flags, intensity, scan angle,
/// user data, point source, GPS time) and a context per scanner channel.
struct Point14 final : LyItem {
  explicit Point14(int v) : version(v) {}
  int version;
  enum { kXY, kZ, kClass, kFlags, kIntensity, kAngle, kUser, kSource, kGps, kLayers };
  Layer lay[kLayers];

  struct Ctx {
    bool unused = true;
    P14 last;
    SymbolModel changed[8], channel_m, nret_m[16], ret_m[16], ret_gps_same;
    IntDecoder ic_dx, ic_dy, ic_z, ic_intensity, ic_angle, ic_psid;
    Median5 mx[12], my[12];
    int32_t last_z[8] = {};
    uint16_t last_intensity[8] = {};
    SymbolModel cls_m[64], flags_m[64], user_m[64];
    GpsState gps;
  };
  Ctx ctx[4];
  uint32_t cur = 0;

  size_t layers() const override { return kLayers; }
  Layer* layer(size_t i) override { return &lay[i]; }

  void create(uint32_t c, const P14& item) {
    Ctx& k = ctx[c];
    for (auto& m : k.changed) m = SymbolModel();
    k.channel_m = SymbolModel();
    for (auto& m : k.nret_m) m = SymbolModel();
    for (auto& m : k.ret_m) m = SymbolModel();
    k.ret_gps_same = SymbolModel();
    k.ic_dx.init(32, 2);
    k.ic_dy.init(32, 22);
    k.ic_z.init(32, 20);
    k.ic_intensity.init(16, 4);
    k.ic_angle.init(16, 2);
    k.ic_psid.init(16, 1);
    for (auto& m : k.mx) m = Median5();
    for (auto& m : k.my) m = Median5();
    for (auto& v : k.last_z) v = item.z;
    for (auto& v : k.last_intensity) v = item.intensity;
    for (int i = 0; i < 64; ++i) k.cls_m[i] = k.flags_m[i] = k.user_m[i] = SymbolModel();
    k.gps.init(item.gps, true);
    k.last = item;
    k.last.gps_change = false;
    k.unused = false;
  }

  void init(const uint8_t* raw, uint32_t& context) override {
    for (auto& k : ctx) k.unused = true;
    P14 p;
    p.unpack(raw);
    cur = p.channel;
    context = cur;
    create(cur, p);
  }

  void read(uint8_t* out, uint32_t& context) override {
    Decoder& dxy = lay[kXY].d;
    P14* last = &ctx[cur].last;
    uint32_t lpr = (last->ret == 1 ? 1u : 0u) + (last->ret >= last->nret ? 2u : 0u) +
                   (last->gps_change ? 4u : 0u);
    const uint32_t changed_values = dxy.symbol(lazy(ctx[cur].changed[lpr], 128));
    if (changed_values & 64) {
      const uint32_t diff = dxy.symbol(lazy(ctx[cur].channel_m, 3));
      const uint32_t channel = (cur + diff + 1) % 4;
      if (ctx[channel].unused) create(channel, ctx[cur].last);
      cur = channel;
      last = &ctx[cur].last;
      last->channel = uint8_t(channel);
      context = cur;
    } else if (version >= 4) {
      context = cur;
    }
    // Version 3 hands the other items the channel only on the point where it changes, channel 0
    // (the caller's reset) on the others, as LASzip 3 does; version 4 hands it on every point.
    Ctx& k = ctx[cur];
    const bool source_change = changed_values & 32;
    const bool gps_change = changed_values & 16;
    const bool angle_change = changed_values & 8;
    const uint32_t last_n = last->nret, last_r = last->ret;
    uint32_t n = last_n;
    if (changed_values & 4) {
      n = dxy.symbol(lazy(k.nret_m[last_n], 16));
      last->nret = uint8_t(n);
    }
    uint32_t r;
    switch (changed_values & 3) {
      case 0:
        r = last_r;
        break;
      case 1:
        r = (last_r + 1) % 16;
        break;
      case 2:
        r = (last_r + 15) % 16;
        break;
      default:
        if (gps_change)
          r = dxy.symbol(lazy(k.ret_m[last_r], 16));
        else
          r = (last_r + dxy.symbol(lazy(k.ret_gps_same, 13)) + 2) % 16;
    }
    last->ret = uint8_t(r);
    const uint32_t m = kReturnMap6[n][r], l = level(n, r, 7);
    const uint32_t cpr = (r == 1 ? 2u : 0u) + (r >= n ? 1u : 0u);
    const uint32_t mi = (m << 1) | (gps_change ? 1u : 0u);
    int32_t diff = k.ic_dx.decode(dxy, k.mx[mi].get(), n == 1);
    last->x = int32_t(uint32_t(last->x) + uint32_t(diff));
    k.mx[mi].add(diff);
    uint32_t kb = k.ic_dx.k();
    diff = k.ic_dy.decode(dxy, k.my[mi].get(), (n == 1) + (kb < 20 ? (kb & ~1u) : 20));
    last->y = int32_t(uint32_t(last->y) + uint32_t(diff));
    k.my[mi].add(diff);
    if (lay[kZ].changed) {
      kb = (k.ic_dx.k() + k.ic_dy.k()) / 2;
      last->z = k.ic_z.decode(lay[kZ].d, k.last_z[l], (n == 1) + (kb < 18 ? (kb & ~1u) : 18));
      k.last_z[l] = last->z;
    }
    if (lay[kClass].changed) {
      const uint32_t ccc = ((last->cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u);
      last->cls = uint8_t(lay[kClass].d.symbol(lazy(k.cls_m[ccc], 256)));
    }
    if (lay[kFlags].changed) {
      const uint32_t lf =
          uint32_t(last->edge << 5) | uint32_t(last->scan_dir << 4) | last->class_flags;
      const uint32_t f = lay[kFlags].d.symbol(lazy(k.flags_m[lf], 64));
      last->edge = (f >> 5) & 1;
      last->scan_dir = (f >> 4) & 1;
      last->class_flags = f & 15;
    }
    if (lay[kIntensity].changed) {
      const uint32_t ii = (cpr << 1) | (gps_change ? 1u : 0u);
      last->intensity =
          uint16_t(k.ic_intensity.decode(lay[kIntensity].d, k.last_intensity[ii], cpr));
      k.last_intensity[ii] = last->intensity;
    }
    if (lay[kAngle].changed && angle_change)
      last->angle = int16_t(uint16_t(k.ic_angle.decode(lay[kAngle].d, last->angle, gps_change)));
    if (lay[kUser].changed)
      last->user = uint8_t(lay[kUser].d.symbol(lazy(k.user_m[last->user / 4], 256)));
    if (lay[kSource].changed && source_change)
      last->psid = uint16_t(k.ic_psid.decode(lay[kSource].d, last->psid));
    if (lay[kGps].changed && gps_change) {
      k.gps.read(lay[kGps].d);
      last->gps = k.gps.times[k.gps.last];
    }
    last->pack(out);
    last->gps_change = gps_change;
  }
};

/// Which previous item the RGB, NIR and BYTE14 layers predict from after a channel switch: v3
/// keeps predicting from the previous channel's item until a not yet used channel starts (as
/// LASzip 3 does), v4 always from the new channel's own.
struct ChannelLast {
  uint32_t cur = 0;
  bool unused[4] = {true, true, true, true};
  /// Returns the context whose last item predicts this point; `fresh` is set when `context`
  /// starts now (its last item must be copied from the returned previous one first).
  uint32_t switch_to(uint32_t context, int version, bool& fresh, uint32_t& from) {
    uint32_t use = cur;
    fresh = false;
    from = cur;
    if (context != cur) {
      cur = context;
      if (unused[cur]) {
        fresh = true;
        unused[cur] = false;
        use = cur;
      }
      if (version >= 4) use = cur;
    }
    return use;
  }
};

struct Rgb14 final : LyItem {
  explicit Rgb14(int v, bool nir_) : version(v), nir(nir_) {}
  int version;
  bool nir;
  Layer lay[2];
  uint16_t last[4][4] = {};
  RgbModels mo[4];
  SymbolModel nir_used[4], nir_diff[4][2];
  ChannelLast ch;

  size_t layers() const override { return nir ? 2 : 1; }
  Layer* layer(size_t i) override { return &lay[i]; }
  void reset(uint32_t c) {
    mo[c].reset();
    nir_used[c] = nir_diff[c][0] = nir_diff[c][1] = SymbolModel();
  }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context], raw, nir ? 8 : 6);
    reset(context);
  }
  void read(uint8_t* out, uint32_t& context) override {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      std::memcpy(last[ch.cur], last[from], sizeof last[0]);
      reset(ch.cur);
    }
    uint16_t* l = last[use];
    uint16_t c[4];
    if (lay[0].changed) {
      decode_rgb(lay[0].d, mo[ch.cur], l, c);
      std::memcpy(l, c, 6);
    } else {
      std::memcpy(c, l, 6);
    }
    if (nir) {
      if (lay[1].changed) {
        Decoder& d = lay[1].d;
        const uint32_t sym = d.symbol(lazy(nir_used[ch.cur], 4));
        uint16_t v =
            (sym & 1)
                ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][0], 256)) + uint32_t(l[3] & 0xFF)))
                : uint16_t(l[3] & 0xFF);
        v |= (sym & 2)
                 ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][1], 256)) + uint32_t(l[3] >> 8))
                            << 8)
                 : uint16_t(l[3] & 0xFF00);
        l[3] = v;
      }
      c[3] = l[3];
    }
    std::memcpy(out, c, nir ? 8 : 6);
  }
};

struct Byte14 final : LyItem {
  Byte14(int v, size_t n_) : version(v), n(n_), lay(n_) {
    for (auto& l : last) l.assign(n, 0);
    for (auto& m : mo) m.assign(n, SymbolModel());
  }
  int version;
  size_t n;
  std::vector<Layer> lay;
  std::vector<uint8_t> last[4];
  std::vector<SymbolModel> mo[4];
  ChannelLast ch;

  size_t layers() const override { return n; }
  Layer* layer(size_t i) override { return &lay[i]; }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context].data(), raw, n);
    for (auto& m : mo[context]) m = SymbolModel();
  }
  void read(uint8_t* out, uint32_t& context) override {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      last[ch.cur] = last[from];
      for (auto& m : mo[ch.cur]) m = SymbolModel();
    }
    uint8_t* l = last[use].data();
    for (size_t i = 0; i < n; ++i) {
      if (lay[i].changed) l[i] = fold(l[i] + lay[i].d.symbol(lazy(mo[ch.cur][i], 256)));
      out[i] = l[i];
    }
  }
};

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
  const uint64_t last_offset = get<uint64_t>(l + 1);
  const uint32_t last_size = get<uint32_t>(l + 9);
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
  put(item + 13, k.ic_return.decode(d, get<int32_t>(l + 13)));
  for (uint32_t i = 0; i < 3; ++i)
    put(item + 17 + 4 * i, k.ic_xyz.decode(d, get<int32_t>(l + 17 + 4 * i), i));
  std::memcpy(l, item, 29);
}

/// WAVEPACKET13 (point-wise).
struct Wave13 final : PwItem {
  uint8_t last[29] = {};
  WaveModels mo;
  void init(const uint8_t* raw) override {
    std::memcpy(last, raw, 29);
    mo.reset();
  }
  void read(Decoder& d, uint8_t* out) override {
    decode_wave(d, mo, last);
    std::memcpy(out, last, 29);
  }
};

/// WAVEPACKET14: descriptor index, byte offset, packet size, return point and x/y/z step.
struct Wave14 final : LyItem {
  explicit Wave14(int v) : version(v) {}
  int version;
  Layer lay[1];
  uint8_t last[4][29] = {};
  WaveModels mo[4];
  ChannelLast ch;

  size_t layers() const override { return 1; }
  Layer* layer(size_t i) override { return &lay[i]; }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context], raw, 29);
    mo[context].reset();
  }
  void read(uint8_t* out, uint32_t& context) override {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      std::memcpy(last[ch.cur], last[from], 29);
      mo[ch.cur].reset();
    }
    if (lay[0].changed) decode_wave(lay[0].d, mo[ch.cur], last[use]);
    std::memcpy(out, last[use], 29);
  }
};

}  // namespace

std::string item_name(uint16_t type) {
  switch (type) {
    case kByte:
      return "BYTE";
    case kPoint10:
      return "POINT10";
    case kGpsTime11:
      return "GPSTIME11";
    case kRgb12:
      return "RGB12";
    case kWavePacket13:
      return "WAVEPACKET13";
    case kPoint14:
      return "POINT14";
    case kRgb14:
      return "RGB14";
    case kRgbNir14:
      return "RGBNIR14";
    case kWavePacket14:
      return "WAVEPACKET14";
    case kByte14:
      return "BYTE14";
    default:
      return "item type " + std::to_string(type);
  }
}

bool parse_layout(const uint8_t* p, size_t n, Layout& out, std::string* why) {
  if (n < 34) {
    *why = "the LASzip VLR is " + std::to_string(n) + " bytes, shorter than its 34-byte header";
    return false;
  }
  out = Layout{};
  out.compressor = get<uint16_t>(p);
  out.coder = get<uint16_t>(p + 2);
  out.version_major = p[4];
  out.version_minor = p[5];
  out.version_revision = get<uint16_t>(p + 6);
  out.options = get<uint32_t>(p + 8);
  out.chunk_size = get<uint32_t>(p + 12);
  const uint16_t count = get<uint16_t>(p + 32);
  if (34 + size_t(count) * 6 > n) {
    *why = "the LASzip VLR lists " + std::to_string(count) + " items but holds " +
           std::to_string((n - 34) / 6);
    return false;
  }
  for (uint16_t i = 0; i < count; ++i) {
    const uint8_t* q = p + 34 + 6 * size_t(i);
    Item it{get<uint16_t>(q), get<uint16_t>(q + 2), get<uint16_t>(q + 4)};
    out.items.push_back(it);
    out.record_length += it.size;
  }
  return true;
}

bool supported(const Layout& lo, std::string* why) {
  if (lo.coder != 0) {
    *why = "LAZ coder " + std::to_string(lo.coder) + " is not supported (only arithmetic, 0)";
    return false;
  }
  if (lo.compressor != 2 && lo.compressor != 3) {
    *why = lo.compressor == 1 ? "the unchunked point-wise LAZ compressor (LASzip 1.x) is not "
                                "supported; recompress the file with a current LASzip or laz-rs"
                              : "unknown LAZ compressor " + std::to_string(lo.compressor);
    return false;
  }
  if (lo.items.empty()) {
    *why = "the LASzip VLR lists no items";
    return false;
  }
  const bool layered = lo.compressor == 3;
  for (size_t i = 0; i < lo.items.size(); ++i) {
    const Item& it = lo.items[i];
    const std::string name = item_name(it.type) + " version " + std::to_string(it.version);
    bool ok = false;
    uint16_t want = 0;  // the fixed size, 0 for BYTE items
    if (!layered) {
      switch (it.type) {
        case kPoint10:
          ok = it.version == 2 && i == 0, want = 20;
          break;
        case kGpsTime11:
          ok = it.version == 2, want = 8;
          break;
        case kRgb12:
          ok = it.version == 2, want = 6;
          break;
        case kByte:
          ok = it.version == 2;
          break;
        case kWavePacket13:
          ok = it.version == 1 || it.version == 2, want = 29;
          break;
        default:
          break;
      }
    } else {
      const bool v34 = it.version == 3 || it.version == 4;
      switch (it.type) {
        case kPoint14:
          ok = v34 && i == 0, want = 30;
          break;
        case kRgb14:
          ok = v34, want = 6;
          break;
        case kRgbNir14:
          ok = v34, want = 8;
          break;
        case kWavePacket14:
          ok = v34, want = 29;
          break;
        case kByte14:
          ok = v34;
          break;
        default:
          break;
      }
    }
    if (!ok) {
      *why = name + (layered ? " in a layered" : " in a point-wise") +
             " LAZ file is not supported (this decoder reads POINT10, GPSTIME11, RGB12, BYTE "
             "version 2, WAVEPACKET13 and POINT14, RGB14, RGBNIR14, WAVEPACKET14, BYTE14 versions "
             "3 and 4)";
      return false;
    }
    if (want ? it.size != want : it.size == 0) {
      *why = name + " has size " + std::to_string(it.size) +
             (want ? ", not " + std::to_string(want) : "");
      return false;
    }
  }
  return true;
}

struct ChunkReader::Impl {
  Layout lo;
  bool layered = false;
  Decoder dec;  // point-wise: the one stream of the chunk
  std::vector<std::unique_ptr<PwItem>> pw;
  std::vector<std::unique_ptr<LyItem>> ly;
  std::vector<size_t> offsets;  // of each item in the record
  const uint8_t* first = nullptr;
  bool first_pending = false;
  bool bad = false;
  uint32_t context = 0;
  size_t layered_size = 0;  // a layered chunk's bytes: header and layers
};

ChunkReader::ChunkReader(const Layout& lo) : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.lo = lo;
  m.layered = lo.compressor == 3;
  size_t off = 0;
  for (const Item& it : lo.items) {
    m.offsets.push_back(off);
    off += it.size;
    const int v = it.version;
    if (!m.layered) {
      switch (it.type) {
        case kPoint10:
          m.pw.push_back(std::make_unique<Point10v2>());
          break;
        case kGpsTime11:
          m.pw.push_back(std::make_unique<Gps11v2>());
          break;
        case kRgb12:
          m.pw.push_back(std::make_unique<Rgb12v2>());
          break;
        case kWavePacket13:
          m.pw.push_back(std::make_unique<Wave13>());
          break;
        default:
          m.pw.push_back(std::make_unique<Byte2>(it.size));
          break;
      }
    } else {
      switch (it.type) {
        case kPoint14:
          m.ly.push_back(std::make_unique<Point14>(v));
          break;
        case kRgb14:
          m.ly.push_back(std::make_unique<Rgb14>(v, false));
          break;
        case kRgbNir14:
          m.ly.push_back(std::make_unique<Rgb14>(v, true));
          break;
        case kWavePacket14:
          m.ly.push_back(std::make_unique<Wave14>(v));
          break;
        default:
          m.ly.push_back(std::make_unique<Byte14>(v, it.size));
          break;
      }
    }
  }
}

ChunkReader::~ChunkReader() = default;

bool ChunkReader::start(const uint8_t* data, size_t size, uint64_t count, std::string* why) {
  Impl& m = *impl_;
  const size_t rec = m.lo.record_length;
  m.bad = false;
  if (size < rec) {
    *why = "the chunk is " + std::to_string(size) + " bytes, shorter than one point";
    return false;
  }
  m.first = data;
  m.first_pending = true;
  if (!m.layered) {
    for (size_t i = 0; i < m.pw.size(); ++i) m.pw[i]->init(data + m.offsets[i]);
    m.dec.init(data + rec, size - rec);
    return true;
  }
  // Layered: the first point, the point count, every layer's size, then the layers.
  size_t p = rec;
  if (size - p < 4) {
    *why = "the chunk ends before its point count";
    return false;
  }
  const uint32_t stored = get<uint32_t>(data + p);
  p += 4;
  if (stored != count) {
    *why = "the chunk holds " + std::to_string(stored) + " points, the chunk table says " +
           std::to_string(count);
    return false;
  }
  size_t nl = 0;
  for (auto& it : m.ly) nl += it->layers();
  if ((size - p) / 4 < nl) {
    *why = "the chunk ends before its layer sizes";
    return false;
  }
  const uint8_t* sizes = data + p;
  p += 4 * nl;
  size_t li = 0;
  for (auto& it : m.ly) {
    for (size_t k = 0; k < it->layers(); ++k, ++li) {
      const uint32_t n = get<uint32_t>(sizes + 4 * li);
      if (n > size - p) {
        *why = "layer " + std::to_string(li) + " of the chunk (" + std::to_string(n) +
               " bytes) runs past the chunk's end";
        return false;
      }
      it->layer(k)->set(data + p, n);
      p += n;
    }
  }
  m.layered_size = p;
  m.context = 0;
  for (size_t i = 0; i < m.ly.size(); ++i) m.ly[i]->init(data + m.offsets[i], m.context);
  return true;
}

void ChunkReader::next(uint8_t* record) {
  Impl& m = *impl_;
  if (m.first_pending) {
    std::memcpy(record, m.first, m.lo.record_length);
    m.first_pending = false;
    return;
  }
  if (!m.layered) {
    for (size_t i = 0; i < m.pw.size(); ++i) m.pw[i]->read(m.dec, record + m.offsets[i]);
  } else {
    m.context = 0;
    for (size_t i = 0; i < m.ly.size(); ++i) m.ly[i]->read(record + m.offsets[i], m.context);
  }
}

bool ChunkReader::overrun() {
  Impl& m = *impl_;
  if (!m.layered) return m.dec.overrun();
  for (const auto& it : m.ly)
    for (size_t k = 0; k < it->layers(); ++k)
      if (it->layer(k)->overrun()) return true;
  return false;
}

size_t ChunkReader::consumed() const {
  const Impl& m = *impl_;
  return m.layered ? m.layered_size : size_t(m.dec.position() - m.first);
}

}  // namespace pr::io::laz
