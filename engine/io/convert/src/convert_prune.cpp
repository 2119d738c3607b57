// COPC nodes a conversion passes by unread (ConvertOptions::keep_box): the hierarchy of a COPC
// input, read from its memory map, gives each chunk's node and so its cube; a chunk whose cube
// the box test refuses is never decoded.
#include <cstring>
#include <deque>
#include <unordered_map>

#include "convert_read.h"
#include "engine/io/copc.h"

namespace pr::io {

namespace {

/// The bytes of a memory map as a ByteSource, without a copy (the map outlives it).
class SpanSource final : public ByteSource {
 public:
  SpanSource(const uint8_t* data, size_t size, std::string name)
      : data_(data), size_(size), name_(std::move(name)) {}
  const std::string& name() const override { return name_; }
  uint64_t size() const override { return size_; }
  bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
            const std::atomic<bool>* cancel) override {
    (void)cancel;
    if (offset > size_ || size > size_ - offset) {
      if (error) *error = name_ + ": a read past the end of the file";
      return false;
    }
    out.assign(data_ + offset, data_ + offset + size);
    read_ += size;
    return true;
  }
  uint64_t bytes_read() const override { return read_; }

 private:
  const uint8_t* data_;
  size_t size_;
  std::string name_;
  uint64_t read_ = 0;
};

}  // namespace

bool copc_chunks_ruled_out(const uint8_t* data, size_t size, const std::string& name,
                           const std::vector<LazChunk>& chunks, const glm::dvec3& pad,
                           const KeepBox& keep_box, std::vector<uint8_t>& skip) {
  std::string error;
  const auto file = CopcFile::open(std::make_unique<SpanSource>(data, size, name), &error);
  if (!file) return false;  // plain LAZ: every chunk is read
  std::unordered_map<uint64_t, size_t> chunk_at;
  for (size_t c = 0; c < chunks.size(); ++c) chunk_at.emplace(uint64_t(chunks[c].begin), c);
  std::vector<uint8_t> out(chunks.size(), 0);
  std::deque<CopcPage> pages{file->root_page()};
  std::vector<CopcEntry> entries;
  while (!pages.empty()) {
    const CopcPage page = pages.front();
    pages.pop_front();
    if (!file->read_page(page, entries, nullptr, &error)) return false;
    for (const CopcEntry& e : entries) {
      if (e.is_page()) {
        pages.push_back(CopcPage{e.offset, uint64_t(e.byte_size)});
        continue;
      }
      const auto at = chunk_at.find(e.offset);
      if (e.point_count <= 0 || at == chunk_at.end()) continue;
      const Bounds cube = file->node_bounds(e.key);
      if (!keep_box(cube.min - pad, cube.max + pad)) out[at->second] = 1;
    }
  }
  skip = std::move(out);
  return true;
}

}  // namespace pr::io
