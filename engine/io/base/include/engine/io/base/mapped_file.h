// A whole file mapped read-only: how the loader and the conversion read local files, so that the
// kernel pages them in as the readers touch them and no byte is copied.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace pr::io {

class MappedFile {
 public:
  MappedFile() = default;
  ~MappedFile() { close(); }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  /// Maps `path` (closing what was mapped). False with one line naming the file: it cannot be
  /// opened, is a folder or not a regular file, or cannot be mapped. An empty file maps to no
  /// bytes (data() null, size() 0): whether that is a file of its format is the reader's to say.
  bool open(const std::string& path, std::string* error);
  /// Unmaps the file (data() becomes null).
  void close();

  const uint8_t* data() const { return data_; }
  size_t size() const { return size_; }

  /// Asks the kernel to read the whole file ahead (a reader that goes through all of it).
  void will_need() const;
  /// Hands the whole pages inside [p, p + n) back to the kernel: read once, not needed again (a
  /// file larger than memory read block by block).
  void release(const uint8_t* p, size_t n) const;

 private:
  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace pr::io
