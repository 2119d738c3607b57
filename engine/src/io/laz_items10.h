// The point-wise LAZ items of LASzip's chunked compressor (point formats 0 to 5): POINT10,
// GPSTIME11, RGB12 and BYTE version 2 and WAVEPACKET13, coded in one arithmetic stream per chunk,
// each predicting its fields from the previous point (per return kind) and coding the differences
// with adaptive models.
// Included only by laz_chunk.cpp (see laz_items.h).
#pragma once

#include <memory>
#include <vector>

#include "io/laz_items.h"

namespace pr::io::laz {

namespace {

// Return-kind contexts of the point-wise POINT10 (return number r, number of returns n, 3 bits
// each): m maps (n, r) to 16 classes, l is the distance |n - r| (level of penetration).
constexpr uint8_t kReturnMap[8][8] = {
    {15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
    {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
    {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
    {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};

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
    x = get_le<int32_t>(raw);
    y = get_le<int32_t>(raw + 4);
    z = get_le<int32_t>(raw + 8);
    intensity = 0;
    bits = raw[14];
    cls = raw[15];
    angle = raw[16];
    user = raw[17];
    psid = get_le<uint16_t>(raw + 18);
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
  void init(const uint8_t* raw) override { g.init(get_le<uint64_t>(raw), false); }
  void read(Decoder& d, uint8_t* out) override {
    g.read(d);
    put(out, g.times[g.last]);
  }
};

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

}  // namespace

}  // namespace pr::io::laz
