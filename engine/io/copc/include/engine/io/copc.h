// COPC read node by node: the header and VLRs once, hierarchy pages when asked for, any node's
// points decoded on its own (one LAZ chunk). What streaming by level of detail reads; the
// whole-file reader (load_point_cloud) reads the same points into the same values.
//
// A COPC file is a LAS 1.4 file (point formats 6, 7, 8) compressed with LASzip's variable chunks,
// one chunk an octree node. Its `copc` info VLR (user "copc", record 1, 160 bytes) holds the root
// cube (centre, half size), the spacing of the root's points and where the root hierarchy page
// lies. A page is an array of 32-byte entries: key (level, x, y, z as int32), offset (uint64),
// byte size (int32), point count (int32). A count of -1 makes the entry a child page (its offset
// and size are the page's); 0 is a node without points that may have children. Levels add up:
// the cloud is the union of every node's points.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/byte_source.h"
#include "engine/io/file_info.h"

namespace pr {

/// An octree node: depth `level` (0: the root) and its cell (x, y, z), each in [0, 2^level).
struct CopcKey {
  int32_t level = 0, x = 0, y = 0, z = 0;
  bool operator==(const CopcKey&) const = default;
  /// The parent's key (the root's parent is the root).
  CopcKey parent() const;
  /// Child i (0..7): bit 0 of i adds to x, bit 1 to y, bit 2 to z.
  CopcKey child(int i) const;
  /// A hash for unordered containers.
  uint64_t hash() const;
};

/// A hierarchy entry: a node (point_count >= 0; its LAZ chunk at [offset, offset + byte_size)) or,
/// with point_count == -1, a child page at [offset, offset + byte_size).
struct CopcEntry {
  CopcKey key;
  uint64_t offset = 0;
  int32_t byte_size = 0;
  int32_t point_count = 0;
  bool is_page() const { return point_count == -1; }
};

/// Where a hierarchy page lies.
struct CopcPage {
  uint64_t offset = 0, size = 0;
};

/// A node's cube in world coordinates: the root cube [centre - half, centre + half) of `c` cut into
/// 2^level cells along each axis (a COPC file's or an EPT dataset's octree).
Bounds copc_node_bounds(const CopcInfo& c, const CopcKey& key);

class CopcFile {
 public:
  /// Reads the header and the VLRs (the first bytes of the file, no hierarchy page, no point).
  /// Null with a one-line message naming the source: not a LAS file, not LAZ, not COPC (no info
  /// VLR), a point format or LAZ item this decoder does not read, a header that does not hold.
  static std::unique_ptr<CopcFile> open(std::unique_ptr<ByteSource> source, std::string* error);
  ~CopcFile();

  /// What --info says of the file from its header: format "LAZ", the version line,
  /// points, bounds, origin, has_color / has_intensity / has_classification, copc (present, centre,
  /// half size, spacing; levels empty: the hierarchy is not read).
  const FileInfo& info() const;
  /// The origin load_point_cloud gives this file's cloud (read_node's positions are relative to
  /// it when asked for the same origin, which gives the same floats).
  glm::dvec3 origin() const;
  CopcPage root_page() const;

  /// A node's cube in world coordinates (from the info VLR's centre and half size).
  Bounds node_bounds(const CopcKey& key) const;
  /// The spacing of a node's points: the root's spacing / 2^level.
  double node_spacing(int level) const;

  /// Reads and parses a hierarchy page. Entries that cannot be right are dropped, each named once
  /// in `warnings` (may be null): a key outside its level, a node's bytes outside the point data,
  /// a negative size, a count below -1. False with a message when the page cannot be read or is
  /// not a whole number of entries.
  bool read_page(const CopcPage& page, std::vector<CopcEntry>& entries,
                 std::vector<std::string>* warnings, std::string* error,
                 const std::atomic<bool>* cancel = nullptr) const;

  /// Reads and decodes a node (not a page) into `out` (replaced): positions relative to
  /// `origin`, the file's colors and the attributes load_point_cloud keeps for it, with the same
  /// values. False with a message naming the node when its bytes cannot be read, the chunk is
  /// corrupt, or it holds another number of points than its entry says. Safe from several
  /// threads at once.
  bool read_node(const CopcEntry& node, const glm::dvec3& origin, PointCloud& out,
                 std::string* error, const std::atomic<bool>* cancel = nullptr) const;

  /// What --info says of the file without decoding a point: the header's facts
  /// (info()) and the hierarchy's levels, from every page (`all_pages`) or from the root
  /// page alone (the rest counted in CopcInfo::unread_pages: a URL, where a page is a request).
  /// With every page read, the levels a whole-file load with `options` reads are marked read and
  /// `points` counts their points (all of them without options: the header's count); a hierarchy
  /// whose points differ from the header's count is a warning. False with a one-line message when
  /// a page cannot be read.
  bool describe(const LoadOptions& options, bool all_pages, FileInfo& info,
                std::string* error) const;

  ByteSource& source() const;

 private:
  CopcFile();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The deepest level a whole-file load (load_point_cloud) with `options` reads of a COPC file
/// whose levels `copc` lists: every level, or LoadOptions::max_depth, or the deepest whose points
/// together with those above fit LoadOptions::max_points (level 0 at least); 0 without levels.
size_t copc_depth(const CopcInfo& copc, const LoadOptions& options);

/// Parses a page already in memory (read_page's checks, for a file of `file_size` bytes whose
/// point data starts at `points_begin`). The fuzz target's entry.
bool parse_copc_page(const uint8_t* data, size_t size, uint64_t points_begin, uint64_t file_size,
                     std::vector<CopcEntry>& entries, std::vector<std::string>* warnings,
                     std::string* error);

}  // namespace pr
