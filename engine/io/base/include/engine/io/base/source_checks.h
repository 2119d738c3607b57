// The checks every ByteSource makes before it reads (memory here, files and HTTP in the stream
// room), so that each refuses a range or a cancel with the same words.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

namespace pr {

/// True when [offset, offset + size) lies inside a file of `file_size` bytes; else false with
/// "NAME: bytes A-B lie outside the file (N bytes)".
bool byte_range_fits(const std::string& name, uint64_t offset, uint64_t size, uint64_t file_size,
                     std::string* error);

/// True (and "cancelled" in `error`) when `cancel` is set and true.
bool cancelled(const std::atomic<bool>* cancel, std::string* error);

/// "bytes A-B" for [offset, offset + size).
std::string range_text(uint64_t offset, uint64_t size);

}  // namespace pr
