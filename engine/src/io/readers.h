// The format readers. Each parses the whole input into out.cloud, fills out.info (format,
// version, attributes) and returns false with a one-line message on any problem.
#pragma once

#include "io/io_common.h"

namespace pr::io {

bool read_ply(const Input& in, Output& out, std::string* error);
bool read_las(const Input& in, Output& out, std::string* error);
bool read_pcd(const Input& in, Output& out, std::string* error);
/// PTS and XYZ/TXT/CSV: `pts` skips the count lines of the blocks.
bool read_text(const Input& in, Output& out, bool pts, std::string* error);

/// LZF (liblzf's format, as PCL's binary_compressed uses): decompresses exactly `out_size` bytes;
/// false on any malformed input (never reads or writes out of bounds).
bool lzf_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size);

/// True when a LAS header at `data` describes compressed (LAZ) points: point format byte with
/// bit 7 or 6 set, or a LASzip VLR.
bool las_is_compressed(const uint8_t* data, size_t size);

}  // namespace pr::io
