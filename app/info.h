// --info: what each file holds, as text or one JSON object per file (one per line).
#pragma once

#include <string>

#include "engine/io/io.h"
#include "engine/io/open_byte_source.h"
#include "options.h"

namespace pr {

/// One file as --info reports it: read with the options' --scan, --max-points and --max-depth.
struct FileReport {
  bool ok = false;
  FileInfo info;      ///< info.file: the path as given
  std::string error;  ///< when !ok: one line naming the file and the problem
};

/// Reads `path` and describes it; `seconds` is the load time (the reader's own when it has one).
/// URLs are read with `http` (null: the defaults).
FileReport describe_file(const std::string& path, const LoadOptions& options,
                         const HttpOptions* http = nullptr);

/// The --info --json line of a report (no newline): file, format, version, points, bounds_min,
/// bounds_max, origin, has_color, has_intensity, has_classification, seconds, then scans (E57),
/// copc (COPC) and warnings when there are any; a failed file: file and error.
std::string info_json(const FileReport& report);

/// The --info text of a file that was read: one header line and indented fields.
std::string info_text(const FileInfo& info);

/// `pointraster --info [--json] FILE...`: returns 0, or 1 when any file failed.
int run_info(const Options& o);

}  // namespace pr
