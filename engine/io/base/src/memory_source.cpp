// Bytes in memory as a ByteSource, and the checks every source makes before it reads.
#include <cstring>

#include "engine/io/base/source_checks.h"
#include "engine/io/byte_source.h"

namespace pr {

std::string range_text(uint64_t offset, uint64_t size) {
  return "bytes " + std::to_string(offset) + "-" + std::to_string(offset + size);
}

bool byte_range_fits(const std::string& name, uint64_t offset, uint64_t size, uint64_t file_size,
                     std::string* error) {
  if (offset <= file_size && size <= file_size - offset) return true;
  if (error) {
    // offset + size may wrap: say "bytes a-b" only when b exists as a number.
    const std::string what = size <= UINT64_MAX - offset
                                 ? range_text(offset, size)
                                 : std::to_string(size) + " bytes from " + std::to_string(offset);
    *error = name + ": " + what + " lie outside the file (" + std::to_string(file_size) + " bytes)";
  }
  return false;
}

bool cancelled(const std::atomic<bool>* cancel, std::string* error) {
  if (!cancel || !cancel->load(std::memory_order_relaxed)) return false;
  if (error) *error = "cancelled";
  return true;
}

namespace {

class MemoryByteSource final : public ByteSource {
 public:
  MemoryByteSource(std::vector<uint8_t> bytes, std::string name)
      : name_(std::move(name)), bytes_(std::move(bytes)) {}

  const std::string& name() const override { return name_; }
  uint64_t size() const override { return bytes_.size(); }
  uint64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }

  bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
            const std::atomic<bool>* cancel) override {
    if (cancelled(cancel, error)) return false;
    if (!byte_range_fits(name_, offset, size, bytes_.size(), error)) return false;
    out.assign(bytes_.begin() + ptrdiff_t(offset), bytes_.begin() + ptrdiff_t(offset + size));
    bytes_read_.fetch_add(size, std::memory_order_relaxed);
    return true;
  }

 private:
  std::string name_;
  std::vector<uint8_t> bytes_;
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace

std::unique_ptr<ByteSource> memory_byte_source(std::vector<uint8_t> bytes, std::string name) {
  return std::make_unique<MemoryByteSource>(std::move(bytes), std::move(name));
}

}  // namespace pr
