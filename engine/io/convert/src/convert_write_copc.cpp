// A COPC file (https://copc.io): LAS 1.4 with point format 6, 7 or 8, LAZ with variable chunks,
// one chunk an octree node. The nodes arrive from build_copc_nodes() on several threads: each is
// encoded on its thread as one LAZ chunk and appended at the end of the file (the offset taken
// under a lock, the bytes written outside it). Once the octree is done the rest is known and
// written around the chunks:
//
//   header (375) | COPC info VLR (first, 160 bytes) | LASzip VLR | WKT | extra bytes
//   | chunk table offset (8) | chunks ... | chunk table | hierarchy EVLR | WKT EVLR (a long one)
//
// The hierarchy EVLR (user "copc", record 1000) holds the pages: the root page first (the info
// VLR points to it), which lists the nodes of levels 0 to kPageLevels - 1 and, for each node of
// level kPageLevels, a child page entry (point count -1); a child page lists its own node and its
// descendants down kPageLevels levels, and so on, so that a reader of a deep tree reads the pages
// of the parts it needs.
#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "convert_write.h"
#include "engine/io/base/io_common.h"
#include "engine/io/laz/writer.h"

namespace pr::io {

namespace {

/// Levels a hierarchy page covers.
constexpr int kPageLevels = 4;

template <class T>
void put(std::vector<uint8_t>& b, T v) {
  uint8_t t[sizeof(T)];
  std::memcpy(t, &v, sizeof(T));
  b.insert(b.end(), t, t + sizeof(T));
}

struct KeyHash {
  size_t operator()(const CopcKey& k) const { return size_t(k.hash()); }
};

/// Encodes each node as one chunk and appends it to the file.
class CopcSink final : public NodeSink {
 public:
  /// A node's records in the order of their GPS times (stable): the order the scanner wrote
  /// them, whose GPS times, returns and intensities the LAZ items predict best (the build hands
  /// them over in Morton order). The order is a choice for compression, not a promise: times
  /// closer than the node's time range / 2^32 may keep their Morton order.
  const uint8_t* in_gps_order(const uint8_t* records, uint64_t count) const {
    thread_local std::vector<uint64_t> keys, order, spare;
    thread_local std::vector<uint8_t> out;
    const size_t len = layout_.record_length;
    keys.resize(count);
    uint64_t lo = ~uint64_t(0), hi = 0;
    bool sorted = true;
    for (uint64_t i = 0; i < count; ++i) {
      // POINT14's GPS time as a key in the order of the doubles (negative ones' bits reversed),
      // total over every bit pattern: a NaN from a damaged input sorts too.
      uint64_t t;
      std::memcpy(&t, records + i * len + 22, 8);
      t ^= (t >> 63) ? ~uint64_t(0) : uint64_t(1) << 63;
      keys[i] = t;
      sorted = sorted && (i == 0 || keys[i - 1] <= t);
      lo = std::min(lo, t);
      hi = std::max(hi, t);
    }
    if (sorted) return records;
    // The keys less the smallest, their top 32 bits beside the index, radix-sorted (stable) on
    // those bits in digits of 11.
    const int bits = 64 - __builtin_clzll(hi - lo);
    const int shift = bits > 32 ? bits - 32 : 0;
    order.resize(count);
    spare.resize(count);
    for (uint64_t i = 0; i < count; ++i) order[i] = ((keys[i] - lo) >> shift) << 32 | i;
    // The digits' histograms in one pass, then a pass a digit.
    constexpr int kDigit = 11;
    constexpr uint64_t kMask = (1u << kDigit) - 1;
    const int digits = (std::min(bits, 32) + kDigit - 1) / kDigit;
    uint32_t histogram[3][1u << kDigit] = {};
    for (uint64_t v : order) {
      ++histogram[0][(v >> 32) & kMask];
      ++histogram[1][(v >> (32 + kDigit)) & kMask];
      ++histogram[2][(v >> (32 + 2 * kDigit)) & kMask];
    }
    for (int d = 0; d < digits; ++d) {
      const int at = 32 + d * kDigit;
      uint32_t sum = 0;
      for (uint32_t& h : histogram[d]) sum += std::exchange(h, sum);
      uint32_t* to = histogram[d];
      for (uint64_t v : order) spare[to[(v >> at) & kMask]++] = v;
      order.swap(spare);
    }
    out.resize(count * len);
    for (uint64_t i = 0; i < count; ++i)
      copy_record(out.data() + i * len, records + size_t(uint32_t(order[i])) * len, len);
    return out.data();
  }

  CopcSink(OutFile& out, const laz::Layout& layout, uint64_t first_chunk,
           const ConvertProgress* progress)
      : out_(out), layout_(layout), progress_(progress), pos_(first_chunk) {}

