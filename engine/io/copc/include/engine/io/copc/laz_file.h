// LAZ files: the whole-file reader (COPC files included, their octree read down to the levels
// LoadOptions choose) and what it shares with the COPC node reader (copc.cpp) and the conversion:
// LAS point records, as a LAZ chunk decodes them, into a point cloud's arrays (one block of the
// whole-file reader's PointSink per chunk, one node into a cloud of its own), so that a record
// gives the same position, color and attributes whichever of them reads it; the parts of a LAZ
// file's header and VLRs that they look up; its chunks.
#pragma once

#include <string>
#include <vector>

#include "engine/io/base/io_common.h"
#include "engine/io/formats/las.h"
#include "engine/io/laz/chunk.h"

namespace pr::io {

/// The fields a point cloud does not keep (las_point_attributes() reads intensity, returns,
/// classification, point source and GPS time; the records' extra bytes become named fields),
/// which loading leaves undecoded in layered chunks.
inline constexpr uint32_t kLazNotKept = laz::kSkipFlags | laz::kSkipScanAngle | laz::kSkipUserData |
                                        laz::kSkipNir | laz::kSkipWavePacket;

/// The payload of the VLR (user id, record id) among the header's VLRs in `in`, or nullptr;
/// `len` its size.
const uint8_t* find_vlr(const Input& in, const LasHeader& h, const char* user, uint16_t record,
                        size_t& len);

/// The LASzip VLR's layout, checked to be one this decoder reads; false with a message naming the
/// file otherwise.
bool find_layout(const Input& in, const LasHeader& h, laz::Layout& lo, std::string* error);

/// --info's version of a LAZ file: LAS version and format, LASzip version and compressor, chunks
/// (`chunks` of them; 0 for variable chunks whose number is not known), ", COPC" for COPC.
std::string laz_version(const LasHeader& h, const laz::Layout& lo, size_t chunks, bool copc);

/// The COPC info VLR's fields (user "copc", record 1: centre x, y, z, half size, spacing, then
/// the root hierarchy page's offset and size), from its 160-byte payload `v`.
void parse_copc_info(const uint8_t* v, CopcInfo& copc, uint64_t& root_offset, uint64_t& root_size);

/// A COPC file's bounds before any point is decoded: the header's, or the info VLR's cube when
/// they do not hold (not finite, or beyond 1e12); empty when neither holds.
Bounds copc_bounds(const Bounds& header_bounds, const CopcInfo& copc);

/// The origin of a COPC file's cloud, choose_origin() of copc_bounds(): known before any node is
/// decoded, so that a node read on its own gets the positions the whole-file read gives it.
glm::dvec3 copc_origin(const Bounds& header_bounds, const CopcInfo& copc);

/// What turning a file's records into points needs from its header and VLRs.
struct LasRecords {
  LasHeader h;
  uint16_t rgb = 0;                   ///< offset of R, G, B in a record; 0: no color
  std::vector<LasExtraField> extras;  ///< the extra bytes kept as named fields
  LasRecords() = default;
  LasRecords(const Input& in, const LasHeader& header)
      : h(header), rgb(kLasRgbOffset[header.format]), extras(las_extra_fields(in, header)) {}
};

/// A record's position in file coordinates.
inline glm::dvec3 las_position(const uint8_t* r, const LasHeader& h) {
  return glm::dvec3(double(get_le<int32_t>(r)) * h.scale[0] + h.origin[0],
                    double(get_le<int32_t>(r + 4)) * h.scale[1] + h.origin[1],
                    double(get_le<int32_t>(r + 8)) * h.scale[2] + h.origin[2]);
}

/// A LAZ file's chunk: its bytes in the file and its points.
struct LazChunk {
  size_t begin = 0, size = 0;  ///< bytes in the file
  uint64_t points = 0;
  uint64_t first = 0;  ///< the index of its first point among all points of the file
  int level = 0;       ///< COPC: the node's octree depth
};

/// What decoding a LAZ file's points needs: its header, its layout, its chunks in file order
/// (from the chunk table; walked when a file of fixed chunks, or of variable layered chunks, has
/// none; one chunk for the unchunked compressor).
struct LazFile {
  LasHeader h;
  laz::Layout layout;
  std::vector<LazChunk> chunks;
  /// The points of the chunks: the header's count, or fewer when the file is cut short.
  uint64_t points = 0;
  /// What a file cut short lost ("chunk 3 of 4 is truncated", "the chunk table is truncated"):
  /// its chunks are those before the cut, the one it ends inside holding the points decoded
  /// before the end; empty for a whole file. (An unchunked stream's cut shows only as its
  /// decoder reads past the end: read_laz keeps the points before it.)
  std::string cut;
};

/// Reads the header, the LASzip VLR and the chunk table of `in` (a file without points has no
/// chunk); false with a message naming the file when any of them does not hold.
bool open_laz(const Input& in, LazFile& f, std::string* error);

/// An unchunked stream (LASzip 1.x's compressor) runs to the end of the file, so a cut shows
/// only as its decoder reads past the end: decodes it once and, when it does, trims its chunk to
/// the points decoded before and sets f.cut. For a reader that needs the count before it decodes
/// the records (the conversion); read_laz finds the cut as it decodes. Other files: nothing.
void find_stream_cut(const Input& in, LazFile& f);

/// LAZ (LASzip-compressed LAS): point-wise and layered chunked compressors, decoded in parallel.
bool read_laz(const Input& in, Output& out, std::string* error);

/// The uncompressed point records of a LAZ file, in file order (tests and tools).
bool laz_records(const Input& in, std::vector<uint8_t>& records, size_t* record_length,
                 std::string* error);

/// What the caller of convert_chunk() says of each record: convert it, pass it by, stop (a
/// failure), or end the chunk before it, keeping what was converted (a stream cut short).
enum class RecordUse { kKeep, kSkip, kStop, kEnd };

/// Decodes the `count` records of a chunk that `reader` started and converts the ones
/// `use(i, record)` keeps into block `w`: the position relative to w.origin (or, with
/// `integers`, the record's integer X, Y, Z in the position's 12 bytes, for a reader that
/// chooses its origin from the decoded records), the attributes, and the extra bytes into
/// `extras[e][w.begin + k]`. Colors follow the LAS reader's rule (16-bit channels, unless none
/// exceeds 255) within the chunk: the high bytes, or the low bytes when no channel of the chunk's
/// kept points exceeds 255; `max_channel` gets the largest channel. kStop ends the chunk with
/// false (`use` sets `err`), kEnd with true; otherwise decoders that read past the chunk's bytes
/// fail it with "truncated or corrupt compressed data".
template <class Use>
bool convert_chunk(laz::ChunkReader& reader, uint64_t count, const LasRecords& recs, bool integers,
                   BlockWriter& w, float* const* extras, uint32_t& max_channel, std::string& err,
                   Use&& use) {
  // Locals for what the point loop reads, so that its stores into the cloud cannot alias them.
  const LasHeader hd = recs.h;
  const uint16_t rgb = recs.rgb;
  const size_t n_extras = recs.extras.size();
  thread_local std::vector<uint16_t> colors;
  if (rgb) colors.resize(w.cap * 3);
  uint8_t buf[256 * 256];  // a record is at most 65535 bytes
  uint32_t mx = 0;
  bool ended = false;
  for (uint64_t i = 0; i < count; ++i) {
    reader.next(buf);
    const RecordUse u = use(i, static_cast<const uint8_t*>(buf));
    if (u == RecordUse::kStop) return false;
    if (u == RecordUse::kEnd) {
      ended = true;
      break;
    }
    if (u == RecordUse::kSkip) continue;
    RawPoint p;
    const glm::dvec3 xyz = las_position(buf, hd);
    p.x = xyz.x, p.y = xyz.y, p.z = xyz.z;
    las_point_attributes(buf, hd.format, p);
    p.color = rgba(255, 255, 255);
    const size_t n0 = w.n;
    w(p);
    if (w.n == n0) continue;
    if (integers) std::memcpy(&w.pos[w.begin + n0], buf, 12);
    for (size_t e = 0; e < n_extras; ++e) extras[e][w.begin + n0] = recs.extras[e].value(buf);
    if (rgb) {
      uint16_t* col = &colors[n0 * 3];
      std::memcpy(col, buf + rgb, 6);
      mx = std::max<uint32_t>(mx, std::max(col[0], std::max(col[1], col[2])));
    }
  }
  if (!ended && reader.overrun()) {
    err = "truncated or corrupt compressed data";
    return false;
  }
  if (rgb) {
    const int shift = mx > 255 ? 8 : 0;
    for (size_t i = 0; i < w.n; ++i) {
      const uint16_t* col = &colors[i * 3];
      w.col[w.begin + i] =
          rgba(uint8_t(col[0] >> shift), uint8_t(col[1] >> shift), uint8_t(col[2] >> shift));
    }
  }
  max_channel = mx;
  return true;
}

}  // namespace pr::io
