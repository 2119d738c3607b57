// Random access to the bytes of a file, wherever it lives: the interface the COPC node reader
// (engine/io/copc.h) and streaming read through, and bytes in memory as a source (tests, fuzz
// targets). Local paths and http:// or https:// URLs are opened by engine/io/open_byte_source.h,
// so a survey on a web server or object storage (presigned S3 URLs are plain HTTPS) streams
// exactly like one on disk.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace pr {

/// A file's bytes by offset. read() is safe from several threads at once: an HTTP source
/// (engine/io/open_byte_source.h) runs up to HttpOptions::max_connections requests in flight
/// (callers beyond that wait for one).
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
  virtual bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
                    const std::atomic<bool>* cancel = nullptr) = 0;
  /// Bytes delivered by read() so far (for the viewer's MB/s and headless bytes_read=).
  virtual uint64_t bytes_read() const = 0;
};

/// Bytes already in memory as a source (the fuzz targets and tests).
std::unique_ptr<ByteSource> memory_byte_source(std::vector<uint8_t> bytes, std::string name);

}  // namespace pr
