// Point-cloud files read whole: PLY, LAS, LAZ (COPC included), PCD, PTS, XYZ/TXT/CSV and E57, the
// format chosen by content and read by the reader the table of formats (formats.h) names; and EPT
// datasets on disk (an ept.json or the folder holding it: every node, engine/io/ept.h).
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
/// A file without points (its header declares none; a text file without a line of numbers, or
/// empty) loads as an empty cloud with its FileInfo (format, version, the attributes it
/// declares; a LAS or LAZ file's header bounds). A file cut short (it ends before the points it
/// declares, or inside a record or LAZ chunk) gives the points decoded before the cut and one
/// warning in info->warnings that names the file and what was lost (cut_short_warning()).
bool load_point_cloud(const std::string& path, PointCloud& out, FileInfo* info, std::string* error,
                      LoadProgress* progress = nullptr, const LoadOptions* options = nullptr);

}  // namespace pr
