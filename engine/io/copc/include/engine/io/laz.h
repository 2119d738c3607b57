// The point records of a LAZ file decompressed, as its LAS twin holds them (tests and tools).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace pr {

/// The point records of a LAZ file, decompressed: the bytes its LAS twin holds after the header
/// and VLRs (`record_length` bytes a point, in file order).
bool decompress_laz(const std::string& path, std::vector<uint8_t>& records, size_t* record_length,
                    std::string* error);

}  // namespace pr
