// LAS 1.0 to 1.4, point formats 0 to 10 (ASPRS LAS specification R15).
// The header gives the offset to the point data, the record length (which may exceed the
// format's size: extra bytes) and the count; X, Y, Z are int32 scaled by the header's scale and
// offset, computed in double. Point records are fixed-size, so blocks decode in parallel.
#include <cstring>

#include "engine/io/base/stride.h"
#include "engine/io/formats/las.h"

namespace pr::io {

bool las_is_compressed(const uint8_t* d, size_t n) {
  if (n < 227) return false;
  const uint8_t fmt = d[104];
  if (fmt & 0xC0) return true;
  // A LASzip VLR ("laszip encoded", record 22204) also marks compressed points.
  const uint16_t header_size = get_le<uint16_t>(d + 94);
  const uint32_t nvlr = get_le<uint32_t>(d + 100);
  size_t p = header_size;
  for (uint32_t i = 0; i < nvlr && i < 1024 && p + 54 <= n; ++i) {
    if (std::memcmp(d + p + 2, "laszip encoded", 14) == 0 && get_le<uint16_t>(d + p + 18) == 22204)
      return true;
    p += 54 + size_t(get_le<uint16_t>(d + p + 20));
  }
  return false;
}

Bounds las_header_bounds(const uint8_t* header) {
  Bounds b;
  double v[6];
  for (int i = 0; i < 6; ++i) v[i] = get_le<double>(header + 179 + 8 * i);
  const glm::dvec3 lo(v[1], v[3], v[5]), hi(v[0], v[2], v[4]);
  for (int i = 0; i < 3; ++i)
    if (!std::isfinite(lo[i]) || !std::isfinite(hi[i]) || lo[i] > hi[i]) return b;
  b.extend(lo);
  b.extend(hi);
  return b;
}

bool parse_las_header(const Input& in, LasHeader& h, std::string* error) {
  const uint8_t* d = in.data;
  if (in.size < 227)
    return fail(in, error,
                "truncated LAS header (" + std::to_string(in.size) + " bytes, need 227)");
  h.major = d[24];
  h.minor = d[25];
  h.header_size = get_le<uint16_t>(d + 94);
  h.offset = get_le<uint32_t>(d + 96);
  h.vlr_count = get_le<uint32_t>(d + 100);
  h.format = d[104] & 0x3F;
  h.record_length = get_le<uint16_t>(d + 105);
  h.count = get_le<uint32_t>(d + 107);
  if (h.major != 1 || h.minor > 4)
    return fail(
        in, error,
        "unsupported LAS version " + std::to_string(h.major) + "." + std::to_string(h.minor));
  if (h.header_size < 227 || h.header_size > in.size)
    return fail(in, error, "bad LAS header size " + std::to_string(h.header_size));
  if (h.minor >= 4 && h.header_size >= 375 && in.size >= 375) {
    const uint64_t count64 = get_le<uint64_t>(d + 247);
    if (h.count == 0 || count64 > h.count) h.count = count64;
  }
  if (h.format > 10)
    return fail(in, error, "unsupported LAS point format " + std::to_string(h.format));
  if (h.record_length < kLasFormatSize[h.format])
    return fail(in, error,
                "LAS record length " + std::to_string(h.record_length) +
                    " is shorter than point format " + std::to_string(h.format) + " needs (" +
                    std::to_string(kLasFormatSize[h.format]) + ")");
  if (h.offset < h.header_size || h.offset > in.size)
    return fail(in, error, "bad LAS offset to point data " + std::to_string(h.offset));
  for (int i = 0; i < 3; ++i) {
    h.scale[i] = get_le<double>(d + 131 + 8 * i);
    h.origin[i] = get_le<double>(d + 155 + 8 * i);
    if (!std::isfinite(h.scale[i]) || !std::isfinite(h.origin[i]) || h.scale[i] == 0.0)
      return fail(in, error, "bad LAS scale or offset in the header");
  }
  return true;
}

namespace {

/// Whole records in the file: the header's count, or fewer when the file ends early. PDAL and
/// laspy read the records present of such a file with a warning, and so does this reader (the
/// record the file ends inside is not read).
uint64_t las_records_present(const Input& in, Output& out, const LasHeader& h) {
  const uint64_t avail = (in.size - h.offset) / h.record_length;
  if (h.count <= avail) return h.count;
  warn_cut_short(in, out, avail, h.count, "the point data ends early");
  return avail;
}

/// Decodes the `stride.keep` records that `stride` picks of the `records` at `base` into the
/// cloud, colors as 16-bit (high byte); `max_channel` is the largest color channel seen.
bool decode_las_records(const Input& in, Output& out, const LasHeader& h, const uint8_t* base,
                        const Stride& stride, Bounds& bounds, uint32_t& max_channel,
                        std::string* error) {
  const uint8_t fmt = h.format;
  const uint16_t rec = h.record_length;
  const uint64_t count = stride.n;
  const double sx = h.scale[0], sy = h.scale[1], sz = h.scale[2];
  const double ox = h.origin[0], oy = h.origin[1], oz = h.origin[2];
  const uint16_t rgb = kLasRgbOffset[fmt];
  auto xyz = [&](size_t i, double& x, double& y, double& z) {
    const uint8_t* r = base + i * rec;
    x = double(get_le<int32_t>(r)) * sx + ox;
    y = double(get_le<int32_t>(r + 4)) * sy + oy;
    z = double(get_le<int32_t>(r + 8)) * sz + oz;
  };
  Bounds sample;
  const size_t step = std::max<size_t>(1, size_t(count / 4096));
  for (size_t i = 0; i < count; i += step) {
    double x, y, z;
    xyz(i, x, y, z);
    sample.extend({x, y, z});
  }
  const Attributes attrs = las_attributes(fmt);
  PointSink sink(in, out, attrs, choose_origin(sample));
  std::atomic<uint32_t> max_seen{0};
  const bool ok = sink.run(
      fixed_blocks(size_t(stride.keep)),
      [&](size_t b, BlockWriter& w, std::string&) {
        const size_t k0 = b << 16;
        const size_t k1 = std::min<size_t>(size_t(stride.keep), k0 + (size_t(1) << 16));
        uint32_t mx = 0;
        for (size_t k = k0; k < k1; ++k) {
          const size_t i = size_t(stride.record(k));
          const uint8_t* r = base + i * rec;
          RawPoint p;
          xyz(i, p.x, p.y, p.z);
          las_point_attributes(r, fmt, p);
          if (rgb) {
            const uint16_t cr = get_le<uint16_t>(r + rgb), cg = get_le<uint16_t>(r + rgb + 2),
                           cb = get_le<uint16_t>(r + rgb + 4);
            mx = std::max<uint32_t>(mx, std::max(cr, std::max(cg, cb)));
            p.color = rgba(uint8_t(cr >> 8), uint8_t(cg >> 8), uint8_t(cb >> 8));
          } else {
            p.color = rgba(255, 255, 255);
          }
          w(p);
        }
        uint32_t cur = max_seen.load();
        while (mx > cur && !max_seen.compare_exchange_weak(cur, mx)) {
        }
        return true;
      },
      error);
  bounds = sink.bounds;
  max_channel = max_seen.load();
  return ok;
}

/// The colors again as 8-bit values (low byte), for files whose channels never exceed 255.
/// Coordinates are finite integers times finite scales, so no point was dropped and cloud index
/// i is record stride.record(i).
void las_colors_8bit(const LasHeader& h, const uint8_t* base, const Stride& stride, PointCloud& c) {
  const uint16_t rec = h.record_length, rgb = kLasRgbOffset[h.format];
  parallel_for(
      c.size(),
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i) {
          const uint8_t* r = base + size_t(stride.record(i)) * rec + rgb;
          c.colors[i] = rgba(uint8_t(get_le<uint16_t>(r)), uint8_t(get_le<uint16_t>(r + 2)),
                             uint8_t(get_le<uint16_t>(r + 4)));
        }
      },
      0, 1 << 16);
}

