// The state of the LAZ items that both sides keep: the last values each item predicts from, its
// adaptive models and integer coders, how a chunk (or a scanner channel) starts them, and how
// they change after a value. The decoders (laz_items*.h) and the encoders (laz_enc_items*.h) hold
// the same structs, templated on their side (Decoding in laz_codec.h, Encoding in
// laz_encoder.h: the integer coder, and how a model is created and reset), so that after every
// point both sides hold the same state: the decoder predicts what the encoder predicted and adds
// back the same corrector. Only the steps that read or write a value are written twice.
// Included by those headers only, each in one translation unit (hence the unnamed namespace).
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/io/base/bytes.h"
#include "laz_codec.h"

namespace pr::io::laz {

namespace {

/// Adds a byte difference modulo 256.
inline uint8_t fold(uint32_t v) {
  return uint8_t(v & 0xFF);
}
inline int32_t clamp_u8(int32_t v) {
  return v < 0 ? 0 : (v > 255 ? 255 : v);
}

inline uint32_t level(uint32_t n, uint32_t r, uint32_t cap) {
  const uint32_t d = n > r ? n - r : r - n;
  return d < cap ? d : cap;
}

/// The contexts of y's and z's correctors: whether the point is a single return, and the bit
/// length k of the x corrector (for z, the mean of x's and y's): how far the point moved.
inline uint32_t y_context(uint32_t n, uint32_t k) {
  return (n == 1) + (k < 20 ? (k & ~1u) : 20);
}
inline uint32_t z_context(uint32_t n, uint32_t k) {
  return (n == 1) + (k < 18 ? (k & ~1u) : 18);
}

// ---------------------------------------------------------------- GPS time

// A difference is predicted as `multi` times the last difference.
constexpr int32_t kGpsMulti = 500;
constexpr int32_t kGpsMultiMinus = -10;
constexpr int32_t kGpsUnchanged = kGpsMulti - kGpsMultiMinus + 1;  // point-wise v2 only
constexpr int32_t kGpsCodeFull2 = kGpsMulti - kGpsMultiMinus + 2;  // point-wise v2
constexpr int32_t kGpsTotal2 = kGpsMulti - kGpsMultiMinus + 6;
constexpr int32_t kGpsCodeFull3 = kGpsMulti - kGpsMultiMinus + 1;  // layered v3/v4
constexpr int32_t kGpsTotal3 = kGpsMulti - kGpsMultiMinus + 5;

/// What a multiplier symbol (below the full code) says: the difference is predicted as
/// `multiplier` times the last one and corrected in `context`; `extreme` +1 counts a poor
/// prediction (past four in a row the last difference is replaced), -1 restarts that count.
struct GpsCode {
  int32_t multiplier;
  uint32_t context;
  int32_t extreme;
};

/// Symbol 0: a multiplier of 0; 1: the last difference again; 2..499 that many times it;
/// 500 and more (the extreme); 501..509 the negative multipliers -1..-9; 510 -10 and less.
inline GpsCode gps_code(int32_t symbol) {
  if (symbol == 0) return {0, 7, 1};
  if (symbol == 1) return {1, 1, -1};
  if (symbol < kGpsMulti) return {symbol, symbol < 10 ? 2u : 3u, 0};
  if (symbol == kGpsMulti) return {kGpsMulti, 4, 1};
  const int32_t m = kGpsMulti - symbol;
  if (m > kGpsMultiMinus) return {m, 5, 0};
  return {kGpsMultiMinus, 6, 1};
}

/// The GPS time predictor of GPSTIME11 v2 and POINT14: four sequences of times (interleaved
/// flight lines), each with its last difference. The next time is coded as a multiple of that
/// difference plus a corrector, a switch to another sequence, or a full 64-bit time starting a
/// new one. `layered` picks POINT14's codes; GPSTIME11 v2's have one more, "unchanged", in each
/// alphabet.
template <class Side>
struct GpsState {
  SymbolModel multi, zero_diff;
  typename Side::Int ic;
  uint32_t last = 0, next = 0;
  uint64_t times[4] = {0, 0, 0, 0};
  int32_t diffs[4] = {0, 0, 0, 0};
  int32_t extreme[4] = {0, 0, 0, 0};
  bool layered = false;

  void start(uint64_t first, bool layered_codes) {
    layered = layered_codes;
    Side::reset(multi, layered ? kGpsTotal3 : kGpsTotal2);
    Side::reset(zero_diff, layered ? 5 : 6);
    ic.init(32, 9);
    last = next = 0;
    for (int i = 0; i < 4; ++i) times[i] = 0, diffs[i] = 0, extreme[i] = 0;
    times[0] = first;
  }

