// The point-wise LAZ items (point formats 0 to 5): POINT10, GPSTIME11, RGB12 and BYTE in versions
// 1 and 2, and WAVEPACKET13, coded in one arithmetic stream per chunk (or, for LASzip 1.x's
// unchunked compressor, one stream for the whole file), each predicting its fields from the
// previous point and coding the differences with adaptive models. Version 2 predicts per return
// kind and codes bytes as symbols; version 1, the original coding, predicts from the previous
// point alone and codes most fields with the integer corrector.
// Included only by laz_chunk.cpp (see laz_items.h).
#pragma once

#include <algorithm>
#include <memory>
#include <vector>

#include "laz_items.h"

namespace pr::io::laz {

namespace {

/// POINT10 v2 (laz_state.h's Point10State).
struct Point10v2 final : PwItem, Point10State<Decoding> {
  void init(const uint8_t* raw) override { start(raw); }

  void read(Decoder& d, uint8_t* out) override {
    const uint32_t changed_values = d.symbol(lazy(changed));
    if (changed_values) {
      if (changed_values & 32) last.bits = uint8_t(d.symbol(lazy(bit_m[last.bits])));
    }
    const uint32_t r = last.bits & 7u, n = (last.bits >> 3) & 7u;
    const uint32_t m = kReturnMap[n][r], l = level(n, r, 7);
    if (changed_values) {
      if (changed_values & 16) {
        last.intensity = uint16_t(ic_intensity.decode(d, last_intensity[m], m < 3 ? m : 3));
        last_intensity[m] = last.intensity;
      } else {
        last.intensity = last_intensity[m];
      }
      if (changed_values & 8) last.cls = uint8_t(d.symbol(lazy(cls_m[last.cls])));
      if (changed_values & 4)
        last.angle = fold(last.angle + d.symbol(lazy(angle_m[(last.bits >> 6) & 1u])));
      if (changed_values & 2) last.user = uint8_t(d.symbol(lazy(user_m[last.user])));
      if (changed_values & 1) last.psid = uint16_t(ic_psid.decode(d, last.psid));
    } else {
      last.intensity = last_intensity[m];
    }
    int32_t diff = ic_dx.decode(d, mx[m].get(), n == 1);
    last.x = int32_t(uint32_t(last.x) + uint32_t(diff));
    mx[m].add(diff);
    uint32_t k = ic_dx.k();
    diff = ic_dy.decode(d, my[m].get(), y_context(n, k));
    last.y = int32_t(uint32_t(last.y) + uint32_t(diff));
    my[m].add(diff);
    k = (ic_dx.k() + ic_dy.k()) / 2;
    last.z = ic_z.decode(d, last_height[l], z_context(n, k));
    last_height[l] = last.z;
    last.pack(out);
  }
};

/// GPSTIME11 v2: the GPS time (double, coded as its 64 bits).
struct Gps11v2 final : PwItem {
  GpsState<Decoding> g;
  void init(const uint8_t* raw) override { g.start(get_le<uint64_t>(raw), false); }
  void read(Decoder& d, uint8_t* out) override {
    read_gps(g, d);
    put_le(out, g.times[g.last]);
  }
};

struct Rgb12v2 final : PwItem, Rgb12State<Decoding> {
  void init(const uint8_t* raw) override { start(raw); }
  void read(Decoder& d, uint8_t* out) override {
    uint16_t c[3];
    decode_rgb(d, mo, last, c);
    std::memcpy(last, c, 6);
    std::memcpy(out, c, 6);
  }
};

/// BYTE v2 (extra bytes): each byte as a difference to the previous point's byte.
struct Byte2 final : PwItem, BytesState<Decoding> {
  explicit Byte2(size_t n) : BytesState(n) {}
  void init(const uint8_t* raw) override { start(raw); }
  void read(Decoder& d, uint8_t* out) override {
    for (size_t i = 0; i < last.size(); ++i) {
      last[i] = fold(last[i] + d.symbol(lazy(mo[i])));
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

// ---------------------------------------------------------------- version 1

/// The median of three values (the x and y predictor of POINT10 v1).
inline int32_t median3(int32_t a, int32_t b, int32_t c) {
  return std::max(std::min(a, b), std::min(std::max(a, b), c));
}

/// POINT10 v1: x and y as differences predicted by the median of the last three differences, z
/// from the last z, the corrector's bit lengths of x and y (how far the point moved) choosing the
/// contexts of y, z and the scan angle; then one symbol says which of the other fields changed.
struct Point10v1 final : PwItem {
  uint8_t last[20] = {};
  int32_t dx[3] = {}, dy[3] = {};
  uint32_t at = 0;  // where the next difference goes in dx, dy
  Model<64> changed;
  std::vector<Model<256>> bit_m, cls_m, user_m;
  IntDecoder ic_dx, ic_dy, ic_z, ic_intensity, ic_angle, ic_psid;

  void init(const uint8_t* raw) override {
    std::memcpy(last, raw, 20);
    for (int i = 0; i < 3; ++i) dx[i] = dy[i] = 0;
    at = 0;
    Decoding::reset(changed);
    bit_m.assign(256, Model<256>());
    cls_m.assign(256, Model<256>());
    user_m.assign(256, Model<256>());
    ic_dx.init(32, 1);
    ic_dy.init(32, 20);
    ic_z.init(32, 20);
    ic_intensity.init(16, 1);
    ic_angle.init(8, 2);
    ic_psid.init(16, 1);
  }

  void read(Decoder& d, uint8_t* out) override {
    const int32_t x_diff = ic_dx.decode(d, median3(dx[0], dx[1], dx[2]));
    put_le(last, int32_t(uint32_t(get_le<int32_t>(last)) + uint32_t(x_diff)));
    uint32_t k = ic_dx.k();
    const int32_t y_diff = ic_dy.decode(d, median3(dy[0], dy[1], dy[2]), k < 19 ? k : 19);
    put_le(last + 4, int32_t(uint32_t(get_le<int32_t>(last + 4)) + uint32_t(y_diff)));
    k = (k + ic_dy.k()) / 2;
    put_le(last + 8, ic_z.decode(d, get_le<int32_t>(last + 8), k < 19 ? k : 19));
    const uint32_t changed_values = d.symbol(lazy(changed));
    if (changed_values & 32)
      put_le(last + 12, uint16_t(ic_intensity.decode(d, get_le<uint16_t>(last + 12))));
    if (changed_values & 16) last[14] = uint8_t(d.symbol(lazy(bit_m[last[14]])));
    if (changed_values & 8) last[15] = uint8_t(d.symbol(lazy(cls_m[last[15]])));
    if (changed_values & 4) last[16] = uint8_t(ic_angle.decode(d, last[16], k < 3));
    if (changed_values & 2) last[17] = uint8_t(d.symbol(lazy(user_m[last[17]])));
    if (changed_values & 1)
      put_le(last + 18, uint16_t(ic_psid.decode(d, get_le<uint16_t>(last + 18))));
    dx[at] = x_diff;
    dy[at] = y_diff;
    at = at == 2 ? 0 : at + 1;
    std::memcpy(out, last, 20);
  }
};

/// GPSTIME11 v1: the time as a 64-bit integer whose difference to the last time is predicted as
/// `multi` times the last difference (multi 1 to 508, one symbol of 512; 0 predicts a quarter of
/// it, 509 a 510th, the extremes replacing the last difference after four in a row), 510 for a
/// time stored whole and 511 for an unchanged one. After a difference of 0 a 3-symbol model says
/// unchanged, a 32-bit difference or a whole time.
struct Gps11v1 final : PwItem {
  static constexpr uint32_t kMultiMax = 512;
  uint64_t time = 0;
  int32_t last_diff = 0;
  int32_t extreme = 0;
  Model<kMultiMax> multi;
  Model<3> zero_diff;
  IntDecoder ic;

  void init(const uint8_t* raw) override {
    time = get_le<uint64_t>(raw);
    last_diff = 0;
    extreme = 0;
    Decoding::reset(multi);
    Decoding::reset(zero_diff);
    ic.init(32, 6);
  }

  void read(Decoder& d, uint8_t* out) override {
    if (last_diff == 0) {
      const uint32_t m = d.symbol(lazy(zero_diff));
      if (m == 1) {
        last_diff = ic.decode(d, 0, 0);
        time += uint64_t(int64_t(last_diff));
      } else if (m == 2) {
        time = d.u64();
      }
    } else {
      const uint32_t m = d.symbol(lazy(multi));
      // `m * last_diff` wraps in 32 bits, as the encoder computed it.
      const int32_t scaled = int32_t(m * uint32_t(last_diff));
      if (m < kMultiMax - 2) {
        int32_t diff;
        if (m == 1) {
          diff = ic.decode(d, last_diff, 1);
          last_diff = diff;
          extreme = 0;
        } else if (m == 0) {
          diff = ic.decode(d, last_diff / 4, 2);
          if (++extreme > 3) last_diff = diff, extreme = 0;
        } else if (m < 10) {
          diff = ic.decode(d, scaled, 3);
        } else if (m < 50) {
          diff = ic.decode(d, scaled, 4);
        } else {
          diff = ic.decode(d, scaled, 5);
          if (m == kMultiMax - 3 && ++extreme > 3) last_diff = diff, extreme = 0;
        }
        time += uint64_t(int64_t(diff));
      } else if (m == kMultiMax - 2) {
        time = d.u64();
      }
    }
    put_le(out, time);
  }
};

/// RGB12 v1: one symbol says which of the six bytes (low and high byte of red, green, blue)
/// changed; each changed byte is coded by the 8-bit integer corrector from the same byte of the
/// last color, a context per byte.
struct Rgb12v1 final : PwItem {
  uint16_t last[3] = {};
  Model<64> used;
  IntDecoder ic;

  void init(const uint8_t* raw) override {
    std::memcpy(last, raw, 6);
    Decoding::reset(used);
    ic.init(8, 6);
  }

  void read(Decoder& d, uint8_t* out) override {
    const uint32_t sym = d.symbol(lazy(used));
    uint16_t c[3];
    for (uint32_t i = 0; i < 3; ++i) {
      const uint32_t lo = 2 * i, hi = 2 * i + 1;
      c[i] = (sym >> lo) & 1 ? uint16_t(ic.decode(d, last[i] & 0xFF, lo) & 0xFF)
                             : uint16_t(last[i] & 0xFF);
      c[i] |= (sym >> hi) & 1 ? uint16_t((ic.decode(d, last[i] >> 8, hi) & 0xFF) << 8)
                              : uint16_t(last[i] & 0xFF00);
    }
    std::memcpy(last, c, 6);
    std::memcpy(out, c, 6);
  }
};

/// BYTE v1 (extra bytes): each byte by the 8-bit integer corrector from the previous point's
/// byte, a context per byte.
struct Byte1 final : PwItem {
  explicit Byte1(size_t n) : last(n) {}
  std::vector<uint8_t> last;
  IntDecoder ic;
  void init(const uint8_t* raw) override {
    std::memcpy(last.data(), raw, last.size());
    ic.init(8, uint32_t(last.size()));
  }
  void read(Decoder& d, uint8_t* out) override {
    for (size_t i = 0; i < last.size(); ++i) {
      last[i] = uint8_t(ic.decode(d, last[i], uint32_t(i)));
      out[i] = last[i];
    }
  }
};

}  // namespace

}  // namespace pr::io::laz
