// What to read of a point-cloud file and what reading it tells (--info): the types every room of
// io passes around, apart from the functions that read.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/point_cloud.h"

namespace pr {

/// What to read of a file, for formats that hold more than one cloud or more points than wanted.
/// The defaults read everything.
struct LoadOptions {
  /// E57: the scans to read (0-based, in the file's order); empty: every scan, merged.
  std::vector<uint32_t> scans;
  /// At most this many points (0: all). COPC reads its octree down to the deepest level whose
  /// points fit (level 0 at least); every other format keeps an even stride through its records
  /// (LAS/LAZ points, PLY vertices, PCD points, E57 records of the scans read, the non-blank
  /// lines of PTS/XYZ text), so that every part of the survey keeps its share. A record picked
  /// that gives no point (NaN coordinates, an invalid E57 point, a stray text line) leaves the
  /// cloud that much smaller.
  uint64_t max_points = 0;
  /// COPC: the deepest octree level to read (-1: all).
  int max_depth = -1;
  /// LAZ (not COPC) with max_points: whole chunks spread evenly through the file, the fewest
  /// whose points reach max_points, in place of a stride through every record; only those chunks
  /// are decoded (a stride decodes every chunk), so that a preview of a large LAZ file costs a
  /// fraction of the whole load. Its origin comes from the records of those chunks.
  bool whole_chunks = false;
};

/// One scan of a file that holds several (E57).
struct ScanInfo {
  std::string name;
  uint64_t records = 0;  ///< records the file declares (invalid ones included)
  uint64_t points = 0;   ///< points read: the valid ones; 0 for a scan not read
  bool read = false;     ///< chosen by LoadOptions::scans (every scan when it is empty)
};

/// One level (depth) of a COPC octree.
struct CopcLevel {
  uint32_t nodes = 0;   ///< nodes holding points
  uint64_t points = 0;  ///< points of all its nodes
  bool read = false;    ///< chosen by LoadOptions::max_depth and max_points
};

/// The octree of a COPC file (a LAZ 1.4 file whose variable chunks are the octree's nodes).
struct CopcInfo {
  bool present = false;
  glm::dvec3 center{0.0};
  double halfsize = 0.0;          ///< of the root cube
  double spacing = 0.0;           ///< between points at level 0
  std::vector<CopcLevel> levels;  ///< index: depth (0: the root)
  /// Child hierarchy pages whose nodes `levels` does not count (--info of a URL reads the root
  /// page only); 0 when every page was read.
  uint32_t unread_pages = 0;
};

/// A named scalar field of a file (LAS extra bytes): its name and, where the file declares them,
/// its least and greatest values and its value for "no data".
struct FieldInfo {
  std::string name;
  bool has_range = false;
  double lo = 0.0, hi = 0.0;
  bool has_no_data = false;
  double no_data = 0.0;
};

/// What --info reports about a file.
struct FileInfo {
  std::string file;
  std::string format;   ///< "PLY", "LAS", "PCD", "PTS", "XYZ", "E57"
  std::string version;  ///< e.g. "binary_little_endian 1.0", "1.4 format 6", "0.7 binary"
  uint64_t points = 0;
  Bounds bounds;  ///< in the file's own coordinates (double)
  glm::dvec3 origin{0.0};
  bool has_color = false;
  bool has_intensity = false;
  bool has_classification = false;
  /// COPC: the named scalar fields its points carry (the streamed pool's); else empty.
  std::vector<FieldInfo> fields;
  double seconds = 0.0;
  std::vector<ScanInfo> scans;  ///< E57: every scan of the file, in its order; else empty
  CopcInfo copc;                ///< COPC: its octree; else present == false
  /// What the reader read past, one line each naming the file (a LAS file cut short: the points
  /// declared and present); empty for a sound file.
  std::vector<std::string> warnings;
};

}  // namespace pr
