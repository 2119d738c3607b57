// The HTTP(S) byte source (libcurl).
#pragma once

#include <memory>
#include <string>

#include "engine/io/open_byte_source.h"

namespace pr {

/// An http:// or https:// URL read with range requests; null with one line naming the URL when
/// the first request (which learns the size) fails.
std::unique_ptr<ByteSource> open_http_source(const std::string& url, const HttpOptions& options,
                                             std::string* error);

}  // namespace pr
