// The layered LAZ items of LASzip's LAS 1.4 compressor (point formats 6 to 10): POINT14, RGB14,
// RGBNIR14, BYTE14 and WAVEPACKET14 versions 3 and 4. A chunk stores each field group in its own
// layer (an arithmetic stream that an unchanging field leaves empty) and predicts per scanner
// channel: POINT14 decodes the channel and hands it to the items after it.
// Included by laz_chunk.cpp (see laz_items.h) and by the layered encoder (laz_enc_items14.h),
// which shares P14, the return map and ChannelLast.
#pragma once

#include <memory>
#include <vector>

#include "laz_items.h"

namespace pr::io::laz {

namespace {

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
    put(r, x);
    put(r + 4, y);
    put(r + 8, z);
    put(r + 12, intensity);
    r[14] = uint8_t(ret | (nret << 4));
    r[15] = uint8_t(class_flags | (channel << 4) | (scan_dir << 6) | (edge << 7));
    r[16] = cls;
    r[17] = user;
    put(r + 18, angle);
    put(r + 20, psid);
    put(r + 22, gps);
  }
};

/// POINT14 v3/v4: nine layers (returns+XY, Z, classification, flags, intensity, scan angle,
/// user data, point source, GPS time) and a context per scanner channel.
struct Point14 final : LyItem {
  explicit Point14(int v) : version(v) {}
  int version;
  enum { kXY, kZ, kClass, kFlags, kIntensity, kAngle, kUser, kSource, kGps, kLayers };
  Layer lay[kLayers];

  struct Ctx {
    bool unused = true;
    P14 last;
    SymbolModel changed[8], channel_m, nret_m[16], ret_m[16], ret_gps_same;
    IntDecoder ic_dx, ic_dy, ic_z, ic_intensity, ic_angle, ic_psid;
    Median5 mx[12], my[12];
    int32_t last_z[8] = {};
    uint16_t last_intensity[8] = {};
    SymbolModel cls_m[64], flags_m[64], user_m[64];
    GpsState gps;
  };
  Ctx ctx[4];
  uint32_t cur = 0;

  size_t layers() const override { return kLayers; }
  Layer* layer(size_t i) override { return &lay[i]; }
  uint32_t field(size_t i) const override {
    return i == kFlags   ? uint32_t(kSkipFlags)
           : i == kAngle ? uint32_t(kSkipScanAngle)
           : i == kUser  ? uint32_t(kSkipUserData)
                         : 0u;
  }

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

  void init(const uint8_t* raw, uint32_t& context) override {
    for (auto& k : ctx) k.unused = true;
    P14 p;
    p.unpack(raw);
    cur = p.channel;
    context = cur;
    create(cur, p);
  }

  // read() in steps, each called once a point: the changed-values symbol and the channel, the
  // returns, X Y Z, the other layers. Members of a class in an anonymous namespace, each called
  // from one place, so the compiler inlines them into read() as one body.

  /// The changed-values symbol (which fields change, bit 6: the scanner channel) and, when it
  /// says so, the switch to another channel's context.
  uint32_t read_changed(Decoder& dxy, uint32_t& context) {
    const P14* last = &ctx[cur].last;
    uint32_t lpr = (last->ret == 1 ? 1u : 0u) + (last->ret >= last->nret ? 2u : 0u) +
                   (last->gps_change ? 4u : 0u);
    const uint32_t changed_values = dxy.symbol(lazy(ctx[cur].changed[lpr], 128));
    if (changed_values & 64) {
      const uint32_t diff = dxy.symbol(lazy(ctx[cur].channel_m, 3));
      const uint32_t channel = (cur + diff + 1) % 4;
      if (ctx[channel].unused) create(channel, ctx[cur].last);
      cur = channel;
      ctx[cur].last.channel = uint8_t(channel);
      context = cur;
    } else if (version >= 4) {
      context = cur;
    }
    // Version 3 hands the other items the channel only on the point where it changes, channel 0
    // (the caller's reset) on the others, as LASzip 3 does; version 4 hands it on every point.
    return changed_values;
  }

  /// The number of returns `n` and the return number `r`.
  static void read_returns(Decoder& dxy, Ctx& k, P14* last, uint32_t changed_values, uint32_t& n,
                           uint32_t& r) {
    const bool gps_change = changed_values & 16;
    const uint32_t last_n = last->nret, last_r = last->ret;
    n = last_n;
    if (changed_values & 4) {
      n = dxy.symbol(lazy(k.nret_m[last_n], 16));
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
          r = dxy.symbol(lazy(k.ret_m[last_r], 16));
        else
          r = (last_r + dxy.symbol(lazy(k.ret_gps_same, 13)) + 2) % 16;
    }
    last->ret = uint8_t(r);
  }

  /// X and Y (median-predicted differences, in the XY layer) and Z (its own layer).
  void read_xyz(Decoder& dxy, Ctx& k, P14* last, uint32_t n, uint32_t r, bool gps_change) {
    const uint32_t m = kReturnMap6[n][r], l = level(n, r, 7);
    const uint32_t mi = (m << 1) | (gps_change ? 1u : 0u);
    int32_t diff = k.ic_dx.decode(dxy, k.mx[mi].get(), n == 1);
    last->x = int32_t(uint32_t(last->x) + uint32_t(diff));
    k.mx[mi].add(diff);
    uint32_t kb = k.ic_dx.k();
    diff = k.ic_dy.decode(dxy, k.my[mi].get(), (n == 1) + (kb < 20 ? (kb & ~1u) : 20));
    last->y = int32_t(uint32_t(last->y) + uint32_t(diff));
    k.my[mi].add(diff);
    if (lay[kZ].changed) {
      kb = (k.ic_dx.k() + k.ic_dy.k()) / 2;
      last->z = k.ic_z.decode(lay[kZ].d, k.last_z[l], (n == 1) + (kb < 18 ? (kb & ~1u) : 18));
      k.last_z[l] = last->z;
    }
  }

