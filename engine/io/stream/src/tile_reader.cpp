// The two kinds of tile the workers read (tile_reader.h): a COPC file on a prefetching source, and
// an EPT dataset whose files are fetched whole through open_byte_source().
#include "tile_reader.h"

#include "engine/io/ept_source.h"
#include "stream_workers.h"

namespace pr {

namespace {

class CopcTile final : public TileReader {
 public:
  explicit CopcTile(std::unique_ptr<CopcFile> file) : file_(std::move(file)) {}
  const FileInfo& info() const override { return file_->info(); }
  glm::dvec3 origin() const override { return file_->origin(); }
  CopcEntry root_page() const override {
    const CopcPage p = file_->root_page();
    return CopcEntry{CopcKey{}, p.offset, int32_t(p.size), -1};
  }
  bool read_page(const CopcEntry& page, std::vector<CopcEntry>& entries,
                 std::vector<std::string>* warnings, std::string* error,
                 const std::atomic<bool>* cancel) const override {
    return file_->read_page(CopcPage{page.offset, uint64_t(page.byte_size)}, entries, warnings,
                            error, cancel);
  }
  bool read_node(const CopcEntry& node, const glm::dvec3& origin, PointCloud& out,
                 std::string* error, const std::atomic<bool>* cancel) const override {
    return file_->read_node(node, origin, out, error, cancel);
  }
  uint64_t bytes_read() const override { return file_->source().bytes_read(); }
  bool contiguous() const override { return true; }
  bool read_ahead(uint64_t offset, uint64_t size, const std::atomic<bool>* cancel) override {
    return prefetch_range(file_->source(), offset, size, cancel);
  }

 private:
  std::unique_ptr<CopcFile> file_;
};

class EptTile final : public TileReader {
 public:
  explicit EptTile(std::unique_ptr<EptDataset> d) : d_(std::move(d)) {}
  const FileInfo& info() const override { return d_->info(); }
  glm::dvec3 origin() const override { return d_->origin(); }
  CopcEntry root_page() const override {
    return CopcEntry{CopcKey{}, ept_key_serial(CopcKey{}), 0, -1};
  }
  bool read_page(const CopcEntry& page, std::vector<CopcEntry>& entries,
                 std::vector<std::string>* warnings, std::string* error,
                 const std::atomic<bool>* cancel) const override {
    return d_->read_hierarchy(page.key, entries, warnings, error, cancel);
  }
  bool read_node(const CopcEntry& node, const glm::dvec3& origin, PointCloud& out,
                 std::string* error, const std::atomic<bool>* cancel) const override {
    return d_->read_node(node.key, node.point_count, origin, out, error, cancel);
  }
  uint64_t bytes_read() const override { return d_->bytes_read(); }

 private:
  std::unique_ptr<EptDataset> d_;
};

}  // namespace

EptFetch byte_source_fetch(const HttpOptions* http) {
  const HttpOptions options = http ? *http : HttpOptions();
  return [options](const std::string& href, std::vector<uint8_t>& bytes, std::string* error,
                   const std::atomic<bool>* cancel) {
    std::unique_ptr<ByteSource> source = open_byte_source(href, error, &options);
    if (!source) return false;
    return source->read(0, source->size(), bytes, error, cancel);
  };
}

std::unique_ptr<EptDataset> open_ept(const std::string& input, const HttpOptions* http,
                                     std::string* error) {
  const std::string json = ept_json_of(input);
  if (json.empty()) {
    if (error) *error = input + ": not an EPT dataset (no ept.json)";
    return nullptr;
  }
  return EptDataset::open(json, byte_source_fetch(http), error);
}

std::unique_ptr<TileReader> open_tile(const std::string& href, const HttpOptions& http,
                                      std::string* error) {
  if (!ept_json_of(href).empty()) {
    std::unique_ptr<EptDataset> d = open_ept(href, &http, error);
    return d ? std::make_unique<EptTile>(std::move(d)) : nullptr;
  }
  std::unique_ptr<ByteSource> source = open_byte_source(href, error, &http);
  if (!source) return nullptr;
  std::unique_ptr<CopcFile> file = CopcFile::open(prefetching_source(std::move(source)), error);
  return file ? std::make_unique<CopcTile>(std::move(file)) : nullptr;
}

}  // namespace pr
