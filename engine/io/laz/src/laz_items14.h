// The layered LAZ items of LASzip's LAS 1.4 compressor (point formats 6 to 10): POINT14, RGB14,
// RGBNIR14, BYTE14 and WAVEPACKET14 versions 3 and 4. A chunk stores each field group in its own
// layer (an arithmetic stream that an unchanging field leaves empty) and predicts per scanner
// channel: POINT14 decodes the channel and hands it to the items after it.
// Their state, shared with the layered encoder, is laz_state.h's. Included only by laz_chunk.cpp
// (see laz_items.h).
#pragma once

#include <memory>
#include <vector>

#include "laz_items.h"

namespace pr::io::laz {

namespace {

/// POINT14 v3/v4 (laz_state.h's Point14State): its nine layers, each with its decoder.
struct Point14 final : LyItem, Point14State<Decoding> {
  explicit Point14(int v) : version(v) {}
  int version;
  Layer lay[kLayers];

  size_t layers() const override { return kLayers; }
  Layer* layer(size_t i) override { return &lay[i]; }
  uint32_t field(size_t i) const override {
    return i == kFlags   ? uint32_t(kSkipFlags)
           : i == kAngle ? uint32_t(kSkipScanAngle)
           : i == kUser  ? uint32_t(kSkipUserData)
                         : 0u;
  }

  void init(const uint8_t* raw, uint32_t& context) override { start(raw, context); }

  // read() in steps, each called once a point: the changed-values symbol and the channel, the
  // returns, X Y Z, the other layers. Members of a class in an anonymous namespace, each called
  // from one place, so the compiler inlines them into read() as one body.

  /// The changed-values symbol (which fields change, bit 6: the scanner channel) and, when it
  /// says so, the switch to another channel's context.
  uint32_t read_changed(Decoder& dxy, uint32_t& context) {
    const uint32_t lpr = ctx[cur].last.changed_context();
    const uint32_t changed_values = dxy.symbol(lazy(ctx[cur].changed[lpr]));
    if (changed_values & 64) {
      const uint32_t diff = dxy.symbol(lazy(ctx[cur].channel_m));
      switch_to((cur + diff + 1) % 4);
      context = cur;
    } else if (version >= 4) {
      context = cur;
    }
    // Version 3 hands the other items the channel only on the point where it changes, channel 0
    // (the caller's reset) on the others, as LASzip 3 does; version 4 hands it on every point.
    return changed_values;
  }

  /// The number of returns `n` and the return number `r`.
  static void read_returns(Decoder& dxy, Point14Context<Decoding>& k, P14* last,
                           uint32_t changed_values, uint32_t& n, uint32_t& r) {
    const bool gps_change = changed_values & 16;
    const uint32_t last_n = last->nret, last_r = last->ret;
    n = last_n;
    if (changed_values & 4) {
      n = dxy.symbol(lazy(k.nret_m[last_n]));
      last->nret = uint8_t(n);
    }
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
          r = dxy.symbol(lazy(k.ret_m[last_r]));
        else
          r = (last_r + dxy.symbol(lazy(k.ret_gps_same)) + 2) % 16;
    }
    last->ret = uint8_t(r);
  }

  /// X and Y (median-predicted differences, in the XY layer) and Z (its own layer).
  void read_xyz(Decoder& dxy, Point14Context<Decoding>& k, P14* last, uint32_t n, uint32_t r,
                bool gps_change) {
    const uint32_t m = kReturnMap6[n][r], l = level(n, r, 7);
    const uint32_t mi = (m << 1) | (gps_change ? 1u : 0u);
    int32_t diff = k.ic_dx.decode(dxy, k.mx[mi].get(), n == 1);
    last->x = int32_t(uint32_t(last->x) + uint32_t(diff));
    k.mx[mi].add(diff);
    uint32_t kb = k.ic_dx.k();
    diff = k.ic_dy.decode(dxy, k.my[mi].get(), y_context(n, kb));
    last->y = int32_t(uint32_t(last->y) + uint32_t(diff));
    k.my[mi].add(diff);
    if (lay[kZ].changed) {
      kb = (k.ic_dx.k() + k.ic_dy.k()) / 2;
      last->z = k.ic_z.decode(lay[kZ].d, k.last_z[l], z_context(n, kb));
      k.last_z[l] = last->z;
    }
  }