  /// Classification, flags, intensity, scan angle, user data, point source and GPS time, each
  /// from its layer when the layer is decoded (and, for some, when the point changes it).
  void read_attributes(Ctx& k, P14* last, uint32_t cpr, uint32_t changed_values) {
    const bool source_change = changed_values & 32;
    const bool gps_change = changed_values & 16;
    const bool angle_change = changed_values & 8;
    if (lay[kClass].changed) {
      const uint32_t ccc = ((last->cls & 0x1Fu) << 1) + (cpr == 3 ? 1u : 0u);
      last->cls = uint8_t(lay[kClass].d.symbol(lazy(k.cls_m[ccc], 256)));
    }
    if (lay[kFlags].changed) {
      const uint32_t lf =
          uint32_t(last->edge << 5) | uint32_t(last->scan_dir << 4) | last->class_flags;
      const uint32_t f = lay[kFlags].d.symbol(lazy(k.flags_m[lf], 64));
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
      last->user = uint8_t(lay[kUser].d.symbol(lazy(k.user_m[last->user / 4], 256)));
    if (lay[kSource].changed && source_change)
      last->psid = uint16_t(k.ic_psid.decode(lay[kSource].d, last->psid));
    if (lay[kGps].changed && gps_change) {
      k.gps.read(lay[kGps].d);
      last->gps = k.gps.times[k.gps.last];
    }
  }

  void read(uint8_t* out, uint32_t& context) override {
    Decoder& dxy = lay[kXY].d;
    const uint32_t changed_values = read_changed(dxy, context);
    Ctx& k = ctx[cur];
    P14* last = &k.last;
    const bool gps_change = changed_values & 16;
    uint32_t n, r;
    read_returns(dxy, k, last, changed_values, n, r);
    const uint32_t cpr = (r == 1 ? 2u : 0u) + (r >= n ? 1u : 0u);
    read_xyz(dxy, k, last, n, r, gps_change);
    read_attributes(k, last, cpr, changed_values);
    last->pack(out);
    last->gps_change = gps_change;
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
};

struct Rgb14 final : LyItem {
  explicit Rgb14(int v, bool nir_) : version(v), nir(nir_) {}
  int version;
  bool nir;
  Layer lay[2];
  uint16_t last[4][4] = {};
  RgbModels mo[4];
  SymbolModel nir_used[4], nir_diff[4][2];
  ChannelLast ch;

  size_t layers() const override { return nir ? 2 : 1; }
  Layer* layer(size_t i) override { return &lay[i]; }
  uint32_t field(size_t i) const override { return i == 1 ? uint32_t(kSkipNir) : 0u; }
  void reset(uint32_t c) {
    mo[c].reset();
    nir_used[c] = nir_diff[c][0] = nir_diff[c][1] = SymbolModel();
  }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context], raw, nir ? 8 : 6);
    reset(context);
  }
  void read(uint8_t* out, uint32_t& context) override {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      std::memcpy(last[ch.cur], last[from], sizeof last[0]);
      reset(ch.cur);
    }
    uint16_t* l = last[use];
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
        const uint32_t sym = d.symbol(lazy(nir_used[ch.cur], 4));
        uint16_t v =
            (sym & 1)
                ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][0], 256)) + uint32_t(l[3] & 0xFF)))
                : uint16_t(l[3] & 0xFF);
        v |= (sym & 2)
                 ? uint16_t(fold(d.symbol(lazy(nir_diff[ch.cur][1], 256)) + uint32_t(l[3] >> 8))
                            << 8)
                 : uint16_t(l[3] & 0xFF00);
        l[3] = v;
      }
      c[3] = l[3];
    }
    std::memcpy(out, c, nir ? 8 : 6);
  }
};

struct Byte14 final : LyItem {
  Byte14(int v, size_t n_) : version(v), n(n_), lay(n_) {
    for (auto& l : last) l.assign(n, 0);
    for (auto& m : mo) m.assign(n, SymbolModel());
  }
  int version;
  size_t n;
  std::vector<Layer> lay;
  std::vector<uint8_t> last[4];
  std::vector<SymbolModel> mo[4];
  ChannelLast ch;

  size_t layers() const override { return n; }
  Layer* layer(size_t i) override { return &lay[i]; }
  void init(const uint8_t* raw, uint32_t& context) override {
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
    std::memcpy(last[context].data(), raw, n);
    for (auto& m : mo[context]) m = SymbolModel();
  }
  void read(uint8_t* out, uint32_t& context) override {
    bool fresh;
    uint32_t from;
    const uint32_t use = ch.switch_to(context, version, fresh, from);
    if (fresh) {
      last[ch.cur] = last[from];
      for (auto& m : mo[ch.cur]) m = SymbolModel();
    }
    uint8_t* l = last[use].data();
    for (size_t i = 0; i < n; ++i) {
      if (lay[i].changed) l[i] = fold(l[i] + lay[i].d.symbol(lazy(mo[ch.cur][i], 256)));
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
    ch = ChannelLast();
    ch.cur = context;
    ch.unused[context] = false;
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
