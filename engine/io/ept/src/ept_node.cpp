// EPT nodes decoded: a laszip node is a LAZ file (the project's LAZ decoder, its records turned
// into points by convert_chunk() as COPC's nodes are); a binary node is the schema's records
// packed one after another, little endian; a zstandard node is those records in a Zstandard frame.
#include <cmath>
#include <cstring>

#include <zstd.h>

#include "engine/io/copc/laz_file.h"
#include "ept_internal.h"

namespace pr {

namespace {

/// A dimension's value in record `r` as a double (integers exactly up to 2^53).
double dim_value(const uint8_t* r, const EptDimension& d) {
  const uint8_t* p = r + d.byte_offset;
  switch (d.type) {
    case 's':
      switch (d.size) {
        case 1:
          return double(int8_t(p[0]));
        case 2:
          return double(io::get_le<int16_t>(p));
        case 4:
          return double(io::get_le<int32_t>(p));
        default:
          return double(io::get_le<int64_t>(p));
      }
    case 'u':
      switch (d.size) {
        case 1:
          return double(p[0]);
        case 2:
          return double(io::get_le<uint16_t>(p));
        case 4:
          return double(io::get_le<uint32_t>(p));
        default:
          return double(io::get_le<uint64_t>(p));
      }
    default:
      return d.size == 4 ? double(io::get_le<float>(p)) : io::get_le<double>(p);
  }
}

/// A whole number clamped into [0, hi] (NaN: 0).
uint32_t clamp_uint(double v, double hi) {
  return v > 0.0 ? uint32_t(v < hi ? v : hi) : 0u;
}

/// `c` with exactly the attribute arrays `a` asks for (zeros for one the node lacks), so that the
/// nodes of a dataset have the same arrays whatever their LAZ point format.
void conform(PointCloud& c, const io::Attributes& a) {
  const size_t n = c.size();
  auto fit = [n](auto& v, bool keep) {
    if (!keep) {
      v.clear();
    } else if (v.size() != n) {
      v.resize(n);
      std::fill(v.begin(), v.end(), 0);
    }
  };
  fit(c.intensity, a.intensity);
  fit(c.classification, a.classification);
  fit(c.returns, a.returns);
  fit(c.point_source, a.point_source);
  fit(c.gps_time, a.gps_time);
  c.fields.clear();
}

}  // namespace

bool zstd_decompress(const uint8_t* data, size_t size, size_t expected, std::vector<uint8_t>& out,
                     std::string& why) {
  out.resize(expected + 1);  // a byte more than expected: a frame that holds more shows
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  if (!ctx) {
    why = "Zstandard: out of memory";
    return false;
  }
  ZSTD_inBuffer in{data, size, 0};
  ZSTD_outBuffer o{out.data(), out.size(), 0};
  // With room left in the output, a call consumes all input it can and flushes what it can: a
  // frame not finished then is cut short. A full output means more bytes than expected.
  size_t r = 0;
  for (;;) {
    r = ZSTD_decompressStream(ctx, &o, &in);
    if (ZSTD_isError(r)) {
      why = std::string("Zstandard: ") + ZSTD_getErrorName(r);
      ZSTD_freeDCtx(ctx);
      return false;
    }
    if (o.pos == o.size || in.pos == in.size) break;
  }
  ZSTD_freeDCtx(ctx);
  if (r != 0 && o.pos < o.size) {
    why = "Zstandard: the frame ends early (truncated data)";
    return false;
  }
  if (o.pos != expected) {
    why = o.pos > expected ? "it decompresses to more than " + std::to_string(expected) + " bytes"
                           : "it decompresses to " + std::to_string(o.pos) + " bytes, not " +
                                 std::to_string(expected);
    return false;
  }
  out.resize(expected);
  return true;
}

bool EptDataset::Impl::decode_records(const uint8_t* data, size_t size, uint64_t points,
                                      const glm::dvec3& origin, PointCloud& out,
                                      std::string& why) const {
  const uint64_t need = points * record_bytes;
  if (uint64_t(size) != need) {
    const uint64_t held = size / record_bytes;
    why = "holds " + std::to_string(size) + " bytes (" + std::to_string(held) +
          (size % record_bytes ? "+" : "") + " records of " + std::to_string(record_bytes) +
          " bytes), the hierarchy says " + std::to_string(points) + " points";
    return false;
  }
  const EptDimension &dx = schema[size_t(dim_x)], &dy = schema[size_t(dim_y)],
                     &dz = schema[size_t(dim_z)];
  int rgb[3] = {-1, -1, -1}, intensity = -1, cls = -1, rn = -1, nr = -1, src = -1, gps = -1;
  for (size_t i = 0; i < schema.size(); ++i) {
    const std::string& n = schema[i].name;
    const int k = int(i);
    if (n == "Red") rgb[0] = k;
    if (n == "Green") rgb[1] = k;
    if (n == "Blue") rgb[2] = k;
    if (n == "Intensity") intensity = k;
    if (n == "Classification") cls = k;
    if (n == "ReturnNumber") rn = k;
    if (n == "NumberOfReturns") nr = k;
    if (n == "PointSourceId") src = k;
    if (n == "GpsTime") gps = k;
  }
  io::resize_points(out, attrs, size_t(points));
  io::BlockWriter w = io::block_writer(out, attrs, 0, size_t(points), origin);
  std::vector<uint16_t> colors(attrs.color ? size_t(points) * 3 : 0);
  uint32_t max_channel = 0;
  for (uint64_t i = 0; i < points; ++i) {
    const uint8_t* r = data + i * record_bytes;
    io::RawPoint p;
    p.x = dim_value(r, dx) * dx.scale + dx.offset;
    p.y = dim_value(r, dy) * dy.scale + dy.offset;
    p.z = dim_value(r, dz) * dz.scale + dz.offset;
    p.color = rgba(255, 255, 255);
    p.intensity = intensity >= 0 ? float(dim_value(r, schema[size_t(intensity)])) : 0.0f;
    p.classification = cls >= 0 ? uint8_t(clamp_uint(dim_value(r, schema[size_t(cls)]), 255)) : 0;
    p.returns = pack_returns(rn >= 0 ? clamp_uint(dim_value(r, schema[size_t(rn)]), 15) : 1,
                             nr >= 0 ? clamp_uint(dim_value(r, schema[size_t(nr)]), 15) : 1);
    p.point_source = src >= 0 ? uint16_t(clamp_uint(dim_value(r, schema[size_t(src)]), 65535)) : 0;
    p.gps_time = gps >= 0 ? dim_value(r, schema[size_t(gps)]) : 0.0;
    const size_t n0 = w.n;
    w(p);
    if (w.n == n0 || !attrs.color) continue;
    uint16_t* c = &colors[n0 * 3];
    for (int k = 0; k < 3; ++k) {
      c[k] = rgb[k] >= 0 ? uint16_t(clamp_uint(dim_value(r, schema[size_t(rgb[k])]), 65535)) : 0;
      max_channel = std::max<uint32_t>(max_channel, c[k]);
    }
  }
  // The LAS reader's rule for colors: 16-bit channels, unless no channel exceeds 255.
  if (attrs.color) {
    const int shift = max_channel > 255 ? 8 : 0;
    for (size_t i = 0; i < w.n; ++i) {
      const uint16_t* c = &colors[i * 3];
      out.colors[i] = rgba(uint8_t(c[0] >> shift), uint8_t(c[1] >> shift), uint8_t(c[2] >> shift));
    }
  }
  if (w.n != points) {  // points whose coordinates are not finite are dropped
    out.positions.resize(w.n);
    out.colors.resize(w.n);
    if (attrs.intensity) out.intensity.resize(w.n);
    if (attrs.classification) out.classification.resize(w.n);
    if (attrs.returns) out.returns.resize(w.n);
    if (attrs.point_source) out.point_source.resize(w.n);
    if (attrs.gps_time) out.gps_time.resize(w.n);
  }
  return true;
}

bool EptDataset::Impl::decode_laz(const uint8_t* data, size_t size, uint64_t points,
                                  const glm::dvec3& origin, PointCloud& out,
                                  std::string& why) const {
  const io::Input in{data, size, "LAZ", nullptr, nullptr};
  io::LazFile f;
  std::string err;
  if (!io::open_laz(in, f, &err)) {
    why = err;
    return false;
  }
  if (f.h.count != points) {
    why = "its LAZ header holds " + std::to_string(f.h.count) + " points, the hierarchy says " +
          std::to_string(points);
    return false;
  }
  if (!f.cut.empty()) {
    why = "LAZ cut short: " + f.cut;
    return false;
  }
  io::LasRecords recs(in, f.h);
  recs.extras.clear();  // extra bytes are not kept: every node gets the same arrays
  const io::Attributes la = io::las_attributes(f.h.format);
  io::resize_points(out, la, size_t(points));
  size_t done = 0;
  for (const io::LazChunk& c : f.chunks) {
    if (c.points > points - done) {
      why = "its LAZ chunks hold more points than its header";
      return false;
    }
    io::laz::ChunkReader reader(f.layout, io::kLazNotKept);
    if (!reader.start(data + c.begin, c.size, c.points, &err)) {
      why = err;
      return false;
    }
    io::BlockWriter w = io::block_writer(out, la, done, size_t(c.points), origin);
    uint32_t max_channel = 0;
    if (!io::convert_chunk(reader, c.points, recs, false, w, nullptr, max_channel, err,
                           [](uint64_t, const uint8_t*) { return io::RecordUse::kKeep; })) {
      why = err;
      return false;
    }
    if (w.n != c.points) {
      // Points whose coordinates overflow to infinity are dropped, as the LAS reader drops them.
      why = "holds points whose coordinates are not finite";
      return false;
    }
    done += size_t(c.points);
  }
  if (done != points) {
    why =
        "its LAZ chunks hold " + std::to_string(done) + " of " + std::to_string(points) + " points";
    return false;
  }
  conform(out, attrs);
  return true;
}

bool EptDataset::Impl::decode(const uint8_t* data, size_t size, uint64_t points,
                              const glm::dvec3& origin, PointCloud& out, std::string& why) const {
  if (data_type == "laszip") return decode_laz(data, size, points, origin, out, why);
  if (data_type == "binary") return decode_records(data, size, points, origin, out, why);
  std::vector<uint8_t> raw;
  if (record_bytes && points > (uint64_t(1) << 40) / record_bytes) {
    why = "the hierarchy's count of " + std::to_string(points) + " points is beyond reading";
    return false;
  }
  if (!zstd_decompress(data, size, size_t(points * record_bytes), raw, why)) return false;
  return decode_records(raw.data(), raw.size(), points, origin, out, why);
}

bool EptDataset::read_node(const CopcKey& key, int64_t points, const glm::dvec3& origin,
                           PointCloud& out, std::string* error,
                           const std::atomic<bool>* cancel) const {
  const Impl& m = *impl_;
  out = PointCloud{};
  out.origin = origin;
  const std::string ext = m.data_type == "laszip"   ? ".laz"
                          : m.data_type == "binary" ? ".bin"
                                                    : ".zst";
  const std::string file = "ept-data/" + ept_key_text(key) + ext;
  auto fail_node = [&](const std::string& why) {
    out = PointCloud{};
    if (error)
      *error = io::one_line(m.name + ": EPT node " + ept_key_text(key) + " (" + file + ", " +
                            std::to_string(points) + " points): " + why);
    return false;
  };
  if (points < 0) return fail_node("a subtree, not a node");
  if (points == 0) {
    io::resize_points(out, m.attrs, 0);
    return true;
  }
  const io::Input mem{nullptr, 0, m.name, nullptr, nullptr};
  std::string err;
  if (!io::fits_in_memory(mem, uint64_t(points), 40, &err)) return fail_node(err);
  std::vector<uint8_t> bytes;
  if (!m.fetch_file(file, bytes, &err, cancel)) return fail_node(err);
  if (cancel && cancel->load()) return fail_node("cancelled");
  if (!m.decode(bytes.data(), bytes.size(), uint64_t(points), origin, out, err))
    return fail_node(err);
  out.origin = origin;
  return true;
}

}  // namespace pr
