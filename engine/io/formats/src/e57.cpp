// ASTM E57 (E2807) points: the compressed-vector sections of the scans, their data packets and
// bit-pack streams, decoded into one cloud. The file header, pages and XML are read in
// e57_file.cpp.
//
// The points' binary section holds data packets; each packet carries one buffer per prototype
// field ("bytestream"), and the buffers of one field, concatenated over the packets, form one
// continuous bit-pack stream: values packed least significant bit first, Integer and
// ScaledInteger as (raw - minimum) in ceil(log2(maximum - minimum + 1)) bits (none when
// minimum == maximum), Float as 32- or 64-bit IEEE words. A value may straddle packets, and each
// field's stream advances at its own rate, so record r of field f sits at bit r * bits(f) of that
// field's stream, wherever the packets cut it.
//
// Reading: the packet headers are walked once per scan to list where each stream's buffers lie
// (a prefix sum of their lengths per stream); then all selected scans are cut into chunks of
// records decoded in parallel: for a chunk [r0, r1) each used field's bytes are gathered from the
// packets (checksums skipped) into a buffer and unpacked, the records turned into points (spherical
// to cartesian, pose applied in double), invalid ones dropped. Fields the reader does not use are
// never touched. Every page read is checked against its CRC first.
#include <algorithm>
#include <atomic>
#include <cstring>
#include <memory>

#include "e57_file.h"
#include "engine/io/base/stride.h"
#include "engine/io/formats/readers.h"

namespace pr::io::e57 {

namespace {

// ---- decoding ----

/// Reads `bits` (1..64) bits at bit `pos` of buf (which has 16 readable bytes past the data).
inline uint64_t bits_at(const uint8_t* buf, uint64_t pos, unsigned bits) {
  const uint8_t* p = buf + (pos >> 3);
  const unsigned s = unsigned(pos & 7);
  uint64_t v = get_le<uint64_t>(p) >> s;
  if (s + bits > 64) v |= get_le<uint64_t>(p + 8) << (64 - s);
  return bits == 64 ? v : v & ((uint64_t(1) << bits) - 1);
}

class Decoder {
 public:
  Decoder(const Paged& file, const Scan& scan) : file_(file), scan_(scan) {}

  /// Copies bytes [a, b) of stream s into bytes_ (plus 16 zero bytes); false when the packets end
  /// before b.
  bool gather(int s, uint64_t a, uint64_t b) {
    const size_t np = scan_.packets;
    const uint64_t* cum = scan_.cum.data() + size_t(s) * (np + 1);
    if (b > cum[np]) return false;
    bytes_.resize(size_t(b - a) + 16);
    std::memset(bytes_.data() + (b - a), 0, 16);
    // The packet holding byte a: the last p with cum[p] <= a.
    size_t p = size_t(std::upper_bound(cum, cum + np + 1, a) - cum) - 1;
    uint8_t* dst = bytes_.data();
    while (a < b) {
      while (p < np && cum[p + 1] <= a) ++p;
      if (p >= np) return false;
      const uint64_t k = std::min(b, cum[p + 1]) - a;
      if (!file_.copy(scan_.buf[p * scan_.streams + size_t(s)] + (a - cum[p]), k, dst))
        return false;
      dst += k, a += k;
    }
    return true;
  }

  /// Values of field f for records [r0, r0 + n) into out.
  bool values(const Field& f, uint64_t r0, size_t n, double* out) {
    if (f.bits == 0) {
      const double v =
          f.kind == Kind::kScaled ? double(f.minimum) * f.scale + f.offset : double(f.minimum);
      std::fill(out, out + n, v);
      return true;
    }
    const uint64_t bit0 = r0 * f.bits, bit1 = (r0 + n) * f.bits;
    if (!gather(f.stream, bit0 >> 3, (bit1 + 7) >> 3)) return false;
    const uint8_t* b = bytes_.data();
    if (f.kind == Kind::kFloat) {
      if (f.bits == 32) {
        for (size_t i = 0; i < n; ++i) out[i] = double(get_le<float>(b + 4 * i));
      } else {
        for (size_t i = 0; i < n; ++i) out[i] = get_le<double>(b + 8 * i);
      }
      return true;
    }
    const uint64_t s = bit0 & 7;
    const uint64_t mn = uint64_t(f.minimum);
    const double scale = f.kind == Kind::kScaled ? f.scale : 1.0;
    const double offset = f.kind == Kind::kScaled ? f.offset : 0.0;
    if (f.bits == 8 && s == 0) {
      for (size_t i = 0; i < n; ++i) out[i] = double(int64_t(mn + b[i])) * scale + offset;
      return true;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t raw = mn + bits_at(b, s + i * f.bits, f.bits);
      out[i] = double(int64_t(raw)) * scale + offset;
    }
    return true;
  }

