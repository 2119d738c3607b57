// The layered LAZ item encoders of LASzip's LAS 1.4 compressor, version 3: POINT14, RGB14,
// RGBNIR14 and BYTE14, each the mirror of its decoder in laz_items14.h. An encoder predicts every
// field from the same state the decoder holds at that point (the same scanner-channel context, the
// same last item, the same models) and codes the difference with the same model and context, so
// the decoder's calls read back exactly the values written here. Every field group goes to a layer
// of its own; a layer whose field never differs from its prediction's last item in the chunk is
// left out (size 0), and the decoder then keeps the last item's value, which is the value. Such a
// layer's symbols wait until its field first changes (Trail, Point14Enc::trail_), so a field that
// never changes costs nothing to code.
// Included only by laz_write_layered.cpp (the state shared with the decoders comes from
// laz_state.h, the GPS time and RGB coders from laz_enc_items.h).
#pragma once

#include <cstring>
#include <vector>

#include "laz_enc_items.h"

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

/// POINT14 v3 (laz_state.h's Point14State), writing: its nine layers, each with its encoder.
struct Point14Enc : Point14State<Encoding> {
  using Ctx = Point14Context<Encoding>;
  EncLayer lay[kLayers];

  void init(const uint8_t* raw, uint32_t& context) {
    for (auto& l : lay) l.start();
    // The XY layer (the changed-values symbols) is read for every point, and LASzip always
    // stores Z too.
    lay[kXY].changed = lay[kZ].changed = true;
    trail_.clear();
    deferring_ = true;
    start(raw, context);
  }

  /// The changed-values symbol (what differs from the channel's last point, bit 6: the channel
  /// itself) and the switch to the point's channel (Point14::read_changed). Version 3 hands the
  /// channel to the other items only on the point that switches.
  uint32_t write_changed(const P14& p, uint32_t& context) {
    Encoder& exy = lay[kXY].e;
    const P14& prev = ctx[cur].last;
    const uint32_t lpr = prev.changed_context();
    const uint32_t channel = p.channel;
    // Fields compare with the last point of the point's own channel; a channel not yet used
    // starts from the current channel's last point.
    const P14& last = channel != cur && !ctx[channel].unused ? ctx[channel].last : prev;
    const uint32_t n = p.nret, r = p.ret, last_r = last.ret;
    uint32_t cv = (channel != cur ? 64u : 0u) | (p.psid != last.psid ? 32u : 0u) |
                  (p.gps != last.gps ? 16u : 0u) | (p.angle != last.angle ? 8u : 0u) |
                  (n != last.nret ? 4u : 0u);
    if (r != last_r) cv |= r == ((last_r + 1) & 15) ? 1u : r == ((last_r + 15) & 15) ? 2u : 3u;
    exy.symbol(enc_model(ctx[cur].changed[lpr]), cv);
    if (cv & 64) {
      // The decoder's channel is (cur + sym + 1) mod 4.
      exy.symbol(enc_model(ctx[cur].channel_m), (channel + 3 - cur) & 3);
      switch_to(channel);
      context = cur;
    }
    return cv;
  }

