// The point-wise LAZ item encoders of compressor 2 (point formats 0-3 and extra bytes): POINT10 v2,
// GPSTIME11 v2, RGB12 v2 and BYTE v2, the mirrors of the decoders in laz_items10.h and
// laz_items.h. Each encoder keeps the state its decoder keeps (the last point, the per-return-kind
// predictions, the models) and codes each field with the model the decoder reads it with, in the
// decoder's order: after every point both sides hold the same state, so the decoder predicts what
// the encoder predicted and adds back the same corrector.
// Included only by laz_write_pointwise.cpp: the unnamed namespace keeps these inline per-point
// functions in the one translation unit that calls them.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "laz_enc_items.h"

namespace pr::io::laz {

namespace {

/// A byte difference modulo 256: the symbol the decoder adds to its prediction.
inline uint32_t byte_diff(int32_t v, int32_t pred) {
  return uint32_t(v - pred) & 0xFFu;
}

inline int32_t clamp_byte(int32_t v) {
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

// POINT10's return-kind contexts, as laz_items10.h's decoder has them: the class m of (number of
// returns n, return number r) and the level |n - r|.
constexpr uint8_t kPwReturnMap[8][8] = {
    {15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
    {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
    {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
    {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};

/// POINT10 v2 (20 bytes: x, y, z, intensity, return bits, classification, scan angle rank, user
/// data, point source id). One symbol says which of the five non-coordinate fields changed (and
/// whether the intensity differs from the last one of this return kind); the return bits,
/// classification and user data are symbols of a model chosen by their last value; x and y are
/// differences predicted by the median of the last five differences of the return kind; z is
/// predicted by the last z of the same level, with contexts from the bit lengths of the x and y
/// correctors (how far the point moved).
struct Point10Enc {
  uint8_t last[20] = {};
  uint16_t last_intensity[16] = {};
  int32_t last_height[8] = {};
  Median5 mx[16], my[16];
  SymbolModel changed, angle_m[2];
  SymbolModel bit_m[256], cls_m[256], user_m[256];
  IntEncoder ic_intensity, ic_psid, ic_dx, ic_dy, ic_z;

  void init(const uint8_t* raw) {
    std::memcpy(last, raw, 20);
    for (auto& v : last_intensity) v = 0;
    for (auto& v : last_height) v = 0;
    for (auto& m : mx) m = Median5();
    for (auto& m : my) m = Median5();
    restart(changed, 64);
    restart(angle_m[0], 256);
    restart(angle_m[1], 256);
    for (int i = 0; i < 256; ++i) {
      restart(bit_m[i], 256);
      restart(cls_m[i], 256);
      restart(user_m[i], 256);
    }
    ic_intensity.init(16, 4);
    ic_psid.init(16, 1);
    ic_dx.init(32, 2);
    ic_dy.init(32, 22);
    ic_z.init(32, 20);
  }

  void write(Encoder& e, const uint8_t* item) {
    const uint32_t bits = item[14];
    const uint32_t r = bits & 7u, n = (bits >> 3) & 7u;
    const uint32_t m = kPwReturnMap[n][r], l = n > r ? n - r : r - n;
    const uint16_t intensity = get_le<uint16_t>(item + 12);
    const uint16_t psid = get_le<uint16_t>(item + 18), last_psid = get_le<uint16_t>(last + 18);
    const uint32_t changed_values =
        (uint32_t(last[14] != bits) << 5) | (uint32_t(last_intensity[m] != intensity) << 4) |
        (uint32_t(last[15] != item[15]) << 3) | (uint32_t(last[16] != item[16]) << 2) |
        (uint32_t(last[17] != item[17]) << 1) | uint32_t(last_psid != psid);
    e.symbol(enc_model(changed, 64), changed_values);
    if (changed_values) {
      if (changed_values & 32) e.symbol(enc_model(bit_m[last[14]], 256), bits);
      if (changed_values & 16) {
        ic_intensity.encode(e, last_intensity[m], intensity, m < 3 ? m : 3);
        last_intensity[m] = intensity;
      }
      if (changed_values & 8) e.symbol(enc_model(cls_m[last[15]], 256), item[15]);
      // The scan angle's model is the point's scan direction (bit 6).
      if (changed_values & 4)
        e.symbol(enc_model(angle_m[(bits >> 6) & 1u], 256), byte_diff(item[16], last[16]));
      if (changed_values & 2) e.symbol(enc_model(user_m[last[17]], 256), item[17]);
      if (changed_values & 1) ic_psid.encode(e, last_psid, psid);
    }
    // Differences wrap in 32 bits, as the decoder's sums do.
    const int32_t dx = int32_t(get_le<uint32_t>(item) - get_le<uint32_t>(last));
    ic_dx.encode(e, mx[m].get(), dx, n == 1);
    mx[m].add(dx);
    uint32_t k = ic_dx.k();
    const int32_t dy = int32_t(get_le<uint32_t>(item + 4) - get_le<uint32_t>(last + 4));
    ic_dy.encode(e, my[m].get(), dy, (n == 1) + (k < 20 ? (k & ~1u) : 20));
    my[m].add(dy);
    k = (ic_dx.k() + ic_dy.k()) / 2;
    const int32_t z = get_le<int32_t>(item + 8);
    ic_z.encode(e, last_height[l], z, (n == 1) + (k < 18 ? (k & ~1u) : 18));
    last_height[l] = z;
    std::memcpy(last, item, 20);
  }
};

/// GPSTIME11 v2: the time's 64 bits through the GPS time coder shared with POINT14
/// (laz_enc_items.h), with the point-wise item's codes.
struct Gps11Enc {
  GpsEnc gps;
  void init(const uint8_t* raw) { gps.init(get_le<uint64_t>(raw), false); }
  void write(Encoder& e, const uint8_t* item) { gps.write(e, get_le<uint64_t>(item)); }
};

/// RGB12 v2: one symbol says which bytes changed (and whether green and blue differ from red);
/// red's bytes are differences to the last red, green's and blue's differences to the last
/// value moved by red's change (blue's by the mean of red's and green's), clamped to a byte.
struct Rgb12Enc {
  uint16_t last[3] = {};
  SymbolModel used, diff[6];

  void init(const uint8_t* raw) {
    std::memcpy(last, raw, 6);
    restart(used, 128);
    for (auto& m : diff) restart(m, 256);
  }

  void write(Encoder& e, const uint8_t* item) {
    uint16_t c[3];
    std::memcpy(c, item, 6);
    auto lo = [](uint16_t v) { return int32_t(v & 0xFF); };
    auto hi = [](uint16_t v) { return int32_t(v >> 8); };
    uint32_t sym = 0;
    for (int i = 0; i < 3; ++i) {
      sym |= uint32_t(lo(c[i]) != lo(last[i])) << (2 * i);
      sym |= uint32_t(hi(c[i]) != hi(last[i])) << (2 * i + 1);
    }
    sym |= uint32_t(c[0] != c[1] || c[0] != c[2]) << 6;
    e.symbol(enc_model(used, 128), sym);
    const int32_t dl = lo(c[0]) - lo(last[0]), dh = hi(c[0]) - hi(last[0]);
    if (sym & 1) e.symbol(enc_model(diff[0], 256), uint32_t(dl) & 0xFF);
    if (sym & 2) e.symbol(enc_model(diff[1], 256), uint32_t(dh) & 0xFF);
    if (sym & 64) {
      if (sym & 4)
        e.symbol(enc_model(diff[2], 256), byte_diff(lo(c[1]), clamp_byte(dl + lo(last[1]))));
      if (sym & 16) {
        const int32_t d = (dl + lo(c[1]) - lo(last[1])) / 2;
        e.symbol(enc_model(diff[4], 256), byte_diff(lo(c[2]), clamp_byte(d + lo(last[2]))));
      }
      if (sym & 8)
        e.symbol(enc_model(diff[3], 256), byte_diff(hi(c[1]), clamp_byte(dh + hi(last[1]))));
      if (sym & 32) {
        const int32_t d = (dh + hi(c[1]) - hi(last[1])) / 2;
        e.symbol(enc_model(diff[5], 256), byte_diff(hi(c[2]), clamp_byte(d + hi(last[2]))));
      }
    }
    std::memcpy(last, c, 6);
  }
};

/// BYTE v2 (extra bytes): each byte as its difference to the last point's, a model per byte.
struct ByteEnc {
  std::vector<uint8_t> last;
  std::vector<SymbolModel> mo;

  explicit ByteEnc(size_t n) : last(n), mo(n) {}

  void init(const uint8_t* raw) {
    std::memcpy(last.data(), raw, last.size());
    for (auto& m : mo) restart(m, 256);
  }

  void write(Encoder& e, const uint8_t* item) {
    const size_t n = last.size();
    for (size_t i = 0; i < n; ++i) e.symbol(enc_model(mo[i], 256), byte_diff(item[i], last[i]));
    std::memcpy(last.data(), item, n);
  }
};

}  // namespace

}  // namespace pr::io::laz
