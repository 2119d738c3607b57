// Point-cloud file reading: PLY, LAS, LAZ, PCD, PTS, XYZ/TXT/CSV, E57, the format chosen by
// content.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/point_cloud.h"
#include "engine/progress.h"

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
  double seconds = 0.0;
  std::vector<ScanInfo> scans;  ///< E57: every scan of the file, in its order; else empty
  CopcInfo copc;                ///< COPC: its octree; else present == false
  /// What the reader read past, one line each naming the file (a LAS file cut short: the points
  /// declared and present); empty for a sound file.
  std::vector<std::string> warnings;
};

/// File formats recognised by content.
enum class FileFormat { kUnknown, kPly, kLas, kLaz, kPcd, kPts, kXyz, kE57 };

/// Name of a format as --info prints it ("PLY", "LAS", ...; "unknown").
const char* format_name(FileFormat f);

/// The format of a file from its first bytes (magic numbers, headers) and, for headerless text,
/// its extension (`name`). Binary garbage with no known signature is kUnknown.
FileFormat detect_format(const void* data, size_t size, const std::string& name);

/// Parses a file already in memory (`name` is used in messages and for detection). Same contract
/// as load_point_cloud; used by it after memory-mapping the file, by the fuzz targets and tests.
/// `format` kUnknown means detect.
bool parse_point_cloud(const void* data, size_t size, const std::string& name, FileFormat format,
                       PointCloud& out, FileInfo* info, std::string* error,
                       LoadProgress* progress = nullptr, const LoadOptions* options = nullptr);

/// Reads `path` into `out` (replacing its contents; on failure `out` is left empty and `error`
/// holds a one-line message naming the file and the problem). `info` and `progress` may be null.
/// Success gives at least one point, but for a LAS file without points (its header counts none,
/// or it ends before the first record), which gives an empty cloud and the header's bounds.
bool load_point_cloud(const std::string& path, PointCloud& out, FileInfo* info, std::string* error,
                      LoadProgress* progress = nullptr, const LoadOptions* options = nullptr);

/// The point records of a LAZ file, decompressed: the bytes its LAS twin holds after the header
/// and VLRs (`record_length` bytes a point, in file order).
bool decompress_laz(const std::string& path, std::vector<uint8_t>& records, size_t* record_length,
                    std::string* error);

// ---- writers: they write world coordinates (origin added).

enum class PlyEncoding { kAscii, kBinaryLittleEndian, kBinaryBigEndian };

/// PLY with x y z (float when the origin is 0, else double), red green blue (uchar) and, when the
/// cloud has it, intensity (float).
bool save_ply(const std::string& path, const PointCloud& cloud, PlyEncoding encoding,
              std::string* error);

/// LAS with point format 0..10 (version 1.2 for formats 0-5, 1.4 for 6-10), scale 0.001,
/// colors as 16-bit (c * 257) for formats with RGB, intensity and classification when present.
/// `extra_bytes` are appended to every record (zeros).
bool save_las(const std::string& path, const PointCloud& cloud, int point_format,
              std::string* error, int extra_bytes = 0);

/// PCD 0.7 with x y z (float when the origin is 0, else double) and packed rgb, ascii or binary.
bool save_pcd(const std::string& path, const PointCloud& cloud, bool binary, std::string* error);

/// Text "x y z r g b" per line (three decimals), columns separated by `sep`.
bool save_xyz(const std::string& path, const PointCloud& cloud, char sep, std::string* error);

}  // namespace pr