  /// The number of returns and the return number (Point14::read_returns).
  static void write_returns(Encoder& exy, Ctx& k, const P14& p, uint32_t cv) {
    const uint32_t last_n = k.last.nret, last_r = k.last.ret;
    if (cv & 4) exy.symbol(enc_model(k.nret_m[last_n]), p.nret);
    if ((cv & 3) == 3) {
      if (cv & 16)
        exy.symbol(enc_model(k.ret_m[last_r]), p.ret);
      else  // r = last_r + sym + 2 (mod 16): the differences 2..14 and -14..-2
        exy.symbol(enc_model(k.ret_gps_same), (p.ret - last_r + 14) & 15);
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
    k.ic_dy.encode(exy, k.my[mi].get(), diff, y_context(n, kb));
    k.my[mi].add(diff);
    kb = (k.ic_dx.k() + k.ic_dy.k()) / 2;
    k.ic_z.encode(lay[kZ].e, k.last_z[l], p.z, z_context(n, kb));
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

  /// Codes the deferred symbols of `layer` for the points in trail_, whose value was `v`'s.
  void replay(int layer, const P14& v) {
    Encoder& e = lay[layer].e;
    for (const uint8_t t : trail_) {
      Ctx& k = ctx[t & 3];
      const uint32_t cpr = uint32_t(t >> 2);
      if (layer == kClass)
        e.symbol(enc_model(k.cls_m[((v.cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u)]), v.cls);
      else if (layer == kFlags)
        e.symbol(enc_model(k.flags_m[v.flags()]), v.flags());
      else if (layer == kIntensity)
        k.ic_intensity.encode(e, v.intensity, v.intensity, cpr);
      else
        e.symbol(enc_model(k.user_m[v.user / 4]), v.user);
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
      lay[kClass].e.symbol(enc_model(k.cls_m[ccc]), p.cls);
    }
    const uint32_t lf = last.flags(), f = p.flags();
    if (code_now(kFlags, f != lf, last)) lay[kFlags].e.symbol(enc_model(k.flags_m[lf]), f);
    const uint32_t ii = (cpr << 1) | (gps_change ? 1u : 0u);
    if (code_now(kIntensity, p.intensity != last.intensity, last))
      k.ic_intensity.encode(lay[kIntensity].e, k.last_intensity[ii], p.intensity, cpr);
    k.last_intensity[ii] = p.intensity;
    if (cv & 8) {
      k.ic_angle.encode(lay[kAngle].e, last.angle, p.angle, gps_change);
      lay[kAngle].changed = true;
    }
    if (code_now(kUser, p.user != last.user, last))
      lay[kUser].e.symbol(enc_model(k.user_m[last.user / 4]), p.user);
    if (cv & 32) {
      k.ic_psid.encode(lay[kSource].e, last.psid, p.psid);
      lay[kSource].changed = true;
    }
    if (gps_change) {
      write_gps(k.gps, lay[kGps].e, p.gps);
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
    const uint32_t cpr = return_class14(p.ret, p.nret);
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

/// RGB14 / RGBNIR14 v3 (laz_state.h's Rgb14State), writing: the colour layer (and the NIR
/// layer).
struct Rgb14Enc : Rgb14State<Encoding> {
  explicit Rgb14Enc(bool nir_) : Rgb14State(3, nir_) {}
  EncLayer lay[2];
  Trail trail;

  void init(const uint8_t* raw, uint32_t context) {
    lay[0].start();
    if (nir) lay[1].start();
    trail.start(nir ? 2 : 1);
    start(raw, context);
  }

  /// Whether layer `i`'s symbol `sym` is coded now (see Trail); a first change codes the waiting
  /// "unchanged" symbols (0) first.
  bool code_now(int i, uint32_t sym) {
    if (lay[i].changed) return true;
    if (!sym) return false;
    for (const uint8_t c : trail.channels)
      lay[i].e.symbol(i == 0 ? enc_model(mo[c].used) : enc_model(nir_used[c]), 0);
    lay[i].changed = true;
    --trail.waiting;
    return true;
  }

  void write(const uint8_t* rec, uint32_t context) {
    uint16_t* l = predict_from(context);
    uint16_t c[4];
    std::memcpy(c, rec, nir ? 8 : 6);
    const uint32_t sym = rgb_symbol(l, c);
    if (code_now(0, sym)) encode_rgb(lay[0].e, mo[ch.cur], l, c, sym);
    if (nir) {
      const uint32_t ns = uint32_t((c[3] & 0xFF) != (l[3] & 0xFF)) |
                          (uint32_t((c[3] & 0xFF00) != (l[3] & 0xFF00)) << 1);
      if (code_now(1, ns)) {
        Encoder& e = lay[1].e;
        e.symbol(enc_model(nir_used[ch.cur]), ns);
        if (ns & 1) e.symbol(enc_model(nir_diff[ch.cur][0]), fold(uint32_t(c[3] - l[3])));
        if (ns & 2)
          e.symbol(enc_model(nir_diff[ch.cur][1]), fold(uint32_t((c[3] >> 8) - (l[3] >> 8))));
      }
    }
    trail.note(ch.cur);
    std::memcpy(l, c, nir ? 8 : 6);
  }
};

/// BYTE14 v3 (laz_state.h's Byte14State), writing: a layer per byte.
struct Byte14Enc : Byte14State<Encoding> {
  explicit Byte14Enc(size_t n_) : Byte14State(3, n_), lay(n_) {}
  std::vector<EncLayer> lay;
  Trail trail;

  void init(const uint8_t* raw, uint32_t context) {
    for (auto& l : lay) l.start();
    trail.start(n);
    start(raw, context);
  }
  void write(const uint8_t* rec, uint32_t context) {
    uint8_t* l = predict_from(context);
    Model<256>* m = mo[ch.cur].data();
    for (size_t i = 0; i < n; ++i) {
      if (!lay[i].changed) {
        if (rec[i] == l[i]) continue;  // the difference 0 waits in the trail
        for (const uint8_t c : trail.channels) lay[i].e.symbol(enc_model(mo[c][i]), 0);
        lay[i].changed = true;
        --trail.waiting;
      }
      lay[i].e.symbol(enc_model(m[i]), fold(uint32_t(rec[i]) - l[i]));
      l[i] = rec[i];
    }
    trail.note(ch.cur);
  }
};

}  // namespace

}  // namespace pr::io::laz
