// The whole-file readers of PLY, LAS, PCD, PTS, XYZ/TXT/CSV and E57 (LAZ and COPC:
// engine/io/copc/laz_file.h). Each parses the whole input into out.cloud, fills out.info (version,
// attributes; the loader names the format) and returns false with a one-line message on any
// problem.
#pragma once

#include <string>

#include "engine/io/base/io_common.h"

namespace pr::io {

bool read_ply(const Input& in, Output& out, std::string* error);
bool read_las(const Input& in, Output& out, std::string* error);
bool read_pcd(const Input& in, Output& out, std::string* error);
/// PTS and XYZ/TXT/CSV: `pts` skips the count lines of the blocks.
bool read_text(const Input& in, Output& out, bool pts, std::string* error);
/// ASTM E57: the scans LoadOptions::scans names (all when empty), merged, poses applied.
bool read_e57(const Input& in, Output& out, std::string* error);

}  // namespace pr::io
