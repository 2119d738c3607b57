// Local files (pread) and the dispatch between them and HTTP sources (http_source.cpp).
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string_view>

#include "engine/io/base/source_checks.h"
#include "engine/io/open_byte_source.h"
#include "http_source.h"

namespace pr {

namespace {

/// A local file read with pread: no shared file offset, so threads read at once without a lock.
class FileByteSource final : public ByteSource {
 public:
  FileByteSource(std::string name, int fd, uint64_t size)
      : name_(std::move(name)), fd_(fd), size_(size) {}
  ~FileByteSource() override { ::close(fd_); }

  const std::string& name() const override { return name_; }
  uint64_t size() const override { return size_; }
  uint64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }

  bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
            const std::atomic<bool>* cancel) override {
    if (cancelled(cancel, error)) return false;
    if (!byte_range_fits(name_, offset, size, size_, error)) return false;
    out.resize(size);
    uint64_t done = 0;
    while (done < size) {
      // Large reads go in pieces so that a cancel is seen between them.
      const size_t piece = size_t(std::min<uint64_t>(size - done, uint64_t(64) << 20));
      const ssize_t n = ::pread(fd_, out.data() + done, piece, off_t(offset + done));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        if (error) *error = name_ + ": " + range_text(offset, size) + ": " + std::strerror(errno);
        return false;
      }
      if (n == 0) {  // the file shrank since it was opened
        if (error)
          *error = name_ + ": the file ends at byte " + std::to_string(offset + done) +
                   ", inside " + range_text(offset, size);
        return false;
      }
      done += uint64_t(n);
      bytes_read_.fetch_add(uint64_t(n), std::memory_order_relaxed);
      if (done < size && cancelled(cancel, error)) return false;
    }
    return true;
  }

 private:
  std::string name_;
  int fd_;
  uint64_t size_;
  std::atomic<uint64_t> bytes_read_{0};
};

std::unique_ptr<ByteSource> open_file_source(const std::string& path, std::string* error) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    if (error) *error = "cannot open " + path + ": " + std::strerror(errno);
    return nullptr;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    if (error) *error = path + ": " + std::strerror(errno);
    ::close(fd);
    return nullptr;
  }
  if (S_ISDIR(st.st_mode)) {
    if (error) *error = "cannot open " + path + ": it is a folder, not a file";
    ::close(fd);
    return nullptr;
  }
  return std::make_unique<FileByteSource>(path, fd, uint64_t(st.st_size));
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    const char c = s[i] >= 'A' && s[i] <= 'Z' ? char(s[i] - 'A' + 'a') : s[i];
    if (c != prefix[i]) return false;
  }
  return true;
}

}  // namespace

bool is_url(const std::string& path_or_url) {
  return starts_with_nocase(path_or_url, "http://") || starts_with_nocase(path_or_url, "https://");
}

std::unique_ptr<ByteSource> open_byte_source(const std::string& path_or_url, std::string* error,
                                             const HttpOptions* http) {
  if (is_url(path_or_url))
    return open_http_source(path_or_url, http ? *http : HttpOptions{}, error);
  return open_file_source(path_or_url, error);
}

}  // namespace pr
