// Opening the bytes of a local path (pread) or an http:// or https:// URL (libcurl range requests
// on kept-alive connections) as a ByteSource (engine/io/byte_source.h).
#pragma once

#include <memory>
#include <string>

#include "engine/io/byte_source.h"

namespace pr {

/// How HTTP sources behave. The defaults suit a web server or object storage.
struct HttpOptions {
  int retries = 4;                 ///< further tries of a request after a 5xx, a timeout or a drop
  double backoff_s = 0.1;          ///< the first retry's wait; doubles with every retry
  double connect_timeout_s = 5.0;  ///< to open a connection
  /// A transfer that moves no byte for this long is abandoned (and retried): a stalled server.
  double stall_timeout_s = 5.0;
  int max_connections = 8;  ///< kept-alive connections (requests in flight) per source
  /// A PEM bundle of certificate authorities trusted for https:// besides the system's store
  /// (libcurl's default bundle and folder); empty: the system's store alone. A server whose
  /// certificate does not verify against them, or does not name the URL's host, is refused.
  std::string ca_file;
};

/// True for "http://..." and "https://..." (case-insensitive scheme).
bool is_url(const std::string& path_or_url);

/// Opens a local path or an http(s) URL. An HTTP source asks for the first bytes with a range
/// request and learns the size from Content-Range; null with one clear message for: not found
/// (404), forbidden (403), a server that ignores range requests (200 with the whole body), any
/// other HTTP status, a host that cannot be reached, a certificate that is not trusted or names
/// another host, more than 5 redirects (a loop). Redirects (301, 302, 303, 307, 308) are followed
/// by the first request; the range requests after it go to the URL it ended at. `http` may be null
/// (the defaults).
std::unique_ptr<ByteSource> open_byte_source(const std::string& path_or_url, std::string* error,
                                             const HttpOptions* http = nullptr);

}  // namespace pr
