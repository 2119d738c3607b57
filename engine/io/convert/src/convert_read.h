// What the two record sources of a conversion (convert_read.cpp: files; convert_read_cloud.cpp:
// a cloud in memory) share: the output's scale and offset chosen from bounds, the extra-bytes
// VLR of float fields, and a cloud's points turned into LAS 1.4 records.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "convert_records.h"
#include "engine/io/copc/laz_file.h"

namespace pr::io {

/// `inputs` with each folder replaced by the point-cloud files it holds (by extension: those the
/// table of formats, engine/io/formats.h, has a reader for), sorted. False with a one-line message
/// naming a folder that cannot be listed or holds none.
bool expand_inputs(const std::vector<std::string>& inputs, std::vector<std::string>& files,
                   std::string* error);

/// ConvertOptions::keep_box.
using KeepBox = std::function<bool(const glm::dvec3&, const glm::dvec3&)>;

/// Which chunks of a COPC file (its bytes `data`, `size`; its chunks `chunks`) `keep_box` rules
/// out: skip[c] is 1 when the cube of chunk c's node, padded by `pad` on each side, is refused.
/// False (skip untouched) when the file is not COPC or its hierarchy cannot be read: then every
/// chunk is read.
bool copc_chunks_ruled_out(const uint8_t* data, size_t size, const std::string& name,
                           const std::vector<LazChunk>& chunks, const glm::dvec3& pad,
                           const KeepBox& keep_box, std::vector<uint8_t>& skip);

/// Bytes of the standard fields of LAS point formats 6, 7 and 8 (the output's formats).
inline constexpr uint16_t kRecordFormatSize[3] = {30, 36, 38};

/// The largest |integer| the chosen scale lets the extent reach (2^30: half of int32's range,
/// room for the octree cube's margin and for points a header's bounds leave out).
inline constexpr double kQuantumLimit = 1073741824.0;

/// Sets spec.scale and spec.offset for `bounds`: scale 0.001, or the smallest coarser power of
/// ten whose integers hold the extent's half within kQuantumLimit; offset the bounds' centre
/// rounded to a whole multiple of max(1, scale). Adds a message saying so, and `why`.
void choose_scale_offset(const Bounds& bounds, const std::string& why, RecordSpec& spec);

/// True when every coordinate of `bounds` lands inside int32 in spec's scale and offset.
bool quantum_holds(const Bounds& bounds, const RecordSpec& spec);

/// The LASF_Spec extra-bytes VLR payload (record 4) of float fields (data type 9) named `names`,
/// 192 bytes each.
std::vector<uint8_t> float_fields_vlr(const std::vector<std::string>& names);

/// Moves spec.bounds onto the output's grid (each side to the nearest integer of the scale and
/// offset, as the records are rounded): the bounds of the records as written, when the inputs'
/// bounds were those of their points.
void snap_bounds(RecordSpec& spec);

/// Sets spec.record_length from the point format and the extra bytes.
void finish_record_length(RecordSpec& spec);

/// How a cloud's float intensities become LAS's 16-bit ones: (v - low) * scale, rounded and
/// clamped. Integers within 0-65535 stay as they are; other values (E57's 0-1 or its scanner's
/// units, PTS's -2048-2047) are spread linearly from their range over 0-65535.
struct IntensityMap {
  double low = 0.0, scale = 1.0;
  uint16_t operator()(float v) const {
    const double q = std::round((double(v) - low) * scale);
    return uint16_t(q > 0.0 ? (q < 65535.0 ? q : 65535.0) : 0.0);
  }
};

/// The map of `cloud`'s intensities (the identity without intensities); a message naming `name`
/// when it scales them.
IntensityMap intensity_map(const PointCloud& cloud, const std::string& name,
                           std::vector<std::string>& messages);

/// Turns points [begin, end) of `cloud` into records of `spec` appended to `out`: X, Y, Z from
/// world = origin + position, intensity, returns (1 of 1 when the cloud keeps none),
/// classification, point source, GPS time, colors (8-bit * 257) when `color` and the format has
/// RGB, intensities through `im`, and the float extra bytes: output field j takes
/// cloud.fields[field_of[j]] (0 where -1). Points whose coordinates are not finite or leave int32
/// are dropped; returns how many.
uint64_t cloud_records(const PointCloud& cloud, size_t begin, size_t end, const RecordSpec& spec,
                       bool color, const IntensityMap& im, const std::vector<int>& field_of,
                       std::vector<uint8_t>& out);

/// A record's X, Y, Z from a world position; false when one does not land in int32 (or is not
/// finite).
bool quantize(const glm::dvec3& world, const RecordSpec& spec, int32_t xyz[3]);

}  // namespace pr::io