  /// The model of the code after a difference of 0, and of the multiplier after another one.
  SymbolModel& zero_diff_model() { return Side::use(zero_diff, layered ? 5 : 6); }
  SymbolModel& multi_model() {
    return Side::use(multi, uint32_t(layered ? kGpsTotal3 : kGpsTotal2));
  }
  /// In the zero-difference alphabet: the code of a 32-bit difference (one more: a full time,
  /// more: a switch); "unchanged" is 0 before it in GPSTIME11 v2's.
  uint32_t zero_base() const { return layered ? 0u : 1u; }
  /// In the multiplier's alphabet: the code of a full time (more: a switch).
  uint32_t code_full() const { return uint32_t(layered ? kGpsCodeFull3 : kGpsCodeFull2); }

  /// The prediction `code` makes from the last difference (wrapping in 32 bits, as LASzip's).
  int32_t predict(const GpsCode& code) const {
    return int32_t(uint32_t(code.multiplier) * uint32_t(diffs[last]));
  }
  /// The time moved by `diff`, coded as `code` says.
  void add(const GpsCode& code, int32_t diff) {
    times[last] += uint64_t(int64_t(diff));
    if (code.extreme < 0) {
      extreme[last] = 0;
    } else if (code.extreme > 0 && ++extreme[last] > 3) {
      diffs[last] = diff;
      extreme[last] = 0;
    }
  }
  /// After a difference of 0: the time moved by `diff`, the sequence's new difference.
  void set_diff(int32_t diff) {
    diffs[last] = diff;
    times[last] += uint64_t(int64_t(diff));
    extreme[last] = 0;
  }
  /// A new sequence starting at `t`, in the slot after the last one started.
  void start_sequence(uint64_t t) {
    next = (next + 1) & 3;
    last = next;
    times[last] = t;
    diffs[last] = 0;
    extreme[last] = 0;
  }
  /// The sequence `i` (1..3) ahead of the last.
  void switch_by(uint32_t i) { last = (last + i) & 3; }
};

// ---------------------------------------------------------------- RGB

/// Red, green, blue with byte-wise differences (RGB12 v2 and the layered RGB14): the first
/// symbol says which bytes changed (bits 0-5) and whether the colour is not grey (bit 6).
template <class Side>
struct RgbModels {
  Model<128> used;
  Model<256> diff[6];
  void reset() {
    Side::reset(used);
    for (auto& m : diff) Side::reset(m);
  }
};

/// Byte `shift` (0: low, 8: high) of a 16-bit channel.
inline int32_t channel_byte(uint16_t v, int shift) {
  return int32_t((v >> shift) & 0xFF);
}
/// Green's byte predicted from the last green moved by red's change (`c`: this colour, `l`: the
/// last).
inline int32_t green_prediction(const uint16_t* c, const uint16_t* l, int shift) {
  return clamp_u8(channel_byte(c[0], shift) - channel_byte(l[0], shift) +
                  channel_byte(l[1], shift));
}
/// Blue's byte predicted from the last blue moved by the mean of red's and green's changes.
inline int32_t blue_prediction(const uint16_t* c, const uint16_t* l, int shift) {
  const int32_t d = (channel_byte(c[0], shift) - channel_byte(l[0], shift) +
                     channel_byte(c[1], shift) - channel_byte(l[1], shift)) /
                    2;
  return clamp_u8(d + channel_byte(l[2], shift));
}

/// RGB12 v2.
template <class Side>
struct Rgb12State {
  uint16_t last[3] = {};
  RgbModels<Side> mo;
  void start(const uint8_t* raw) {
    std::memcpy(last, raw, 6);
    mo.reset();
  }
};

/// BYTE v2 (extra bytes): each byte a difference to the previous point's, a model per byte.
template <class Side>
struct BytesState {
  explicit BytesState(size_t n) : last(n), mo(n) {}
  std::vector<uint8_t> last;
  std::vector<Model<256>> mo;
  void start(const uint8_t* raw) {
    std::memcpy(last.data(), raw, last.size());
    for (auto& m : mo) Side::reset(m);
  }
};

// ---------------------------------------------------------------- POINT10

// Return-kind contexts of the point-wise POINT10 (return number r, number of returns n, 3 bits
// each): m maps (n, r) to 16 classes, l is the distance |n - r| (level of penetration).
constexpr uint8_t kReturnMap[8][8] = {
    {15, 14, 13, 12, 11, 10, 9, 8},  {14, 0, 1, 3, 6, 10, 10, 9},
    {13, 1, 2, 4, 7, 11, 11, 10},    {12, 3, 4, 5, 8, 12, 12, 11},
    {11, 6, 7, 8, 9, 13, 13, 12},    {10, 10, 11, 12, 13, 14, 14, 13},
    {9, 10, 11, 12, 13, 14, 15, 14}, {8, 9, 10, 11, 12, 13, 14, 15}};

/// A POINT10 record (20 bytes: x, y, z, intensity, return bits, classification, scan angle rank,
/// user data, point source id).
struct P10 {
  int32_t x = 0, y = 0, z = 0;
  uint16_t intensity = 0, psid = 0;
  uint8_t bits = 0, cls = 0, angle = 0, user = 0;

