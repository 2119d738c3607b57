// The layered LAZ item encoders of LASzip's LAS 1.4 compressor, version 3: POINT14, RGB14,
// RGBNIR14 and BYTE14, each the mirror of its decoder in laz_items14.h. An encoder predicts every
// field from the same state the decoder holds at that point (the same scanner-channel context, the
// same last item, the same models) and codes the difference with the same model and context, so
// the decoder's calls read back exactly the values written here. Every field group goes to a layer
// of its own; a layer whose field never differs from its prediction's last item in the chunk is
// left out (size 0), and the decoder then keeps the last item's value, which is the value. Such a
// layer's symbols wait until its field first changes (Trail, Point14Enc::trail_), so a field that
// never changes costs nothing to code.
// Included only by laz_write_layered.cpp (the decoders' helpers and P14 come from laz_items14.h,
// the GPS time coder from laz_enc_items.h).
#pragma once

#include <cstring>
#include <vector>

#include "laz_enc_items.h"
#include "laz_items14.h"

namespace pr::io::laz {

namespace {

/// One layer being written: its arithmetic encoder, its bytes, and whether any point changed its
/// field (only then is it stored).
struct EncLayer {
  Encoder e;
  std::vector<uint8_t> bytes;
  bool changed = false;

  // The buffer keeps its capacity from chunk to chunk (Encoder::init resizes, never shrinks).
  EncLayer() { bytes.reserve(1 << 14); }
  void start() {
    e.init(bytes);
    changed = false;
  }
  /// The layer's size in the chunk: its stream ended, or 0 when its field never changed.
  uint32_t finish() {
    if (!changed) return 0;
    e.done();
    return uint32_t(bytes.size());
  }
  void append(std::vector<uint8_t>& out) const {
    if (changed) out.insert(out.end(), bytes.begin(), bytes.end());
  }
};

/// POINT14 v3, writing: the nine layers of Point14 and a context per scanner channel.
struct Point14Enc {
  enum { kXY, kZ, kClass, kFlags, kIntensity, kAngle, kUser, kSource, kGps, kLayers };
  EncLayer lay[kLayers];

  struct Ctx {
    bool unused = true;
    P14 last;
    SymbolModel changed[8], channel_m, nret_m[16], ret_m[16], ret_gps_same;
    IntEncoder ic_dx, ic_dy, ic_z, ic_intensity, ic_angle, ic_psid;
    Median5 mx[12], my[12];
    int32_t last_z[8] = {};
    uint16_t last_intensity[8] = {};
    SymbolModel cls_m[64], flags_m[64], user_m[64];
    GpsEnc gps;
  };
  Ctx ctx[4];
  uint32_t cur = 0;

  /// Point14::create: channel `c`'s models afresh, predicting from `item`.
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

  void init(const uint8_t* raw, uint32_t& context) {
    for (auto& l : lay) l.start();
    // The XY layer (the changed-values symbols) is read for every point, and LASzip always
    // stores Z too.
    lay[kXY].changed = lay[kZ].changed = true;
    trail_.clear();
    deferring_ = true;
    for (auto& k : ctx) k.unused = true;
    P14 p;
    p.unpack(raw);
    cur = p.channel;
    context = cur;
    create(cur, p);
  }

  /// The changed-values symbol (what differs from the channel's last point, bit 6: the channel
  /// itself) and the switch to the point's channel (Point14::read_changed). Version 3 hands the
  /// channel to the other items only on the point that switches.
  uint32_t write_changed(const P14& p, uint32_t& context) {
    Encoder& exy = lay[kXY].e;
    const P14& prev = ctx[cur].last;
    const uint32_t lpr =
        (prev.ret == 1 ? 1u : 0u) + (prev.ret >= prev.nret ? 2u : 0u) + (prev.gps_change ? 4u : 0u);
    const uint32_t channel = p.channel;
    // Fields compare with the last point of the point's own channel; a channel not yet used
    // starts from the current channel's last point.
    const P14& last = channel != cur && !ctx[channel].unused ? ctx[channel].last : prev;
    const uint32_t n = p.nret, r = p.ret, last_r = last.ret;
    uint32_t cv = (channel != cur ? 64u : 0u) | (p.psid != last.psid ? 32u : 0u) |
                  (p.gps != last.gps ? 16u : 0u) | (p.angle != last.angle ? 8u : 0u) |
                  (n != last.nret ? 4u : 0u);
    if (r != last_r) cv |= r == ((last_r + 1) & 15) ? 1u : r == ((last_r + 15) & 15) ? 2u : 3u;
    exy.symbol(enc_model(ctx[cur].changed[lpr], 128), cv);
    if (cv & 64) {
      // The decoder's channel is (cur + sym + 1) mod 4.
      exy.symbol(enc_model(ctx[cur].channel_m, 3), (channel + 3 - cur) & 3);
      if (ctx[channel].unused) create(channel, ctx[cur].last);
      cur = channel;
      context = cur;
    }
    return cv;
  }