  /// Classification, flags, intensity, scan angle, user data, point source and GPS time, each
  /// from its layer when the layer is decoded (and, for some, when the point changes it).
  void read_attributes(Point14Context<Decoding>& k, P14* last, uint32_t cpr,
                       uint32_t changed_values) {
    const bool source_change = changed_values & 32;
    const bool gps_change = changed_values & 16;
    const bool angle_change = changed_values & 8;
    if (lay[kClass].changed) {
      const uint32_t ccc = ((last->cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u);
      last->cls = uint8_t(lay[kClass].d.symbol(lazy(k.cls_m[ccc])));
    }
    if (lay[kFlags].changed) {
      const uint32_t f = lay[kFlags].d.symbol(lazy(k.flags_m[last->flags()]));
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
      last->user = uint8_t(lay[kUser].d.symbol(lazy(k.user_m[last->user / 4])));
    if (lay[kSource].changed && source_change)
      last->psid = uint16_t(k.ic_psid.decode(lay[kSource].d, last->psid));
    if (lay[kGps].changed && gps_change) {
      read_gps(k.gps, lay[kGps].d);
      last->gps = k.gps.times[k.gps.last];
    }
  }

  void read(uint8_t* out, uint32_t& context) override {
    Decoder& dxy = lay[kXY].d;
    const uint32_t changed_values = read_changed(dxy, context);
    Point14Context<Decoding>& k = ctx[cur];
    P14* last = &k.last;
    const bool gps_change = changed_values & 16;
    uint32_t n, r;
    read_returns(dxy, k, last, changed_values, n, r);
    const uint32_t cpr = return_class14(r, n);
    read_xyz(dxy, k, last, n, r, gps_change);
    read_attributes(k, last, cpr, changed_values);
    last->pack(out);
    last->gps_change = gps_change;
  }
};

struct Rgb14 final : LyItem, Rgb14State<Decoding> {
  Rgb14(int v, bool nir_) : Rgb14State(v, nir_) {}
  Layer lay[2];

  size_t layers() const override { return nir ? 2 : 1; }
  Layer* layer(size_t i) override { return &lay[i]; }
  uint32_t field(size_t i) const override { return i == 1 ? uint32_t(kSkipNir) : 0u; }
  void init(const uint8_t* raw, uint32_t& context) override { start(raw, context); }
  void read(uint8_t* out, uint32_t& context) override {
    uint16_t* l = predict_from(context);
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
        const uint32_t sym = d.symbol(lazy(nir_used[ch.cur]));
        uint16_t v =
            (sym & 1) ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][0])) + uint32_t(l[3] & 0xFF)))
                      : uint16_t(l[3] & 0xFF);
        v |= (sym & 2)
                 ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][1])) + uint32_t(l[3] >> 8)) << 8)
                 : uint16_t(l[3] & 0xFF00);
        l[3] = v;
      }
      c[3] = l[3];
    }
    std::memcpy(out, c, nir ? 8 : 6);
  }
};

struct Byte14 final : LyItem, Byte14State<Decoding> {
  Byte14(int v, size_t n_) : Byte14State(v, n_), lay(n_) {}
  std::vector<Layer> lay;

  size_t layers() const override { return n; }
  Layer* layer(size_t i) override { return &lay[i]; }
  void init(const uint8_t* raw, uint32_t& context) override { start(raw, context); }
  void read(uint8_t* out, uint32_t& context) override {
    uint8_t* l = predict_from(context);
    for (size_t i = 0; i < n; ++i) {
      if (lay[i].changed) l[i] = fold(l[i] + lay[i].d.symbol(lazy(mo[ch.cur][i])));
      out[i] = l[i];
    }
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
  uint32_t field(size_t) const override { return kSkipWavePacket; }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch.start(context);
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

}  // namespace pr::io::laz