 private:
  const Paged& file_;
  const Scan& scan_;
  std::vector<uint8_t> bytes_;
};

constexpr size_t kChunk = size_t(1) << 16;  // records a parallel task decodes
constexpr size_t kBatch = 1024;             // records unpacked at a time (cache-sized columns)

/// Decodes records [r0, r0 + n) of a scan and calls emit(RawPoint) for each valid one, in world
/// coordinates (pose applied). False when the streams end early. Unless kAll, only the records
/// that `stride` keeps are decoded (the scans read counted as one sequence, record r0 of this
/// scan being its record g0); kAll compiles the loop of a whole load without that bookkeeping.
template <bool kAll, class Emit>
bool decode_records(const Paged& file, const Scan& scan, uint64_t r0, size_t n, Emit&& emit,
                    const Stride& stride = {}, uint64_t g0 = 0) {
  Decoder dec(file, scan);
  // The roles read: the coordinates of the scan's own system and the attributes present.
  int roles[kRoleCount], nroles = 0;
  for (int r = 0; r < kRoleCount; ++r) {
    if (scan.field[size_t(r)].stream < 0) continue;
    if (scan.spherical ? (r <= kZ || r == kCartesianInvalid)
                       : ((r >= kRange && r <= kElevation) || r == kSphericalInvalid))
      continue;
    roles[nroles++] = r;
  }
  std::vector<double> cols(size_t(nroles) * kBatch);
  const double* col[kRoleCount] = {};
  const glm::dmat3& m = scan.rotation;
  const glm::dvec3& t = scan.translation;
  double cs[3], ci[3];
  for (int k = 0; k < 3; ++k) {
    cs[k] = 255.0 / (scan.color_max[k] - scan.color_min[k]);
    ci[k] = scan.color_min[k];
  }
  // rows[k]: the batch's k-th record read (batch-relative): every record, or those the stride
  // keeps. Kept records spread thinner than one in kSparse are unpacked one by one into column
  // slot k (each gathers a few bytes a field), so that a small budget reads a small part of the
  // streams; denser ones unpack the whole batch into slots 0..bn and read slot rows[k].
  constexpr size_t kSparse = 16;
  std::vector<uint32_t> rows(kAll ? 0 : kBatch);
  for (size_t b0 = 0; b0 < n; b0 += kBatch) {
    const size_t bn = std::min(kBatch, n - b0);
    size_t nrows = bn;
    bool each = false;
    if constexpr (!kAll) {
      const uint64_t k0 = stride.before(g0 + b0), k1 = stride.before(g0 + b0 + bn);
      if (k0 == k1) continue;
      nrows = size_t(k1 - k0);
      for (size_t k = 0; k < nrows; ++k) rows[k] = uint32_t(stride.record(k0 + k) - (g0 + b0));
      each = nrows * kSparse < bn;
    }
    for (int j = 0; j < nroles; ++j) {
      double* o = cols.data() + size_t(j) * kBatch;
      const Field& f = scan.field[size_t(roles[j])];
      if (!each) {
        if (!dec.values(f, r0 + b0, bn, o)) return false;
      } else {
        for (size_t k = 0; k < nrows; ++k)
          if (!dec.values(f, r0 + b0 + rows[k], 1, o + k)) return false;
      }
      col[roles[j]] = o;
    }
    const double* invalid = scan.spherical ? col[kSphericalInvalid] : col[kCartesianInvalid];
    for (size_t k = 0; k < nrows; ++k) {
      const size_t i = kAll || each ? k : rows[k];
      if (invalid && invalid[i] != 0.0) continue;
      double x, y, z;
      if (scan.spherical) {
        const double rg = col[kRange][i], az = col[kAzimuth][i], el = col[kElevation][i];
        const double rc = rg * std::cos(el);
        x = rc * std::cos(az), y = rc * std::sin(az), z = rg * std::sin(el);
      } else {
        x = col[kX][i], y = col[kY][i], z = col[kZ][i];
      }
      RawPoint p;
      p.x = m[0][0] * x + m[1][0] * y + m[2][0] * z + t.x;
      p.y = m[0][1] * x + m[1][1] * y + m[2][1] * z + t.y;
      p.z = m[0][2] * x + m[1][2] * y + m[2][2] * z + t.z;
      p.color = rgba(255, 255, 255);
      if (scan.color && !(col[kColorInvalid] && col[kColorInvalid][i] != 0.0))
        p.color = rgba(clamp_u8((col[kRed][i] - ci[0]) * cs[0]),
                       clamp_u8((col[kGreen][i] - ci[1]) * cs[1]),
                       clamp_u8((col[kBlue][i] - ci[2]) * cs[2]));
      p.intensity = 0.0f;
      if (scan.intensity && !(col[kIntensityInvalid] && col[kIntensityInvalid][i] != 0.0))
        p.intensity = float(col[kIntensity][i]);
      p.classification = 0;
      emit(p);
    }
  }
  return true;
}

/// The logical extent of a scan's compressed vector section: [sec_l, end_l), its data packets
/// from data_l. Its pages are checked first. False with `why`.
bool open_section(const Paged& file, const Scan& s, const std::string& where, uint64_t& sec_l,
                  uint64_t& data_l, uint64_t& end_l, std::string& why) {
  const uint64_t page = file.page, npages = file.size / page;
  uint8_t h[32];
  if (!file.to_logical(s.section, sec_l) || !file.copy(sec_l, 32, h)) {
    why = where + ": the points' section (offset " + std::to_string(s.section) +
          ") lies outside the file";
    return false;
  }
  {
    const uint64_t p0 = s.section / page;
    if (!file.check_pages(p0, std::min(p0 + 2, npages), why)) return false;
    file.copy(sec_l, 32, h);
  }
  if (h[0] != 1) {
    why = where + ": the points' section is not a compressed vector section";
    return false;
  }
  const uint64_t sec_len = get_le<uint64_t>(h + 8), data_off = get_le<uint64_t>(h + 16);
  if (sec_len < 32 || sec_len > file.logical_size - sec_l || !file.to_logical(data_off, data_l) ||
      data_l < sec_l + 32 || data_l >= sec_l + sec_len) {
    why = where + ": the points' section lies outside the file";
    return false;
  }
  end_l = sec_l + sec_len;
  return file.check_pages(s.section / page, std::min((end_l - 1) / file.lpage + 1, npages), why);
}

/// Lists the buffers of the data packet at `pos` (`plen` bytes) in s.buf and their lengths in
/// `blen`, adding them to `have` per stream. False with `why`.
bool index_data_packet(const Paged& file, Scan& s, uint64_t pos, uint64_t plen,
                       const std::string& where, std::vector<uint64_t>& have,
                       std::vector<uint64_t>& blen, std::string& why) {
  uint8_t ph[6];
  if (plen < 6 || !file.copy(pos, 6, ph)) {
    why = where + ": a data packet is shorter than its header";
    return false;
  }
  const uint32_t count = get_le<uint16_t>(ph + 4);
  if (count != s.streams) {
    why = where + ": a data packet holds " + std::to_string(count) +
          " bytestreams, the prototype " + std::to_string(s.streams);
    return false;
  }
  std::vector<uint8_t> tmp(size_t(count) * 2);
  std::vector<uint64_t> lens(count);
  if (6 + 2 * uint64_t(count) > plen || !file.copy(pos + 6, 2 * uint64_t(count), tmp.data())) {
    why = where + ": a data packet's bytestream lengths overrun it";
    return false;
  }
  uint64_t at = pos + 6 + 2 * uint64_t(count), total = 6 + 2 * uint64_t(count);
  for (uint32_t i = 0; i < count; ++i) total += lens[i] = get_le<uint16_t>(&tmp[2 * i]);
  if (total > plen) {
    why = where + ": a data packet's bytestreams (" + std::to_string(total) +
          " bytes) overrun its length " + std::to_string(plen);
    return false;
  }
  for (uint32_t i = 0; i < count; ++i) {
    s.buf.push_back(at);
    blen.push_back(lens[i]);
    at += lens[i];
    have[i] += lens[i];
  }
  ++s.packets;
  return true;
}

/// Walks the packet headers of a scan's section once (its pages checked first) and lists where
/// each stream's buffers lie: s.buf, s.packets and the prefix sums s.cum. False with `why`.
bool index_packets(const Paged& file, Scan& s, std::string& why) {
  if (s.records == 0) return true;
  const std::string where = "scan " + std::to_string(s.index);
  uint64_t sec_l = 0, data_l = 0, end_l = 0;
  if (!open_section(file, s, where, sec_l, data_l, end_l, why)) return false;
  const uint64_t sec_len = end_l - sec_l;
  // The bytes each used stream needs for all records.
  std::vector<uint64_t> need(s.streams, 0);
  uint64_t record_bits = 0;
  for (const Field& f : s.field)
    if (f.stream >= 0) need[size_t(f.stream)] = (s.records * f.bits + 7) / 8;
  for (const Field& f : s.field) record_bits += f.stream >= 0 ? f.bits : 0;
  // Counts the file's bytes cannot back are refused before anything is allocated: a record
  // takes at least one bit of the section (a byte when all its fields are constant).
  const uint64_t max_records = record_bits ? sec_len * 8 / record_bits : sec_len;
  if (s.records > max_records) {
    why = where + " declares " + std::to_string(s.records) +
          " records but its section holds at most " + std::to_string(max_records);
    return false;
  }
  std::vector<uint64_t> have(s.streams, 0), blen;
  auto satisfied = [&] {
    for (uint32_t i = 0; i < s.streams; ++i)
      if (have[i] < need[i]) return false;
    return true;
  };
  uint64_t pos = data_l;
  while (pos < end_l && !satisfied()) {
    uint8_t ph[4];
    if (end_l - pos < 4 || !file.copy(pos, 4, ph)) {
      why = where + ": a packet header runs past its section";
      return false;
    }
    const uint64_t plen = uint64_t(get_le<uint16_t>(ph + 2)) + 1;
    if (plen > end_l - pos) {
      why = where + ": a packet of " + std::to_string(plen) + " bytes runs past its section";
      return false;
    }
    if (ph[0] == 1) {
      if (!index_data_packet(file, s, pos, plen, where, have, blen, why)) return false;
    } else if (ph[0] != 0 && ph[0] != 2) {
      why = where + ": unknown packet type " + std::to_string(ph[0]);
      return false;
    }
    pos += plen;
  }
  if (!satisfied()) {
    why = where + ": its data packets hold fewer than the " + std::to_string(s.records) +
          " records it declares";
    return false;
  }
  s.cum.assign(size_t(s.streams) * (s.packets + 1), 0);
  for (uint32_t i = 0; i < s.streams; ++i) {
    uint64_t* c = s.cum.data() + size_t(i) * (s.packets + 1);
    for (size_t p = 0; p < s.packets; ++p) c[p + 1] = c[p] + blen[p * s.streams + i];
  }
  return true;
}

/// The scans LoadOptions::scans names (every scan when it is empty), each once, in the order
/// named. False with `why` for a scan the file does not hold.
bool choose_scans(const std::vector<uint32_t>& wanted, size_t count, std::vector<uint32_t>& chosen,
                  std::string& why) {
  if (wanted.empty()) {
    for (uint32_t k = 0; k < count; ++k) chosen.push_back(k);
    return true;
  }
  for (const uint32_t k : wanted) {
    if (k >= count) {
      why = "no scan " + std::to_string(k) +
            (count ? " (the file holds " + std::to_string(count) + " scans, 0 to " +
                         std::to_string(count - 1) + ")"
                   : std::string(" (the file holds no scans)"));
      return false;
    }
    if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
  }
  return true;
}

/// A run of records of one scan that one parallel task decodes.
struct Chunk {
  uint32_t scan;
  uint64_t r0;
  size_t n;
};

/// The chosen scans cut into chunks, with each chunk's first record in the sequence of all
/// records read and its capacity under `stride`; the attributes any chosen scan has.
void cut_chunks(const std::vector<Scan>& scans, const std::vector<uint32_t>& chosen,
                const Stride& stride, std::vector<Chunk>& chunks,
                std::vector<uint64_t>& chunk_first, std::vector<size_t>& caps, Attributes& attrs) {
  uint64_t first = 0;
  for (const uint32_t k : chosen) {
    const Scan& s = scans[k];
    attrs.color |= s.color;
    attrs.intensity |= s.intensity;
    for (uint64_t r = 0; r < s.records; r += kChunk) {
      const size_t n = size_t(std::min<uint64_t>(kChunk, s.records - r));
      chunks.push_back({k, r, n});
      chunk_first.push_back(first + r);
      caps.push_back(size_t(stride.before(first + r + n) - stride.before(first + r)));
    }
    first += s.records;
  }
}

/// The bounds of a sample for the origin: 64 runs of 16 records spread through each chosen scan.
/// False with `why` when a scan's packets end early.
bool sample_scans(const Paged& file, const std::vector<Scan>& scans,
                  const std::vector<uint32_t>& chosen, Bounds& sample, std::string& why) {
  for (const uint32_t k : chosen) {
    const Scan& s = scans[k];
    for (uint64_t j = 0; j < 64 && s.records; ++j) {
      const uint64_t r = s.records * j / 64;
      const size_t n = size_t(std::min<uint64_t>(16, s.records - r));
      if (!decode_records<true>(file, s, r, n, [&](const RawPoint& p) {
            if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
              sample.extend({p.x, p.y, p.z});
          })) {
        why = "scan " + std::to_string(k) + ": its data packets end early";
        return false;
      }
    }
  }
  return true;
}

}  // namespace

}  // namespace pr::io::e57