  void unpack(const uint8_t* r) {
    x = get_le<int32_t>(r);
    y = get_le<int32_t>(r + 4);
    z = get_le<int32_t>(r + 8);
    intensity = get_le<uint16_t>(r + 12);
    bits = r[14];
    cls = r[15];
    angle = r[16];
    user = r[17];
    psid = get_le<uint16_t>(r + 18);
  }
  void pack(uint8_t* r) const {
    put_le(r, x);
    put_le(r + 4, y);
    put_le(r + 8, z);
    put_le(r + 12, intensity);
    r[14] = bits;
    r[15] = cls;
    r[16] = angle;
    r[17] = user;
    put_le(r + 18, psid);
  }
};

/// POINT10 v2: one symbol says which of the five non-coordinate fields changed (and whether the
/// intensity differs from the last one of this return kind); the return bits, classification
/// and user data are symbols of a model chosen by their last value; x and y are differences
/// predicted by the median of the last five differences of the return kind; z is predicted by the
/// last z of the same level.
template <class Side>
struct Point10State {
  P10 last;
  uint16_t last_intensity[16] = {};
  int32_t last_height[8] = {};
  Median5 mx[16], my[16];
  Model<64> changed;
  Model<256> angle_m[2];
  Model<256> bit_m[256], cls_m[256], user_m[256];
  typename Side::Int ic_intensity, ic_psid, ic_dx, ic_dy, ic_z;

  void start(const uint8_t* raw) {
    last.unpack(raw);
    for (auto& v : last_intensity) v = 0;
    for (auto& v : last_height) v = 0;
    for (auto& m : mx) m = Median5();
    for (auto& m : my) m = Median5();
    Side::reset(changed);
    for (auto& m : angle_m) Side::reset(m);
    for (int i = 0; i < 256; ++i) {
      Side::reset(bit_m[i]);
      Side::reset(cls_m[i]);
      Side::reset(user_m[i]);
    }
    ic_intensity.init(16, 4);
    ic_psid.init(16, 1);
    ic_dx.init(32, 2);
    ic_dy.init(32, 22);
    ic_z.init(32, 20);
  }
};

// ---------------------------------------------------------------- POINT14

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
    x = get_le<int32_t>(r);
    y = get_le<int32_t>(r + 4);
    z = get_le<int32_t>(r + 8);
    intensity = get_le<uint16_t>(r + 12);
    ret = r[14] & 15;
    nret = r[14] >> 4;
    class_flags = r[15] & 15;
    channel = (r[15] >> 4) & 3;
    scan_dir = (r[15] >> 6) & 1;
    edge = r[15] >> 7;
    cls = r[16];
    user = r[17];
    angle = get_le<int16_t>(r + 18);
    psid = get_le<uint16_t>(r + 20);
    gps = get_le<uint64_t>(r + 22);
  }
  void pack(uint8_t* r) const {
    put_le(r, x);
    put_le(r + 4, y);
    put_le(r + 8, z);
    put_le(r + 12, intensity);
    r[14] = uint8_t(ret | (nret << 4));
    r[15] = uint8_t(class_flags | (channel << 4) | (scan_dir << 6) | (edge << 7));
    r[16] = cls;
    r[17] = user;
    put_le(r + 18, angle);
    put_le(r + 20, psid);
    put_le(r + 22, gps);
  }
  /// The changed-values symbol's model, from this (the last) point: whether it was a first and a
  /// last return and whether its GPS time changed.
  uint32_t changed_context() const {
    return (ret == 1 ? 1u : 0u) + (ret >= nret ? 2u : 0u) + (gps_change ? 4u : 0u);
  }
  /// The flags symbol: edge of flight line, scan direction and the classification flags.
  uint32_t flags() const { return uint32_t(edge << 5) | uint32_t(scan_dir << 4) | class_flags; }
};

/// The return class of the attribute layers: first return (2), last return (1).
inline uint32_t return_class14(uint32_t r, uint32_t n) {
  return (r == 1 ? 2u : 0u) + (r >= n ? 1u : 0u);
}