  /// The number of returns and the return number (Point14::read_returns).
  static void write_returns(Encoder& exy, Ctx& k, const P14& p, uint32_t cv) {
    const uint32_t last_n = k.last.nret, last_r = k.last.ret;
    if (cv & 4) exy.symbol(enc_model(k.nret_m[last_n], 16), p.nret);
    if ((cv & 3) == 3) {
      if (cv & 16)
        exy.symbol(enc_model(k.ret_m[last_r], 16), p.ret);
      else  // r = last_r + sym + 2 (mod 16): the differences 2..14 and -14..-2
        exy.symbol(enc_model(k.ret_gps_same, 13), (p.ret - last_r + 14) & 15);
    }
  }

  /// X and Y as differences from the last point predicted by their medians, Z from the last Z
  /// of the same return level (Point14::read_xyz).
  void write_xyz(Ctx& k, const P14& p, bool gps_change) {
    Encoder& exy = lay[kXY].e;
    const uint32_t n = p.nret, r = p.ret;
    const uint32_t m = kReturnMap6[n][r], l = level(n, r, 7);
    const uint32_t mi = (m << 1) | (gps_change ? 1u : 0u);
    int32_t diff = int32_t(uint32_t(p.x) - uint32_t(k.last.x));
    k.ic_dx.encode(exy, k.mx[mi].get(), diff, n == 1);
    k.mx[mi].add(diff);
    uint32_t kb = k.ic_dx.k();
    diff = int32_t(uint32_t(p.y) - uint32_t(k.last.y));
    k.ic_dy.encode(exy, k.my[mi].get(), diff, (n == 1) + (kb < 20 ? (kb & ~1u) : 20));
    k.my[mi].add(diff);
    kb = (k.ic_dx.k() + k.ic_dy.k()) / 2;
    k.ic_z.encode(lay[kZ].e, k.last_z[l], p.z, (n == 1) + (kb < 18 ? (kb & ~1u) : 18));
    k.last_z[l] = p.z;
  }

  // Classification, flags, intensity and user data code a symbol on every point, but their
  // layers are kept only once a point changes the field. Until then every point's symbol is the
  // same (the chunk's first value, unchanged), so it is not coded at once: each point's channel
  // and return class are noted in trail_, and the first change codes those points' symbols
  // first, in order, with the models they would have met then (a channel's models start fresh
  // when the channel starts, before any of its points, and change only by their own layer's
  // symbols). A field that never changes costs no coding at all.
  std::vector<uint8_t> trail_;  // channel | cpr << 2 of each point after the first
  bool deferring_ = true;       // one of the four layers has not changed yet

  static uint32_t flags(const P14& q) {
    return uint32_t(q.edge << 5) | uint32_t(q.scan_dir << 4) | q.class_flags;
  }

