// The shared parts of the LAZ item encoders (laz_enc_items10.h, laz_enc_items14.h), the mirror of
// laz_items.h: the GPS time coder shared by GPSTIME11 v2 and POINT14 v3 and the RGB coder shared
// by RGB12 v2 and RGB14 v3, writing into the state laz_state.h gives both sides. Included by
// those two headers only (each in its own translation unit, hence the unnamed namespace).
#pragma once

#include <cstdint>

#include "laz_encoder.h"
#include "laz_state.h"

namespace pr::io::laz {

namespace {

/// A model of the encoding side, created on first use.
template <uint32_t kSymbols>
inline SymbolModel& enc_model(Model<kSymbols>& m) {
  return Encoding::use(m);
}

/// Whether a 64-bit difference fits the 32-bit differences the GPS coder codes.
inline bool fits32(int64_t d) {
  return d == int64_t(int32_t(d));
}

/// The other sequence (1..3 ahead of the last) that `t` is within 32 bits of; 0 when none is.
inline uint32_t other_sequence(const GpsState<Encoding>& g, uint64_t t) {
  for (uint32_t i = 1; i < 4; ++i)
    if (fits32(int64_t(t - g.times[(g.last + i) & 3]))) return i;
  return 0;
}

/// A difference `d` as a multiple of the last one (read_gps's multiplier): the multiplier's
/// symbol in `m_model`, then the corrector in the context gps_code() gives it.
inline void write_gps_multiple(GpsState<Encoding>& g, Encoder& e, SymbolModel& m_model, int32_t d) {
  // The multiplier rounded as LASzip rounds it (in float), clamped to the codes there are
  // first, so that the float never leaves the int32 range.
  const float mf = float(d) / float(g.diffs[g.last]);
  int32_t m;
  if (mf >= float(kGpsMulti))
    m = kGpsMulti;
  else if (mf <= float(kGpsMultiMinus))
    m = kGpsMultiMinus;
  else
    m = mf >= 0 ? int32_t(mf + 0.5f) : int32_t(mf - 0.5f);
  // Symbols 0..500 are the multipliers 0..500, 501..510 the multipliers -1..-10.
  const int32_t symbol = m >= 0 ? m : kGpsMulti - m;
  const GpsCode code = gps_code(symbol);
  e.symbol(m_model, uint32_t(symbol));
  g.ic.encode(e, g.predict(code), d, code.context);
  g.add(code, d);
}

/// Codes time `t` (read_gps's mirror). A switch to another sequence is followed by that
/// sequence's own code; after a switch `t` is within 32 bits of the last time, so at most one
/// happens. Layered callers code only changed times (POINT14 says "unchanged" itself).
inline void write_gps(GpsState<Encoding>& g, Encoder& e, uint64_t t) {
  for (;;) {
    const int64_t d64 = int64_t(t - g.times[g.last]);
    uint32_t full;  // the code of a full time in the alphabet used
    SymbolModel* m;
    if (g.diffs[g.last] == 0) {
      m = &g.zero_diff_model();
      if (!g.layered && d64 == 0) return e.symbol(*m, 0);
      if (fits32(d64)) {
        e.symbol(*m, g.zero_base());
        g.ic.encode(e, 0, int32_t(d64), 0);
        return g.set_diff(int32_t(d64));
      }
      full = g.zero_base() + 1;
    } else {
      m = &g.multi_model();
      if (!g.layered && d64 == 0) return e.symbol(*m, uint32_t(kGpsUnchanged));
      if (fits32(d64)) return write_gps_multiple(g, e, *m, int32_t(d64));
      full = g.code_full();
    }
    if (const uint32_t i = other_sequence(g, t)) {
      e.symbol(*m, full + i);
      g.switch_by(i);
      continue;
    }
    // A new sequence: its high half predicted from the last time's, the low half raw.
    e.symbol(*m, full);
    g.ic.encode(e, int32_t(uint32_t(g.times[g.last] >> 32)), int32_t(uint32_t(t >> 32)), 8);
    e.u32(uint32_t(t));
    return g.start_sequence(t);
  }
}

/// Which bytes of colour `c` differ from the last colour `l` (bits 0-5) and whether it is not
/// grey (bit 6): decode_rgb's first symbol.
inline uint32_t rgb_symbol(const uint16_t* l, const uint16_t* c) {
  uint32_t sym = 0;
  for (int i = 0; i < 3; ++i) {
    sym |= uint32_t(channel_byte(c[i], 0) != channel_byte(l[i], 0)) << (2 * i);
    sym |= uint32_t(channel_byte(c[i], 8) != channel_byte(l[i], 8)) << (2 * i + 1);
  }
  if (c[0] != c[1] || c[0] != c[2]) sym |= 64;
  return sym;
}

/// The mirror of decode_rgb: the symbol `sym`, red's bytes as differences to the last red,
/// green's and blue's as corrections of their predictions from red's change.
inline void encode_rgb(Encoder& e, RgbModels<Encoding>& mo, const uint16_t* l, const uint16_t* c,
                       uint32_t sym) {
  auto diff = [](int32_t v, int32_t pred) { return uint32_t(v - pred) & 0xFFu; };
  e.symbol(enc_model(mo.used), sym);
  if (sym & 1) e.symbol(enc_model(mo.diff[0]), diff(channel_byte(c[0], 0), channel_byte(l[0], 0)));
  if (sym & 2) e.symbol(enc_model(mo.diff[1]), diff(channel_byte(c[0], 8), channel_byte(l[0], 8)));
  if (!(sym & 64)) return;
  if (sym & 4)
    e.symbol(enc_model(mo.diff[2]), diff(channel_byte(c[1], 0), green_prediction(c, l, 0)));
  if (sym & 16)
    e.symbol(enc_model(mo.diff[4]), diff(channel_byte(c[2], 0), blue_prediction(c, l, 0)));
  if (sym & 8)
    e.symbol(enc_model(mo.diff[3]), diff(channel_byte(c[1], 8), green_prediction(c, l, 8)));
  if (sym & 32)
    e.symbol(enc_model(mo.diff[5]), diff(channel_byte(c[2], 8), blue_prediction(c, l, 8)));
}

}  // namespace

}  // namespace pr::io::laz