/// The context of one scanner channel: its last point and its models.
template <class Side>
struct Point14Context {
  bool unused = true;
  P14 last;
  Model<128> changed[8];
  Model<3> channel_m;
  Model<16> nret_m[16], ret_m[16];
  Model<13> ret_gps_same;
  typename Side::Int ic_dx, ic_dy, ic_z, ic_intensity, ic_angle, ic_psid;
  Median5 mx[12], my[12];
  int32_t last_z[8] = {};
  uint16_t last_intensity[8] = {};
  Model<256> cls_m[64];
  Model<64> flags_m[64];
  Model<256> user_m[64];
  GpsState<Side> gps;

  /// The channel's models afresh, predicting from `item`.
  void create(const P14& item) {
    for (auto& m : changed) Side::reset(m);
    Side::reset(channel_m);
    for (auto& m : nret_m) Side::reset(m);
    for (auto& m : ret_m) Side::reset(m);
    Side::reset(ret_gps_same);
    ic_dx.init(32, 2);
    ic_dy.init(32, 22);
    ic_z.init(32, 20);
    ic_intensity.init(16, 4);
    ic_angle.init(16, 2);
    ic_psid.init(16, 1);
    for (auto& m : mx) m = Median5();
    for (auto& m : my) m = Median5();
    for (auto& v : last_z) v = item.z;
    for (auto& v : last_intensity) v = item.intensity;
    for (int i = 0; i < 64; ++i) {
      Side::reset(cls_m[i]);
      Side::reset(flags_m[i]);
      Side::reset(user_m[i]);
    }
    gps.start(item.gps, true);
    last = item;
    last.gps_change = false;
    unused = false;
  }
};

/// POINT14 v3/v4: nine layers (returns+XY, Z, classification, flags, intensity, scan angle,
/// user data, point source, GPS time) and a context per scanner channel.
template <class Side>
struct Point14State {
  enum { kXY, kZ, kClass, kFlags, kIntensity, kAngle, kUser, kSource, kGps, kLayers };
  Point14Context<Side> ctx[4];
  uint32_t cur = 0;

  /// The chunk's first point: its channel's context, the others unused. `context` gets the
  /// channel (the items after POINT14 predict per channel).
  void start(const uint8_t* raw, uint32_t& context) {
    for (auto& k : ctx) k.unused = true;
    P14 p;
    p.unpack(raw);
    cur = p.channel;
    context = cur;
    ctx[cur].create(p);
  }
  /// A point of another channel: a channel not used before starts from the current one's last
  /// point.
  void switch_to(uint32_t channel) {
    if (ctx[channel].unused) ctx[channel].create(ctx[cur].last);
    cur = channel;
    ctx[cur].last.channel = uint8_t(channel);
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
  /// The chunk's first item, in channel `context`.
  void start(uint32_t context) {
    *this = ChannelLast();
    cur = context;
    unused[context] = false;
  }
};

/// RGB14 / RGBNIR14: the colour (and the NIR) of the last item of each channel and its models.
template <class Side>
struct Rgb14State {
  Rgb14State(int v, bool nir_) : version(v), nir(nir_) {}
  int version;
  bool nir;
  uint16_t last[4][4] = {};
  RgbModels<Side> mo[4];
  Model<4> nir_used[4];
  Model<256> nir_diff[4][2];
  ChannelLast ch;

  void reset(uint32_t c) {
    mo[c].reset();
    Side::reset(nir_used[c]);
    Side::reset(nir_diff[c][0]);
    Side::reset(nir_diff[c][1]);
  }
  void start(const uint8_t* raw, uint32_t context) {
    ch.start(context);
    std::memcpy(last[context], raw, nir ? 8 : 6);
    reset(context);
  }
  /// The last item the point of channel `context` predicts from (ChannelLast); a channel that
  /// starts now takes the previous channel's last item and fresh models.
  uint16_t* predict_from(uint32_t context) {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      std::memcpy(last[ch.cur], last[from], sizeof last[0]);
      reset(ch.cur);
    }
    return last[use];
  }
};

/// BYTE14: a layer per byte, each byte a difference to the last item's, per channel.
template <class Side>
struct Byte14State {
  Byte14State(int v, size_t n_) : version(v), n(n_) {
    for (auto& l : last) l.assign(n, 0);
    for (auto& m : mo) m.assign(n, Model<256>());
  }
  int version;
  size_t n;
  std::vector<uint8_t> last[4];
  std::vector<Model<256>> mo[4];
  ChannelLast ch;

  void start(const uint8_t* raw, uint32_t context) {
    ch.start(context);
    std::memcpy(last[context].data(), raw, n);
    for (auto& m : mo[context]) Side::reset(m);
  }
  /// As Rgb14State::predict_from.
  uint8_t* predict_from(uint32_t context) {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      last[ch.cur] = last[from];
      for (auto& m : mo[ch.cur]) Side::reset(m);
    }
    return last[use].data();
  }
};

}  // namespace

}  // namespace pr::io::laz
