// The shared parts of the LAZ item encoders (laz_enc_items10.h, laz_enc_items14.h), the mirror of
// laz_items.h: symbol models for encoding, and the GPS time predictor shared by GPSTIME11 v2 and
// POINT14 v3, as GpsState is shared by their decoders. Included by those two headers only (each
// in its own translation unit, hence the unnamed namespace).
#pragma once

#include <cstdint>

#include "laz_encoder.h"
#include "laz_items.h"

namespace pr::io::laz {

namespace {

/// A symbol model created on first use, without the decoder's look-up table (laz_codec.h).
inline SymbolModel& enc_model(SymbolModel& m, uint32_t symbols) {
  if (!m.ready()) m.init(symbols, false);
  return m;
}

/// A model back in its initial state for the next chunk. A model used before keeps its storage
/// (init() refills it); one never used stays empty until its first use.
inline void restart(SymbolModel& m, uint32_t symbols) {
  if (m.ready()) m.init(symbols, false);
}

/// Whether a 64-bit difference fits the 32-bit differences the GPS coder codes.
inline bool fits32(int64_t d) {
  return d == int64_t(int32_t(d));
}

/// The GPS time predictor of GpsState, writing: four sequences of times (interleaved flight
/// lines), each with its last difference, the next time coded as a multiple of that difference
/// plus a corrector, a switch to another sequence, or a full 64-bit time starting a new one.
/// `layered` picks POINT14's codes; GPSTIME11 v2's have one more, "unchanged", in each alphabet.
struct GpsEnc {
  SymbolModel multi, zero_diff;
  IntEncoder ic;
  uint32_t last = 0, next = 0;
  uint64_t times[4] = {0, 0, 0, 0};
  int32_t diffs[4] = {0, 0, 0, 0};
  int32_t extreme[4] = {0, 0, 0, 0};
  bool layered = false;

  void init(uint64_t first, bool layered_codes) {
    layered = layered_codes;
    restart(multi, layered ? kGpsTotal3 : kGpsTotal2);
    restart(zero_diff, layered ? 5 : 6);
    ic.init(32, 9);
    last = next = 0;
    for (int i = 0; i < 4; ++i) times[i] = 0, diffs[i] = 0, extreme[i] = 0;
    times[0] = first;
  }

  /// The other sequence (1..3 ahead of `last`) that `t` is within 32 bits of; 0 when none is.
  uint32_t other(uint64_t t) const {
    for (uint32_t i = 1; i < 4; ++i)
      if (fits32(int64_t(t - times[(last + i) & 3]))) return i;
    return 0;
  }

  /// A new sequence starting at `t`: its high half predicted from the last time's, the low half
  /// raw (GpsState::full).
  void full(Encoder& e, uint64_t t) {
    ic.encode(e, int32_t(uint32_t(times[last] >> 32)), int32_t(uint32_t(t >> 32)), 8);
    e.u32(uint32_t(t));
    next = (next + 1) & 3;
    last = next;
    diffs[last] = 0;
    extreme[last] = 0;
    times[last] = t;
  }

  /// A difference `d` as `m` times the last one (GpsState::multiple): the multiplier's symbol in
  /// `m_model`, then the corrector in the context that symbol selects. Past the extremes (0,
  /// >= 500, <= -10) the prediction is poor, and after four such points the last difference is
  /// replaced.
  void multiple(Encoder& e, SymbolModel& m_model, int32_t d) {
    const int32_t ld = diffs[last];
    // The multiplier rounded as LASzip rounds it (in float), clamped to the codes there are
    // first, so that the float never leaves the int32 range.
    const float mf = float(d) / float(ld);
    int32_t m;
    if (mf >= float(kGpsMulti))
      m = kGpsMulti;
    else if (mf <= float(kGpsMultiMinus))
      m = kGpsMultiMinus;
    else
      m = mf >= 0 ? int32_t(mf + 0.5f) : int32_t(mf - 0.5f);
    auto times_ld = [ld](int32_t k) { return int32_t(uint32_t(k) * uint32_t(ld)); };
    bool extreme_code = false;
    if (m == 1) {
      e.symbol(m_model, 1);
      ic.encode(e, ld, d, 1);
      extreme[last] = 0;
    } else if (m > 0 && m < kGpsMulti) {
      e.symbol(m_model, uint32_t(m));
      ic.encode(e, times_ld(m), d, m < 10 ? 2 : 3);
    } else if (m == kGpsMulti) {
      e.symbol(m_model, uint32_t(kGpsMulti));
      ic.encode(e, times_ld(kGpsMulti), d, 4);
      extreme_code = true;
    } else if (m < 0 && m > kGpsMultiMinus) {
      e.symbol(m_model, uint32_t(kGpsMulti - m));
      ic.encode(e, times_ld(m), d, 5);
    } else if (m == kGpsMultiMinus) {
      e.symbol(m_model, uint32_t(kGpsMulti - kGpsMultiMinus));
      ic.encode(e, times_ld(kGpsMultiMinus), d, 6);
      extreme_code = true;
    } else {
      e.symbol(m_model, 0);
      ic.encode(e, 0, d, 7);
      extreme_code = true;
    }
    if (extreme_code && ++extreme[last] > 3) diffs[last] = d, extreme[last] = 0;
  }

  /// Codes time `t`. A switch to another sequence is followed by that sequence's own code, as
  /// GpsState::read reads it; after a switch `t` is within 32 bits of `times[last]`, so at most
  /// one happens. Layered callers code only changed times (POINT14 says "unchanged" itself).
  void write(Encoder& e, uint64_t t) {
    // GPSTIME11 v2's codes: "unchanged" first in the zero-difference alphabet, and its full
    // code one later in the multiplier's.
    const uint32_t base = layered ? 0 : 1;
    const uint32_t code_full = layered ? uint32_t(kGpsCodeFull3) : uint32_t(kGpsCodeFull2);
    for (;;) {
      const int64_t d64 = int64_t(t - times[last]);
      if (diffs[last] == 0) {
        SymbolModel& m = enc_model(zero_diff, layered ? 5 : 6);
        if (!layered && d64 == 0) return e.symbol(m, 0);
        if (fits32(d64)) {
          e.symbol(m, base);
          ic.encode(e, 0, int32_t(d64), 0);
          diffs[last] = int32_t(d64);
          extreme[last] = 0;
          times[last] = t;
          return;
        }
        if (const uint32_t i = other(t)) {
          e.symbol(m, base + 1 + i);
          last = (last + i) & 3;
          continue;
        }
        e.symbol(m, base + 1);
        return full(e, t);
      }
      SymbolModel& m = enc_model(multi, layered ? kGpsTotal3 : kGpsTotal2);
      if (!layered && d64 == 0) return e.symbol(m, uint32_t(kGpsUnchanged));
      if (fits32(d64)) {
        multiple(e, m, int32_t(d64));
        times[last] = t;
        return;
      }
      if (const uint32_t i = other(t)) {
        e.symbol(m, code_full + i);
        last = (last + i) & 3;
        continue;
      }
      e.symbol(m, code_full);
      return full(e, t);
    }
  }
};

}  // namespace

}  // namespace pr::io::laz