  /// Codes the deferred symbols of `layer` for the points in trail_, whose value was `v`'s.
  void replay(int layer, const P14& v) {
    Encoder& e = lay[layer].e;
    for (const uint8_t t : trail_) {
      Ctx& k = ctx[t & 3];
      const uint32_t cpr = uint32_t(t >> 2);
      if (layer == kClass)
        e.symbol(enc_model(k.cls_m[((v.cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u)], 256), v.cls);
      else if (layer == kFlags)
        e.symbol(enc_model(k.flags_m[flags(v)], 64), flags(v));
      else if (layer == kIntensity)
        k.ic_intensity.encode(e, v.intensity, v.intensity, cpr);
      else
        e.symbol(enc_model(k.user_m[v.user / 4], 256), v.user);
    }
  }

  /// Whether this point's symbol of `layer` is coded now: once the layer has changed, or when
  /// this point changes it (after the deferred symbols before it).
  bool code_now(int layer, bool differs, const P14& last) {
    if (lay[layer].changed) return true;
    if (!differs) return false;
    replay(layer, last);
    lay[layer].changed = true;
    return true;
  }

  /// Classification, flags, intensity, scan angle, user data, point source and GPS time
  /// (Point14::read_attributes).
  void write_attributes(Ctx& k, const P14& p, uint32_t cpr, uint32_t cv) {
    const P14& last = k.last;
    const bool gps_change = cv & 16;
    if (code_now(kClass, p.cls != last.cls, last)) {
      const uint32_t ccc = ((last.cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u);
      lay[kClass].e.symbol(enc_model(k.cls_m[ccc], 256), p.cls);
    }
    const uint32_t lf = flags(last), f = flags(p);
    if (code_now(kFlags, f != lf, last)) lay[kFlags].e.symbol(enc_model(k.flags_m[lf], 64), f);
    const uint32_t ii = (cpr << 1) | (gps_change ? 1u : 0u);
    if (code_now(kIntensity, p.intensity != last.intensity, last))
      k.ic_intensity.encode(lay[kIntensity].e, k.last_intensity[ii], p.intensity, cpr);
    k.last_intensity[ii] = p.intensity;
    if (cv & 8) {
      k.ic_angle.encode(lay[kAngle].e, last.angle, p.angle, gps_change);
      lay[kAngle].changed = true;
    }
    if (code_now(kUser, p.user != last.user, last))
      lay[kUser].e.symbol(enc_model(k.user_m[last.user / 4], 256), p.user);
    if (cv & 32) {
      k.ic_psid.encode(lay[kSource].e, last.psid, p.psid);
      lay[kSource].changed = true;
    }
    if (gps_change) {
      k.gps.write(lay[kGps].e, p.gps);
      lay[kGps].changed = true;
    }
    if (deferring_) {
      deferring_ = !(lay[kClass].changed && lay[kFlags].changed && lay[kIntensity].changed &&
                     lay[kUser].changed);
      if (deferring_) trail_.push_back(uint8_t(cur | (cpr << 2)));
    }
  }

  void write(const uint8_t* rec, uint32_t& context) {
    P14 p;
    p.unpack(rec);
    const uint32_t cv = write_changed(p, context);
    Ctx& k = ctx[cur];
    write_returns(lay[kXY].e, k, p, cv);
    const uint32_t cpr = (p.ret == 1 ? 2u : 0u) + (p.ret >= p.nret ? 1u : 0u);
    const bool gps_change = cv & 16;
    write_xyz(k, p, gps_change);
    write_attributes(k, p, cpr, cv);
    k.last = p;
    k.last.gps_change = gps_change;
  }
};

/// The channels of the points whose symbols of a still unchanged layer wait (RGB14, RGBNIR14 and
/// BYTE14, as Point14Enc's trail_): while a layer's field never differs from the last item, each
/// of its symbols is the same "unchanged" symbol in the model of the point's channel; the first
/// change codes them, in order, before its own.
struct Trail {
  std::vector<uint8_t> channels;
  size_t waiting = 0;  // layers still unchanged
  void start(size_t layers) {
    channels.clear();
    waiting = layers;
  }
  void note(uint32_t channel) {
    if (waiting) channels.push_back(uint8_t(channel));
  }
};

/// RGB14 / RGBNIR14 v3, writing: the colour layer (and the NIR layer), a context per channel,
/// the last item after a channel switch chosen as Rgb14 chooses it (ChannelLast).
struct Rgb14Enc {
  explicit Rgb14Enc(bool nir_) : nir(nir_) {}
  bool nir;
  EncLayer lay[2];
  uint16_t last[4][4] = {};
  RgbModels mo[4];
  SymbolModel nir_used[4], nir_diff[4][2];
  ChannelLast ch;
  Trail trail;

  void reset(uint32_t c) {
    mo[c].reset();
    nir_used[c] = nir_diff[c][0] = nir_diff[c][1] = SymbolModel();
  }
  void init(const uint8_t* raw, uint32_t context) {
    lay[0].start();
    if (nir) lay[1].start();
    trail.start(nir ? 2 : 1);
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context], raw, nir ? 8 : 6);
    reset(context);
  }

  /// Which bytes of colour `c` differ from the last colour `l` (bits 0-5) and whether it is not
  /// grey (bit 6): decode_rgb's first symbol.
  static uint32_t rgb_symbol(const uint16_t* l, const uint16_t* c) {
    auto lo = [](uint16_t v) { return int32_t(v & 0xFF); };
    auto hi = [](uint16_t v) { return int32_t(v >> 8); };
    uint32_t sym = 0;
    for (int i = 0; i < 3; ++i) {
      sym |= uint32_t(lo(c[i]) != lo(l[i])) << (2 * i);
      sym |= uint32_t(hi(c[i]) != hi(l[i])) << (2 * i + 1);
    }
    if (lo(c[0]) != lo(c[1]) || lo(c[0]) != lo(c[2]) || hi(c[0]) != hi(c[1]) ||
        hi(c[0]) != hi(c[2]))
      sym |= 64;
    return sym;
  }

