// The parts of a conversion (engine/io/convert.h) and what passes between them:
// - a RecordSource turns the inputs into LAS 1.4 point records of the output's format, in the
//   output's scale and offset (convert_read.cpp);
// - build_copc_nodes() bins them into spatial buckets on disk and builds each bucket's octree,
//   handing every node's records to a NodeSink (copc_build.cpp);
// - the writers encode and assemble the file: COPC from the nodes, LAZ and LAS from the records
//   in input order (convert_write.cpp).
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/io/convert.h"
#include "engine/io/copc.h"
#include "engine/point_cloud.h"

namespace pr::io {

/// The records every input is turned into: LAS point format 6, 7 (RGB) or 8 (RGB and NIR), then
/// `extra_bytes` bytes of extra fields; X Y Z as int32 in `scale` and `offset`.
struct RecordSpec {
  int point_format = 6;
  uint16_t extra_bytes = 0;
  uint16_t record_length = 30;
  glm::dvec3 scale{0.001}, offset{0.0};
  bool scale_from_input = false;
  /// World bounds of the points (from the LAS headers, or of the points read); the octree's cube
  /// is built around them.
  Bounds bounds;
  /// Records the inputs declare (an upper bound: non-finite points are dropped), less those of
  /// `skipped_points`.
  uint64_t points = 0;
  /// Records of COPC nodes that ConvertOptions::keep_box ruled out: never read.
  uint64_t skipped_points = 0;
  /// The LASF_Spec extra-bytes VLR payload (record 4) describing the extra bytes; empty if none.
  std::vector<uint8_t> extra_bytes_vlr;
  /// GPS times are adjusted standard GPS time (global encoding bit 0), as every LAS input says.
  bool standard_gps_time = false;
  /// The OGC WKT coordinate system (LASF_Projection record 2112) of the LAS inputs; empty if none.
  std::string wkt;
  std::vector<std::string> messages;  ///< choices made (scale/offset, inputs skipped)
};

/// Records as they lie in memory, in parts (a file each): part k holds first[k + 1] - first[k]
/// records from data[k], and a record's index runs over the parts in turn.
struct DirectRecords {
  std::vector<const uint8_t*> data;
  std::vector<uint64_t> first{0};  ///< each part's first index, then the count of all
  uint64_t count() const { return first.back(); }
  void add(const uint8_t* records, uint64_t count) {
    data.push_back(records);
    first.push_back(first.back() + count);
  }
  /// Record `i` (< count()) of `length` bytes; `part` holds the part of the last call (0 to
  /// begin with), so that a run of one part's records finds it at once.
  const uint8_t* record(uint64_t i, size_t length, size_t& part) const {
    if (!(i >= first[part] && i < first[part + 1]))
      part = size_t(std::upper_bound(first.begin(), first.end(), i) - first.begin()) - 1;
    return data[part] + size_t(i - first[part]) * length;
  }
};

/// The inputs' points as records of spec(). Thread-safe: several threads call next() at once and
/// each gets its own block (blocks in input order when one thread reads).
class RecordSource {
 public:
  virtual ~RecordSource() = default;
  virtual const RecordSpec& spec() const = 0;
  /// Replaces `out` with the next block of records (out.size() / record_length of them, at least
  /// one). False at the end, or on an error (then error() is set).
  virtual bool next(std::vector<uint8_t>& out) = 0;
  /// Non-empty once reading failed: one line naming the input.
  virtual std::string error() const = 0;
  /// The records as they lie in memory, when they need no translation (LAS files of the output's
  /// point format, record length, scale and offset), for as long as the source lives: the octree
  /// build then bins their indices instead of copies. False when the records come only through
  /// next().
  virtual bool direct(DirectRecords* out) const {
    (void)out;
    return false;
  }
};

/// A source over files (folders expanded to the point-cloud files they hold). Null with a
/// one-line `error` when no input can be opened or none holds points. `keep_box`
/// (ConvertOptions::keep_box, may be empty): the chunks of COPC inputs whose nodes it rules out
/// are passed by unread.
std::unique_ptr<RecordSource> open_record_source(
    const std::vector<std::string>& inputs, unsigned threads, std::string* error,
    const std::function<bool(const glm::dvec3&, const glm::dvec3&)>& keep_box = {});

/// The records of `source` that `keep` (ConvertOptions::keep) takes, in their order; `source`
/// must outlive it. Never direct(): every record is tested.
std::unique_ptr<RecordSource> filtered_record_source(RecordSource& source,
                                                     std::function<bool(const glm::dvec3&)> keep);

/// A source over a cloud in memory (world = origin + position; named fields as float extra
/// bytes).
std::unique_ptr<RecordSource> cloud_record_source(const PointCloud& cloud);

/// The octree's cube as COPC readers derive a node's box (copclib: the header's minimum plus the
/// node's cell times the longest extent / 2^level; untwine's and PDAL's files alike): it starts at
/// the bounds' minimum corner and its edge is their longest extent, exactly, at least `min_edge`
/// (one scale step, for a cloud of one position). The root's spacing is the edge / 128. Points
/// on the cube's far faces belong to the last cell (the build clamps them).
struct OctreeCube {
  glm::dvec3 center{0.0};
  double halfsize = 0.0;
  double spacing = 0.0;
};
OctreeCube octree_cube(const Bounds& bounds, double min_edge);

/// Copies one record of `length` bytes: two overlapping fixed-size copies (inlined, no call of
/// the library's memcpy a record) for the lengths of point formats 6-8 with up to 34 extra bytes.
inline void copy_record(uint8_t* dst, const uint8_t* src, size_t length) {
  if (length >= 16 && length <= 64) {
    if (length <= 32) {
      std::memcpy(dst, src, 16);
      std::memcpy(dst + length - 16, src + length - 16, 16);
    } else {
      std::memcpy(dst, src, 32);
      std::memcpy(dst + length - 32, src + length - 32, 32);
    }
  } else {
    std::memcpy(dst, src, length);
  }
}

/// Receives the nodes of the octree as they are built, from several threads at once.
class NodeSink {
 public:
  virtual ~NodeSink() = default;
  /// `count` records (spec().record_length bytes each) of node `key`. False stops the build
  /// (a write failed; the sink keeps the reason).
  virtual bool node(const CopcKey& key, const uint8_t* records, uint64_t count) = 0;
};

struct BuildOptions {
  std::string temp_dir;       ///< where the buckets go (a fresh folder is made inside)
  uint64_t memory_bytes = 0;  ///< RAM the build may hold
  unsigned threads = 1;
  ConvertProgress* progress = nullptr;  ///< may be null; its cancel stops the build
};

/// Reads every record of `source`, bins them on disk by spatial bucket, builds each bucket's
/// subtree in memory (a node keeps one point per cell of a 128^3 grid over its cube, the others
/// go deeper; a node with few enough points keeps them all) and hands every node with points to
/// `sink` exactly once. Every record goes to exactly one node. False with a one-line `error` on a
/// full disk, a read error or cancel; the temporary files are removed in every case.
bool build_copc_nodes(RecordSource& source, const OctreeCube& cube, const BuildOptions& options,
                      NodeSink& sink, std::string* error);

}  // namespace pr::io
