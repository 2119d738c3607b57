// LAS extra bytes (LAS 1.4 R15, the "LASF_Spec" VLR of record id 4): the per-point scalar fields
// a file appends to its records, kept by name as float fields of the cloud.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "engine/io/formats/las.h"

namespace pr::io {

namespace {

/// Bytes of an extra-bytes data type 1 - 10 (0 for the others).
size_t type_size(uint8_t t) {
  constexpr size_t kSize[11] = {0, 1, 1, 2, 2, 4, 4, 8, 8, 4, 8};
  return t <= 10 ? kSize[t] : 0;
}

/// A descriptor's "anytype" of 8 bytes for a field of type `t`: an unsigned, a signed integer or a
/// double.
double any_value(const uint8_t* p, uint8_t t) {
  if (t == 9 || t == 10) return get_le<double>(p);
  if (t % 2 == 1) return double(get_le<uint64_t>(p));
  return double(get_le<int64_t>(p));
}

double read_value(const uint8_t* p, uint8_t t) {
  switch (t) {
    case 1:
      return double(p[0]);
    case 2:
      return double(int8_t(p[0]));
    case 3:
      return double(get_le<uint16_t>(p));
    case 4:
      return double(get_le<int16_t>(p));
    case 5:
      return double(get_le<uint32_t>(p));
    case 6:
      return double(get_le<int32_t>(p));
    case 7:
      return double(get_le<uint64_t>(p));
    case 8:
      return double(get_le<int64_t>(p));
    case 9:
      return double(get_le<float>(p));
    default:
      return get_le<double>(p);
  }
}

}  // namespace

float LasExtraField::value(const uint8_t* record) const {
  return float(read_value(record + offset, type) * scale + add);
}

std::vector<LasExtraField> las_extra_fields(const Input& in, const LasHeader& h) {
  std::vector<LasExtraField> fields;
  const size_t base = kLasFormatSize[h.format];
  if (h.record_length <= base) return fields;
  const uint8_t* d = in.data;
  size_t p = h.header_size;
  for (uint32_t v = 0; v < h.vlr_count && p + 54 <= h.offset; ++v) {
    const uint16_t length = get_le<uint16_t>(d + p + 20);
    const size_t body = p + 54;
    if (body + length > h.offset) break;
    if (std::memcmp(d + p + 2, "LASF_Spec", 9) == 0 && get_le<uint16_t>(d + p + 18) == 4) {
      size_t offset = base;  // the fields follow each other after the format's own bytes
      for (size_t k = 0; k + 192 <= length; k += 192) {
        const uint8_t* e = d + body + k;
        const uint8_t type = e[2], options = e[3];
        // Types 11 - 30 (LAS 1.4 R13) are arrays of 2 or 3 scalars: skipped, not kept.
        const size_t size = type == 0    ? options
                            : type <= 10 ? type_size(type)
                            : type <= 30
                                ? type_size(uint8_t((type - 1) % 10 + 1)) * (type <= 20 ? 2 : 3)
                                : 0;
        if (size == 0 || offset + size > h.record_length) break;  // unknown types
        if (type >= 1 && type <= 10) {
          char name[33] = {};
          std::memcpy(name, e + 4, 32);
          LasExtraField f;
          f.name = name[0] ? name : "extra " + std::to_string(k / 192);
          f.offset = offset;
          f.type = type;
          f.scale = (options & 0x08) ? get_le<double>(e + 112) : 1.0;
          f.add = (options & 0x10) ? get_le<double>(e + 136) : 0.0;
          // Min (bit 1) and max (bit 2) at bytes 64 and 88, in the field's raw units.
          if ((options & 0x06) == 0x06) {
            const double a = any_value(e + 64, type) * f.scale + f.add;
            const double b = any_value(e + 88, type) * f.scale + f.add;
            f.has_range = std::isfinite(a) && std::isfinite(b);
            f.lo = std::min(a, b);
            f.hi = std::max(a, b);
          }
          // No data (bit 0) at byte 40, in the field's raw units.
          if (options & 0x01) {
            f.no_data = any_value(e + 40, type) * f.scale + f.add;
            f.has_no_data = true;
          }
          fields.push_back(std::move(f));
        }
        offset += size;
      }
      break;
    }
    p = body + length;
  }
  return fields;
}

void read_las_extra_bytes(const Input& in, const LasHeader& h, const uint8_t* records,
                          PointCloud& cloud) {
  const size_t n = cloud.size();
  if (n == 0) return;
  const size_t rec = h.record_length;
  for (const LasExtraField& f : las_extra_fields(in, h)) {
    ScalarField field{f.name, {}};
    field.values.resize(n);
    float* out = field.values.data();
    parallel_for(
        n,
        [&](size_t i0, size_t i1) {
          for (size_t i = i0; i < i1; ++i) out[i] = f.value(records + i * rec);
        },
        0, size_t(1) << 16);
    cloud.fields.push_back(std::move(field));
  }
}

}  // namespace pr::io