  /// The mirror of decode_rgb: the symbol `sym`, the red bytes as differences, green and blue as
  /// corrections of red's difference.
  static void encode_rgb(Encoder& e, RgbModels& mo, const uint16_t* l, const uint16_t* c,
                         uint32_t sym) {
    auto lo = [](uint16_t v) { return int32_t(v & 0xFF); };
    auto hi = [](uint16_t v) { return int32_t(v >> 8); };
    e.symbol(enc_model(mo.used, 128), sym);
    const int32_t dl = lo(c[0]) - lo(l[0]), dh = hi(c[0]) - hi(l[0]);
    if (sym & 1) e.symbol(enc_model(mo.diff[0], 256), fold(uint32_t(dl)));
    if (sym & 2) e.symbol(enc_model(mo.diff[1], 256), fold(uint32_t(dh)));
    if (sym & 64) {
      if (sym & 4)
        e.symbol(enc_model(mo.diff[2], 256), fold(uint32_t(lo(c[1]) - clamp_u8(dl + lo(l[1])))));
      if (sym & 16) {
        const int32_t d = (dl + lo(c[1]) - lo(l[1])) / 2;
        e.symbol(enc_model(mo.diff[4], 256), fold(uint32_t(lo(c[2]) - clamp_u8(d + lo(l[2])))));
      }
      if (sym & 8)
        e.symbol(enc_model(mo.diff[3], 256), fold(uint32_t(hi(c[1]) - clamp_u8(dh + hi(l[1])))));
      if (sym & 32) {
        const int32_t d = (dh + hi(c[1]) - hi(l[1])) / 2;
        e.symbol(enc_model(mo.diff[5], 256), fold(uint32_t(hi(c[2]) - clamp_u8(d + hi(l[2])))));
      }
    }
  }

  /// Whether layer `i`'s symbol `sym` is coded now (see Trail); a first change codes the waiting
  /// "unchanged" symbols (0) first.
  bool code_now(int i, uint32_t sym) {
    if (lay[i].changed) return true;
    if (!sym) return false;
    for (const uint8_t c : trail.channels)
      lay[i].e.symbol(i == 0 ? enc_model(mo[c].used, 128) : enc_model(nir_used[c], 4), 0);
    lay[i].changed = true;
    --trail.waiting;
    return true;
  }

  void write(const uint8_t* rec, uint32_t context) {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, 3, fresh, from);
    if (fresh) {
      std::memcpy(last[ch.cur], last[from], sizeof last[0]);
      reset(ch.cur);
    }
    uint16_t* l = last[use];
    uint16_t c[4];
    std::memcpy(c, rec, nir ? 8 : 6);
    const uint32_t sym = rgb_symbol(l, c);
    if (code_now(0, sym)) encode_rgb(lay[0].e, mo[ch.cur], l, c, sym);
    if (nir) {
      const uint32_t ns = uint32_t((c[3] & 0xFF) != (l[3] & 0xFF)) |
                          (uint32_t((c[3] & 0xFF00) != (l[3] & 0xFF00)) << 1);
      if (code_now(1, ns)) {
        Encoder& e = lay[1].e;
        e.symbol(enc_model(nir_used[ch.cur], 4), ns);
        if (ns & 1) e.symbol(enc_model(nir_diff[ch.cur][0], 256), fold(uint32_t(c[3] - l[3])));
        if (ns & 2)
          e.symbol(enc_model(nir_diff[ch.cur][1], 256), fold(uint32_t((c[3] >> 8) - (l[3] >> 8))));
      }
    }
    trail.note(ch.cur);
    std::memcpy(l, c, nir ? 8 : 6);
  }
};

/// BYTE14 v3, writing: a layer per byte, each byte coded as its difference from the last item's.
struct Byte14Enc {
  explicit Byte14Enc(size_t n_) : n(n_), lay(n_) {
    for (auto& l : last) l.assign(n, 0);
    for (auto& m : mo) m.assign(n, SymbolModel());
  }
  size_t n;
  std::vector<EncLayer> lay;
  std::vector<uint8_t> last[4];
  std::vector<SymbolModel> mo[4];
  ChannelLast ch;
  Trail trail;

  void init(const uint8_t* raw, uint32_t context) {
    for (auto& l : lay) l.start();
    trail.start(n);
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context].data(), raw, n);
    for (auto& m : mo[context]) m = SymbolModel();
  }
  void write(const uint8_t* rec, uint32_t context) {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, 3, fresh, from);
    if (fresh) {
      last[ch.cur] = last[from];
      for (auto& m : mo[ch.cur]) m = SymbolModel();
    }
    uint8_t* l = last[use].data();
    SymbolModel* m = mo[ch.cur].data();
    for (size_t i = 0; i < n; ++i) {
      if (!lay[i].changed) {
        if (rec[i] == l[i]) continue;  // the difference 0 waits in the trail
        for (const uint8_t c : trail.channels) lay[i].e.symbol(enc_model(mo[c][i], 256), 0);
        lay[i].changed = true;
        --trail.waiting;
      }
      lay[i].e.symbol(enc_model(m[i], 256), fold(uint32_t(rec[i]) - l[i]));
      l[i] = rec[i];
    }
    trail.note(ch.cur);
  }
};

}  // namespace

}  // namespace pr::io::laz
