// The HTTP(S) byte source (libcurl) and the checks every byte source shares.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>

#include "engine/io/byte_source.h"

namespace pr {

/// True when [offset, offset + size) lies inside a file of `file_size` bytes; else false with
/// "NAME: bytes A-B lie outside the file (N bytes)".
bool byte_range_fits(const std::string& name, uint64_t offset, uint64_t size, uint64_t file_size,
                     std::string* error);

/// True (and "cancelled" in `error`) when `cancel` is set and true.
bool cancelled(const std::atomic<bool>* cancel, std::string* error);

/// An http:// or https:// URL read with range requests; null with one line naming the URL when
/// the first request (which learns the size) fails.
std::unique_ptr<ByteSource> open_http_source(const std::string& url, const HttpOptions& options,
                                             std::string* error);

}  // namespace pr