namespace pr::io {

bool read_e57(const Input& in, Output& out, std::string* error) {
  std::string why;
  e57::File ef;
  if (!e57::open_file(in.data, in.size, ef, why)) return fail(in, error, why);
  const e57::Paged& file = ef.paged;
  std::vector<e57::Scan>& scans = ef.scans;
  std::vector<uint32_t> chosen;
  if (!e57::choose_scans(in.options->scans, scans.size(), chosen, why)) return fail(in, error, why);
  // Each chosen scan's binary section: checksums, then its packets.
  for (const uint32_t k : chosen)
    if (!e57::index_packets(file, scans[k], why)) return fail(in, error, why);
  // Every chosen scan cut into chunks of records, all chunks decoded in parallel. A point budget
  // keeps an even stride through the records of the scans read, counted as one sequence in the
  // order read: each scan keeps its share.
  uint64_t total = 0;
  for (const uint32_t k : chosen) total += scans[k].records;
  const Stride stride = Stride::of(total, *in.options);
  std::vector<e57::Chunk> chunks;
  std::vector<uint64_t> chunk_first;  // its first record in that sequence
  std::vector<size_t> caps;
  Attributes attrs;
  e57::cut_chunks(scans, chosen, stride, chunks, chunk_first, caps, attrs);
  Bounds sample;
  if (!e57::sample_scans(file, scans, chosen, sample, why)) return fail(in, error, why);
  std::vector<std::atomic<uint64_t>> kept(scans.size());
  PointSink sink(in, out, attrs, choose_origin(sample));
  if (!sink.run(
          caps,
          [&](size_t b, BlockWriter& w, std::string& err) {
            const e57::Chunk& c = chunks[b];
            if (!(stride.all() ? e57::decode_records<true>(file, scans[c.scan], c.r0, c.n, w)
                               : e57::decode_records<false>(file, scans[c.scan], c.r0, c.n, w,
                                                            stride, chunk_first[b]))) {
              err = "scan " + std::to_string(c.scan) + ": its data packets end early";
              return false;
            }
            kept[c.scan].fetch_add(w.n);
            return true;
          },
          error))
    return false;
  FileInfo& fi = *out.info;
  fi.version = std::to_string(ef.major) + "." + std::to_string(ef.minor);
  fi.scans.clear();
  for (const e57::Scan& s : scans) {
    ScanInfo si;
    si.name = s.name;
    si.records = s.records;
    si.read = std::find(chosen.begin(), chosen.end(), s.index) != chosen.end();
    si.points = kept[s.index].load();
    fi.scans.push_back(std::move(si));
  }
  finish(in, out, sink.bounds, attrs);
  return true;
}

}  // namespace pr::io