  bool node(const CopcKey& key, const uint8_t* records, uint64_t count) override {
    if (count == 0) return true;
    if (progress_ && progress_->cancel.load(std::memory_order_relaxed))
      return stop(out_.path() + ": cancelled");
    std::unique_ptr<Coder> coder = take_coder();
    std::vector<uint8_t>& chunk = coder->chunk;
    chunk.clear();
    const uint8_t* ordered = in_gps_order(records, count);
    coder->writer.start();
    for (uint64_t i = 0; i < count; ++i) coder->writer.add(ordered + i * layout_.record_length);
    coder->writer.finish(chunk);
    RecordStats st;
    st.add(records, count, layout_.record_length);
    uint64_t at = 0;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!error_.empty()) return false;
      at = pos_;
      pos_ += chunk.size();
      CopcEntry e;
      e.key = key;
      e.offset = at;
      e.byte_size = int32_t(chunk.size());
      e.point_count = int32_t(count);
      entries_.push_back(e);
      stats_.merge(st);
    }
    std::string err;
    const bool written = out_.write(at, chunk.data(), chunk.size(), &err);
    give_coder(std::move(coder));
    return written || stop(err);
  }

  /// The nodes in file order (the chunks' order).
  const std::vector<CopcEntry>& entries() const { return entries_; }
  const RecordStats& stats() const { return stats_; }
  uint64_t end() const { return pos_; }
  std::string error() const {
    std::lock_guard<std::mutex> lock(mu_);
    return error_;
  }

 private:
  bool stop(const std::string& e) {
    std::lock_guard<std::mutex> lock(mu_);
    if (error_.empty()) error_ = e;
    return false;
  }

  /// A chunk encoder and its bytes, kept from node to node (its layers' buffers and the chunk's
  /// keep their capacity): one a thread at a time.
  struct Coder {
    explicit Coder(const laz::Layout& layout) : writer(layout) {}
    laz::ChunkWriter writer;
    std::vector<uint8_t> chunk;
  };

  std::unique_ptr<Coder> take_coder() {
    {
      std::lock_guard<std::mutex> lock(coders_mu_);
      if (!coders_.empty()) {
        std::unique_ptr<Coder> c = std::move(coders_.back());
        coders_.pop_back();
        return c;
      }
    }
    return std::make_unique<Coder>(layout_);
  }

  void give_coder(std::unique_ptr<Coder> c) {
    std::lock_guard<std::mutex> lock(coders_mu_);
    coders_.push_back(std::move(c));
  }

  OutFile& out_;
  const laz::Layout& layout_;
  std::mutex coders_mu_;
  std::vector<std::unique_ptr<Coder>> coders_;
  const ConvertProgress* progress_;
  mutable std::mutex mu_;
  uint64_t pos_;
  std::vector<CopcEntry> entries_;
  RecordStats stats_;
  std::string error_;
};

/// The hierarchy's pages, the root page first.
class Hierarchy {
 public:
  explicit Hierarchy(const std::vector<CopcEntry>& entries) {
    for (const CopcEntry& e : entries) nodes_[e.key] = e;
    // Every ancestor of a node is in the hierarchy (without points if the build gave it none), so
    // that a reader walking down from the root finds every node.
    for (const CopcEntry& e : entries)
      for (CopcKey k = e.key; k.level > 0;) {
        k = k.parent();
        if (!nodes_.emplace(k, CopcEntry{k, 0, 0, 0}).second) break;
      }
    nodes_.emplace(CopcKey{}, CopcEntry{});  // the root, even of a file without points
    pages_.push_back({});
    keys_.push_back(CopcKey{});
    for (size_t p = 0; p < pages_.size(); ++p) visit(p, keys_[p]);
  }

  /// The EVLR's payload, whose first byte lies at `at` in the file; `root_size` the root page's
  /// bytes.
  std::vector<uint8_t> payload(uint64_t at, uint64_t& root_size) {
    std::vector<uint64_t> offset(pages_.size() + 1, at);
    for (size_t p = 0; p < pages_.size(); ++p) offset[p + 1] = offset[p] + 32 * pages_[p].size();
    for (const Link& l : links_) {
      CopcEntry& e = pages_[l.page][l.entry];
      e.offset = offset[l.child];
      e.byte_size = int32_t(32 * pages_[l.child].size());
    }
    std::vector<uint8_t> out;
    for (const auto& page : pages_)
      for (const CopcEntry& e : page) {
        put<int32_t>(out, e.key.level), put<int32_t>(out, e.key.x), put<int32_t>(out, e.key.y);
        put<int32_t>(out, e.key.z), put<uint64_t>(out, e.offset), put<int32_t>(out, e.byte_size);
        put<int32_t>(out, e.point_count);
      }
    root_size = 32 * pages_[0].size();
    return out;
  }

 private:
  struct Link {
    size_t page, entry, child;
  };

