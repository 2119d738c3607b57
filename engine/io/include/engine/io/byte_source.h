// Random access to the bytes of a file, wherever it lives: a local path (pread) or an http:// or
// https:// URL (libcurl range requests on kept-alive connections). The streaming readers (COPC
// hierarchy pages and nodes) read through it, so a survey on a web server or object storage
// (presigned S3 URLs are plain HTTPS) streams exactly like one on disk.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pr {

/// How HTTP sources behave. The defaults suit a web server or object storage.
struct HttpOptions {
  int retries = 4;                 ///< further tries of a request after a 5xx, a timeout or a drop
  double backoff_s = 0.1;          ///< the first retry's wait; doubles with every retry
  double connect_timeout_s = 5.0;  ///< to open a connection
  /// A transfer that moves no byte for this long is abandoned (and retried): a stalled server.
  double stall_timeout_s = 5.0;
  int max_connections = 8;  ///< kept-alive connections (requests in flight) per source
};

/// A file's bytes by offset. read() is safe from several threads at once: an HTTP source runs up
/// to HttpOptions::max_connections requests in flight (callers beyond that wait for one).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// The path or URL, as given (for messages).
  virtual const std::string& name() const = 0;
  /// The file's size in bytes.
  virtual uint64_t size() const = 0;
  /// Reads [offset, offset + size) into `out` (resized to `size`). False with a one-line message
  /// naming the source when the range lies outside the file, the disk fails, or the server does
  /// not answer with these bytes after every retry. `cancel` (may be null), when it turns true,
  /// ends the read early with false and "cancelled".
  virtual bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out,
                    std::string* error, const std::atomic<bool>* cancel = nullptr) = 0;
  /// Bytes delivered by read() so far (for the viewer's MB/s and headless bytes_read=).
  virtual uint64_t bytes_read() const = 0;
};

/// True for "http://..." and "https://..." (case-insensitive scheme).
bool is_url(const std::string& path_or_url);

/// Opens a local path or an http(s) URL. An HTTP source asks for the first bytes with a range
/// request and learns the size from Content-Range; null with one clear message for: not found
/// (404), forbidden (403), a server that ignores range requests (200 with the whole body), any
/// other HTTP status, a host that cannot be reached. `http` may be null (the defaults).
std::unique_ptr<ByteSource> open_byte_source(const std::string& path_or_url, std::string* error,
                                             const HttpOptions* http = nullptr);

/// Bytes already in memory as a source (the fuzz targets and tests).
std::unique_ptr<ByteSource> memory_byte_source(std::vector<uint8_t> bytes, std::string name);

}  // namespace pr
