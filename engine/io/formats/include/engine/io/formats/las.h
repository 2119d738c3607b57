// LAS records and headers: what the LAS reader, the LAZ and COPC readers (engine/io/copc/) and
// the conversion share, so that a record gives the same point whichever of them reads it.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/io/base/io_common.h"

namespace pr::io {

/// Bytes of each LAS point format's fields (before any extra bytes).
inline constexpr uint16_t kLasFormatSize[11] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
/// Offset of R, G, B (uint16 each) in each LAS point format's record; 0: no color.
inline constexpr uint16_t kLasRgbOffset[11] = {0, 0, 20, 28, 0, 28, 0, 30, 30, 0, 30};

/// Offset of the GPS time (double) in each LAS point format's record; 0: none.
inline constexpr uint16_t kLasGpsOffset[11] = {0, 20, 0, 20, 20, 20, 22, 22, 22, 22, 22};

/// Which attributes a LAS point format holds.
inline Attributes las_attributes(uint8_t format) {
  Attributes a;
  a.color = kLasRgbOffset[format] != 0;
  a.intensity = a.classification = a.returns = a.point_source = true;
  a.gps_time = kLasGpsOffset[format] != 0;
  return a;
}

/// Intensity, classification, returns, point source id and GPS time of the LAS record `r`
/// (formats 0-5 keep 3-bit return fields and a 5-bit class; 6-10 4-bit returns and an 8-bit
/// class).
inline void las_point_attributes(const uint8_t* r, uint8_t format, RawPoint& p) {
  uint16_t u16;
  std::memcpy(&u16, r + 12, 2);
  p.intensity = float(u16);
  if (format >= 6) {
    p.returns = pack_returns(r[14] & 15u, unsigned(r[14]) >> 4);
    p.classification = r[16];
    std::memcpy(&p.point_source, r + 20, 2);
  } else {
    p.returns = pack_returns(r[14] & 7u, (unsigned(r[14]) >> 3) & 7u);
    p.classification = uint8_t(r[15] & 0x1F);
    std::memcpy(&p.point_source, r + 18, 2);
  }
  if (kLasGpsOffset[format])
    std::memcpy(&p.gps_time, r + kLasGpsOffset[format], 8);
  else
    p.gps_time = 0.0;
}

/// The fields of a LAS header that LAS and LAZ reading share.
struct LasHeader {
  int major = 0, minor = 0;
  uint16_t header_size = 0, record_length = 0;
  uint32_t offset = 0, vlr_count = 0;
  uint8_t format = 0;  ///< point format, the compression bits (7 and 6) cleared
  uint64_t count = 0;  ///< the 64-bit count (LAS 1.4) where the legacy one is 0 or smaller
  double scale[3] = {1, 1, 1}, origin[3] = {0, 0, 0};
};

/// Reads and checks the header (version, sizes, offset to the points, format, scales); the
/// point data's size is left to the caller.
bool parse_las_header(const Input& in, LasHeader& h, std::string* error);

/// The bounds a LAS header (at least 227 bytes at `header`) declares: max X, min X, max Y, ...
/// from byte 179; empty when they are not finite or min > max.
Bounds las_header_bounds(const uint8_t* header);

/// One scalar of a record's extra bytes that becomes a named float field.
struct LasExtraField {
  std::string name;
  size_t offset = 0;  ///< in the record
  uint8_t type = 0;   ///< the LAS data type, 1 - 10 (uint8 ... double)
  double scale = 1.0, add = 0.0;
  /// The least and greatest values the descriptor declares (its options' min and max bits),
  /// scale and offset applied.
  bool has_range = false;
  double lo = 0.0, hi = 0.0;
  /// The value the descriptor declares for "no data" (its options' bit 0), scale and offset
  /// applied.
  bool has_no_data = false;
  double no_data = 0.0;

  /// The value in `record`, scale and offset applied.
  float value(const uint8_t* record) const;
};

/// The scalar extra bytes the LASF_Spec VLR (record 4) describes, in record order. Arrays (types
/// 11 - 30) and untyped bytes are skipped; a descriptor of an unknown type or past the record ends
/// the list.
std::vector<LasExtraField> las_extra_fields(const Input& in, const LasHeader& h);

/// The extra bytes as named float fields of `cloud`, read from the `records` of cloud.size()
/// points (one a record, none dropped).
void read_las_extra_bytes(const Input& in, const LasHeader& h, const uint8_t* records,
                          PointCloud& cloud);

/// True when a LAS header at `data` describes compressed (LAZ) points: point format byte with
/// bit 7 or 6 set, or a LASzip VLR.
bool las_is_compressed(const uint8_t* data, size_t size);

}  // namespace pr::io