  // `k` by value: keys_ grows while the page is visited.
  void visit(size_t p, CopcKey k) {
    if (k.level == keys_[p].level + kPageLevels) {
      links_.push_back({p, pages_[p].size(), pages_.size()});
      pages_[p].push_back(CopcEntry{k, 0, 0, -1});
      pages_.push_back({});
      keys_.push_back(k);
      return;
    }
    pages_[p].push_back(nodes_.at(k));
    for (int i = 0; i < 8; ++i)
      if (nodes_.count(k.child(i))) visit(p, k.child(i));
  }

  std::unordered_map<CopcKey, CopcEntry, KeyHash> nodes_;
  std::vector<std::vector<CopcEntry>> pages_;
  std::vector<CopcKey> keys_;
  std::vector<Link> links_;
};

std::vector<uint8_t> copc_info(const OctreeCube& cube, uint64_t root_offset, uint64_t root_size,
                               const RecordStats& st) {
  std::vector<uint8_t> v(160, 0);  // 9 fields, then 11 reserved 64-bit words
  const double fields[5] = {cube.center.x, cube.center.y, cube.center.z, cube.halfsize,
                            cube.spacing};
  for (int i = 0; i < 5; ++i) put_le<double>(&v[size_t(8 * i)], fields[i]);
  put_le<uint64_t>(&v[40], root_offset);
  put_le<uint64_t>(&v[48], root_size);
  put_le<double>(&v[56], st.points ? st.gps_min : 0.0);
  put_le<double>(&v[64], st.points ? st.gps_max : 0.0);
  return v;
}

/// The COPC info VLR first (COPC readers look for it right after the header), the LASzip VLR,
/// then the WKT and extra bytes.
std::vector<uint8_t> copc_vlrs(const RecordSpec& spec, const laz::Layout& layout,
                               const OctreeCube& cube, uint64_t root_offset, uint64_t root_size,
                               const RecordStats& st, uint32_t& count) {
  std::vector<uint8_t> v;
  append_vlr(v, "copc", 1, copc_info(cube, root_offset, root_size, st), "COPC info");
  append_vlr(v, "laszip encoded", 22204, laz::layout_vlr(layout), "LASzip compression");
  count = 2;
  append_spec_vlrs(v, spec, count);
  return v;
}

}  // namespace

bool write_copc(RecordSource& source, OutFile& out, const BuildOptions& build,
                ConvertResult& result, std::string* error) {
  const RecordSpec& spec = source.spec();
  const laz::Layout layout = laz::make_layout(spec.point_format, spec.extra_bytes);
  const OctreeCube cube =
      octree_cube(spec.bounds, std::max({spec.scale.x, spec.scale.y, spec.scale.z}));
  // The VLRs' sizes do not depend on the values written into them later.
  uint32_t nvlrs = 0;
  const size_t vlr_bytes = copc_vlrs(spec, layout, cube, 0, 0, RecordStats(), nvlrs).size();
  HeaderLayout lay;
  lay.compressed = true;
  lay.vlrs = nvlrs;
  lay.point_offset = uint32_t(375 + vlr_bytes);
  lay.bounds = &spec.bounds;
  CopcSink sink(out, layout, lay.point_offset + 8, build.progress);
  std::string build_error;
  if (!build_copc_nodes(source, cube, build, sink, &build_error)) {
    const std::string sink_error = sink.error();
    if (error) *error = !sink_error.empty() ? sink_error : build_error;
    return false;
  }
  if (!source.error().empty()) {
    if (error) *error = source.error();
    return false;
  }
  const std::vector<CopcEntry>& entries = sink.entries();
  std::vector<uint64_t> points, bytes;
  for (const CopcEntry& e : entries) {
    points.push_back(uint64_t(e.point_count));
    bytes.push_back(uint64_t(e.byte_size));
    result.nodes++;
    result.levels = std::max(result.levels, e.key.level + 1);
  }
  const uint64_t table_at = sink.end();
  std::vector<uint8_t> tail = laz_chunk_table(points, bytes, true);
  lay.evlr_start = table_at + tail.size();
  lay.evlrs = 1;
  Hierarchy hierarchy(entries);
  uint64_t root_size = 0;
  const std::vector<uint8_t> pages = hierarchy.payload(lay.evlr_start + 60, root_size);
  append_evlr(tail, "copc", 1000, pages, "EPT hierarchy");
  if (append_wkt_evlr(tail, spec)) lay.evlrs++;
  const RecordStats& st = sink.stats();
  result.points = st.points;
  const std::vector<uint8_t> vlrs =
      copc_vlrs(spec, layout, cube, lay.evlr_start + 60, root_size, st, nvlrs);
  const std::vector<uint8_t> h = las_header(spec, st, lay);
  const int64_t table = int64_t(table_at);
  return out.write(table_at, tail.data(), tail.size(), error) &&
         out.write(lay.point_offset, &table, 8, error) && out.write(0, h.data(), h.size(), error) &&
         out.write(h.size(), vlrs.data(), vlrs.size(), error);
}

}  // namespace pr::io
