// Point-cloud files read whole: PLY, LAS, LAZ (COPC included), PCD, PTS, XYZ/TXT/CSV and E57, the
// format chosen by content and read by the reader the table of formats (formats.h) names.
#pragma once

#include <cstddef>
#include <string>

#include "engine/io/file_info.h"
#include "engine/io/formats.h"
#include "engine/point_cloud.h"
#include "engine/progress.h"

namespace pr {

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

}  // namespace pr