/// The extra bytes as named fields of the points kept (cloud index i: record stride.record(i)).
void las_extra_fields_kept(const Input& in, const LasHeader& h, const uint8_t* base,
                           const Stride& stride, PointCloud& cloud) {
  if (stride.all()) {
    read_las_extra_bytes(in, h, base, cloud);
    return;
  }
  const uint16_t rec = h.record_length;
  for (const LasExtraField& f : las_extra_fields(in, h)) {
    ScalarField field{f.name, {}};
    field.values.resize(size_t(stride.keep));
    float* dst = field.values.data();
    parallel_for(
        field.values.size(),
        [&](size_t i0, size_t i1) {
          for (size_t i = i0; i < i1; ++i) dst[i] = f.value(base + size_t(stride.record(i)) * rec);
        },
        0, size_t(1) << 16);
    cloud.fields.push_back(std::move(field));
  }
}

}  // namespace

bool read_las(const Input& in, Output& out, std::string* error) {
  LasHeader h;
  if (!parse_las_header(in, h, error)) return false;
  const uint8_t* base = in.data + h.offset;
  // Cloud index k holds record stride.record(k): every record, or an even stride through them.
  const Stride stride = Stride::of(las_records_present(in, out, h), *in.options);
  // Colors are 16-bit by the specification, but many writers store 8-bit values: decode as 16-bit
  // (high byte) and remember the largest channel; if it never exceeds 255, redo the colors as
  // 8-bit.
  Bounds bounds;
  uint32_t max_channel = 0;
  if (!decode_las_records(in, out, h, base, stride, bounds, max_channel, error)) return false;
  if (kLasRgbOffset[h.format] && max_channel <= 255 && out.cloud->size() == stride.keep)
    las_colors_8bit(h, base, stride, *out.cloud);
  // LAS coordinates are always finite, so no point is dropped and cloud index i is record
  // stride.record(i).
  if (out.cloud->size() == stride.keep) las_extra_fields_kept(in, h, base, stride, *out.cloud);
  out.info->version = std::to_string(h.major) + "." + std::to_string(h.minor) + " format " +
                      std::to_string(h.format);
  // A file without points (or cut before its first record) reports the bounds its header states.
  if (stride.n == 0) bounds = las_header_bounds(in.data);
  finish(in, out, bounds, las_attributes(h.format));
  return true;
}

}  // namespace pr::io
