// The point-wise LAZ item encoders of compressor 2 (point formats 0-3 and extra bytes): POINT10 v2,
// GPSTIME11 v2, RGB12 v2 and BYTE v2, the mirrors of the decoders in laz_items10.h and
// laz_items.h. Each encoder holds the state its decoder holds (laz_state.h: the last point, the
// per-return-kind predictions, the models) and codes each field with the model the decoder reads
// it with, in the decoder's order: after every point both sides hold the same state, so the
// decoder predicts what the encoder predicted and adds back the same corrector.
// Included only by laz_write_pointwise.cpp: the unnamed namespace keeps these inline per-point
// functions in the one translation unit that calls them.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "laz_enc_items.h"

namespace pr::io::laz {

namespace {

/// POINT10 v2 (laz_state.h's Point10State), writing. One symbol says which of the five
/// non-coordinate fields changed; x, y and z follow in the contexts the decoder reads them in.
struct Point10Enc : Point10State<Encoding> {
  void write(Encoder& e, const uint8_t* item) {
    P10 p;
    p.unpack(item);
    const uint32_t r = p.bits & 7u, n = (p.bits >> 3) & 7u;
    const uint32_t m = kReturnMap[n][r], l = level(n, r, 7);
    const uint32_t changed_values =
        (uint32_t(last.bits != p.bits) << 5) | (uint32_t(last_intensity[m] != p.intensity) << 4) |
        (uint32_t(last.cls != p.cls) << 3) | (uint32_t(last.angle != p.angle) << 2) |
        (uint32_t(last.user != p.user) << 1) | uint32_t(last.psid != p.psid);
    e.symbol(enc_model(changed), changed_values);
    if (changed_values) {
      if (changed_values & 32) e.symbol(enc_model(bit_m[last.bits]), p.bits);
      if (changed_values & 16) {
        ic_intensity.encode(e, last_intensity[m], p.intensity, m < 3 ? m : 3);
        last_intensity[m] = p.intensity;
      }
      if (changed_values & 8) e.symbol(enc_model(cls_m[last.cls]), p.cls);
      // The scan angle's model is the point's scan direction (bit 6).
      if (changed_values & 4)
        e.symbol(enc_model(angle_m[(p.bits >> 6) & 1u]), fold(uint32_t(p.angle - last.angle)));
      if (changed_values & 2) e.symbol(enc_model(user_m[last.user]), p.user);
      if (changed_values & 1) ic_psid.encode(e, last.psid, p.psid);
    }
    // Differences wrap in 32 bits, as the decoder's sums do.
    const int32_t dx = int32_t(uint32_t(p.x) - uint32_t(last.x));
    ic_dx.encode(e, mx[m].get(), dx, n == 1);
    mx[m].add(dx);
    uint32_t k = ic_dx.k();
    const int32_t dy = int32_t(uint32_t(p.y) - uint32_t(last.y));
    ic_dy.encode(e, my[m].get(), dy, y_context(n, k));
    my[m].add(dy);
    k = (ic_dx.k() + ic_dy.k()) / 2;
    ic_z.encode(e, last_height[l], p.z, z_context(n, k));
    last_height[l] = p.z;
    last = p;
  }
};

/// GPSTIME11 v2: the time's 64 bits through the GPS time coder shared with POINT14
/// (laz_enc_items.h), with the point-wise item's codes.
struct Gps11Enc {
  GpsState<Encoding> gps;
  void start(const uint8_t* raw) { gps.start(get_le<uint64_t>(raw), false); }
  void write(Encoder& e, const uint8_t* item) { write_gps(gps, e, get_le<uint64_t>(item)); }
};

/// RGB12 v2, writing (encode_rgb).
struct Rgb12Enc : Rgb12State<Encoding> {
  void write(Encoder& e, const uint8_t* item) {
    uint16_t c[3];
    std::memcpy(c, item, 6);
    encode_rgb(e, mo, last, c, rgb_symbol(last, c));
    std::memcpy(last, c, 6);
  }
};

/// BYTE v2 (extra bytes), writing: each byte as its difference to the last point's.
struct ByteEnc : BytesState<Encoding> {
  explicit ByteEnc(size_t n) : BytesState(n) {}
  void write(Encoder& e, const uint8_t* item) {
    const size_t n = last.size();
    for (size_t i = 0; i < n; ++i)
      e.symbol(enc_model(mo[i]), fold(uint32_t(item[i]) - uint32_t(last[i])));
    std::memcpy(last.data(), item, n);
  }
};

}  // namespace

}  // namespace pr::io::laz
