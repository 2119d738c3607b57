// The COPC octree build: the cube, binning the source's records into buckets (in memory, or on
// disk through a temporary folder when they do not fit), and the order of the phases. The octree
// itself is described in copc_build.h.
#include "copc_build.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

#include "engine/io/base/io_common.h"
#include "engine/parallel.h"

namespace pr::io {

OctreeCube octree_cube(const Bounds& bounds, double min_edge) {
  OctreeCube c;
  double edge = 0.0;
  if (!bounds.empty) {
    const glm::dvec3 s = bounds.size();
    edge = std::max({s.x, s.y, s.z});
  }
  if (!(edge >= min_edge)) edge = min_edge;
  c.halfsize = 0.5 * edge;
  c.center = (bounds.empty ? glm::dvec3(0.0) : bounds.min) + glm::dvec3(c.halfsize);
  c.spacing = edge / 128.0;
  return c;
}

namespace copc_build {

Frame make_frame(const OctreeCube& cube, const RecordSpec& spec) {
  Frame f;
  const double edge = 2.0 * cube.halfsize;
  f.min = cube.center - glm::dvec3(cube.halfsize);
  f.units = 4294967296.0 / edge;
  f.scale = spec.scale;
  f.offset = spec.offset;
  f.record_length = spec.record_length;
  double finest = std::numeric_limits<double>::infinity();
  for (int i = 0; i < 3; ++i)
    if (spec.scale[i] > 0.0) finest = std::min(finest, spec.scale[i]);
  // Level d's grid cells are edge / 2^(d + 7) wide: the cap is the first level whose cells are no
  // wider than the finest scale step, where every distinct position has a cell of its own.
  int cap = 24;
  if (std::isfinite(finest)) cap = int(std::ceil(std::log2(edge / finest))) - 7;
  f.cap = std::clamp(cap, 0, 24);
  return f;
}

bool Build::fail(const std::string& message) {
  std::lock_guard<std::mutex> lock(error_mutex);
  if (!stop.exchange(true)) error = message;
  return false;
}

bool Build::cancelled() {
  if (progress && progress->cancel.load(std::memory_order_relaxed)) fail("cancelled");
  return stop.load(std::memory_order_relaxed);
}

bool Build::deliver(const CopcKey& key, const uint8_t* records, uint64_t count) {
  if (stop.load()) return false;
  if (!sink->node(key, records, count))
    return fail("node " + std::to_string(key.level) + "-" + std::to_string(key.x) + "-" +
                std::to_string(key.y) + "-" + std::to_string(key.z) + " could not be written");
  if (progress) progress->done.fetch_add(count, std::memory_order_relaxed);
  return true;
}

bool Build::add_upper(const CopcKey& key, const uint8_t* records, size_t bytes) {
  std::lock_guard<std::mutex> lock(upper_mutex);
  std::vector<uint8_t>& dst = upper_records[key];
  dst.insert(dst.end(), records, records + bytes);
  upper_held += bytes;
  if (!store || upper_held <= upper_limit) return true;
  // Past the limit every node's records go to the store; delivery reads them back.
  std::string e;
  for (auto& [k, v] : upper_records) {
    if (v.empty()) continue;
    Extent x;
    if (!store->append(v.data(), v.size(), &x, &e)) return fail(e);
    upper_extents[k].push_back(x);
    std::vector<uint8_t>().swap(v);
  }
  upper_held = 0;
  return true;
}

void MemoryBudget::acquire(uint64_t bytes) {
  std::unique_lock<std::mutex> lock(m_);
  cv_.wait(lock, [&] { return used_ == 0 || used_ + bytes <= total_; });
  used_ += bytes;
}

void MemoryBudget::release(uint64_t bytes) {
  std::lock_guard<std::mutex> lock(m_);
  used_ -= bytes;
  cv_.notify_all();
}

void run_threads(unsigned threads, const std::function<void(unsigned)>& fn) {
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(fn, t);
  fn(0);
  for (std::thread& t : pool) t.join();
}

struct Binner::Slot {
  std::mutex m;
  std::vector<uint8_t> buffer;  // records not yet written (with a store), else the bucket's data
  Bucket bucket;
};

Binner::Binner(const Frame& frame, const CopcKey& parent, int depth, Store* store,
               size_t buffer_bytes)
    : frame_(frame), parent_(parent), depth_(depth), store_(store), buffer_bytes_(buffer_bytes) {
  const size_t n = size_t(1) << (3 * depth);
  slots_.reserve(n);
  const int side = 1 << depth;
  for (size_t i = 0; i < n; ++i) {
    slots_.push_back(std::make_unique<Slot>());
    const int x = int(i) & (side - 1), y = int(i >> depth) & (side - 1), z = int(i >> (2 * depth));
    slots_.back()->bucket.key = CopcKey{parent.level + depth, (parent.x << depth) + x,
                                        (parent.y << depth) + y, (parent.z << depth) + z};
  }
}

Binner::~Binner() = default;

namespace {

/// Room for `bytes` more records at the end of `pieces`: the last piece's, or a new piece of
/// 1 MiB (more for a larger run). Pieces are not zero-filled; the caller writes every byte.
uint8_t* piece_for(std::vector<RecordPiece>& pieces, size_t bytes) {
  if (pieces.empty() || pieces.back().capacity - pieces.back().size < bytes) {
    RecordPiece p;
    p.capacity = std::max<size_t>(size_t(1) << 20, bytes);
    p.bytes.reset(new uint8_t[p.capacity]);
    pieces.push_back(std::move(p));
  }
  RecordPiece& p = pieces.back();
  uint8_t* at = p.bytes.get() + p.size;
  p.size += bytes;
  return at;
}

}  // namespace

bool Binner::add(const uint8_t* records, size_t count, std::string* error) {
  return add(records, count, ~uint64_t(0), error);
}

bool Binner::add_indices(const uint8_t* records, size_t count, uint64_t first, std::string* error) {
  return add(records, count, first, error);
}

bool Binner::add(const uint8_t* records, size_t count, uint64_t first, std::string* error) {
  const size_t rl = frame_.record_length;
  const size_t n = slots_.size();
  // Counting sort of the block by slot, then one lock a run; the arrays are the thread's, kept
  // from block to block (every entry below is written before it is read).
  thread_local std::vector<uint32_t> slot_of, start, order;
  thread_local std::vector<Pos> pos;
  slot_of.resize(count);
  order.resize(count);
  pos.resize(count);
  start.assign(n + 1, 0);
  if (depth_ == 0) std::fill(slot_of.begin(), slot_of.end(), 0u);
  const int shift = 32 - (parent_.level + depth_);
  const uint32_t mask = (uint32_t(1) << depth_) - 1u;
  for (size_t i = 0; i < count; ++i) {
    const Pos& p = pos[i] = frame_.position(records + i * rl);
    if (depth_ > 0)
      slot_of[i] = ((p[0] >> shift) & mask) | (((p[1] >> shift) & mask) << depth_) |
                   (((p[2] >> shift) & mask) << (2 * depth_));
  }
  for (size_t i = 0; i < count; ++i) ++start[slot_of[i] + 1];
  for (size_t s = 0; s < n; ++s) start[s + 1] += start[s];
  std::vector<uint32_t> fill(start.begin(), start.end() - 1);
  for (size_t i = 0; i < count; ++i) order[fill[slot_of[i]]++] = uint32_t(i);
  for (size_t s = 0; s < n; ++s) {
    const uint32_t b = start[s], e = start[s + 1];
    if (b == e) continue;
    Pos lo = pos[order[b]], hi = lo;
    for (uint32_t k = b + 1; k < e; ++k)
      for (size_t a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], pos[order[k]][a]);
        hi[a] = std::max(hi[a], pos[order[k]][a]);
      }
    Slot& slot = *slots_[s];
    std::lock_guard<std::mutex> lock(slot.m);
    for (size_t a = 0; a < 3; ++a) {
      slot.bucket.lo[a] = std::min(slot.bucket.lo[a], lo[a]);
      slot.bucket.hi[a] = std::max(slot.bucket.hi[a], hi[a]);
    }
    slot.bucket.records += e - b;
    const size_t bytes = size_t(e - b) * rl;
    if (!store_ && first != ~uint64_t(0)) {
      uint8_t* to = piece_for(slot.bucket.pieces, size_t(e - b) * 4);
      for (uint32_t k = b; k < e; ++k, to += 4) put_le<uint32_t>(to, uint32_t(first + order[k]));
      continue;
    }
    if (!store_) {
      uint8_t* to = piece_for(slot.bucket.pieces, bytes);
      for (uint32_t k = b; k < e; ++k, to += rl) copy_record(to, records + order[k] * rl, rl);
      continue;
    }
    std::vector<uint8_t>& dst = slot.buffer;
    size_t at = dst.size();
    const size_t capacity = dst.capacity();
    dst.resize(at + bytes);
    for (uint32_t k = b; k < e; ++k, at += rl) copy_record(&dst[at], records + order[k] * rl, rl);
    // The buffers' capacities (what they keep resident), not their sizes, count.
    const uint64_t held = buffered_ += dst.capacity() - capacity;
    if (dst.size() >= (1u << 20) || (held > buffer_bytes_ && dst.size() >= (16u << 10))) {
      if (!flush(slot, error)) return false;
    }
  }
  return true;
}

bool Binner::flush(Slot& slot, std::string* error) {
  if (slot.buffer.empty()) return true;
  Extent e;
  if (!store_->append(slot.buffer.data(), slot.buffer.size(), &e, error)) return false;
  slot.bucket.extents.push_back(e);
  slot.buffer.clear();
  if (buffered_.load() > buffer_bytes_) {
    buffered_ -= slot.buffer.capacity();
    std::vector<uint8_t>().swap(slot.buffer);
  }
  return true;
}

bool Binner::finish(std::vector<Bucket>* out, std::string* error) {
  for (auto& s : slots_) {
    if (store_) {
      if (!flush(*s, error)) return false;
      buffered_ -= s->buffer.capacity();
      std::vector<uint8_t>().swap(s->buffer);
    }
    if (s->bucket.records > 0) out->push_back(std::move(s->bucket));
  }
  return true;
}

namespace {

/// Bucket level in memory: one bucket for small inputs, else enough for the threads (a surface
/// fills 4^L of the 8^L buckets) and small enough that a surface's bucket (points / 4^L) stays
/// near 2^18 records, whose sort and sampling stay in the caches.
int memory_level(uint64_t points, unsigned threads) {
  if (points < 65536) return 0;
  int level = threads <= 1 ? 0 : threads <= 4 ? 2 : 3;
  while (level < 5 && (points >> (2 * level)) > (uint64_t(1) << 18)) ++level;
  return level;
}

/// Bucket level on disk: a surface's bucket (points / 4^L) should fit a thread's share of the build
/// budget twice over; larger ones are split after binning.
int disk_level(uint64_t bytes, uint64_t budget, unsigned threads) {
  int level = 1;
  while (level < 5 && (bytes >> (2 * level)) > budget / (2 * uint64_t(threads))) ++level;
  return level;
}

/// Bins a direct source's indices, blocks of 2^16 records of a part on every thread.
bool bin_direct(Build& b, Binner& binner, uint64_t* binned) {
  struct Block {
    size_t part;
    uint64_t at, n;  // within the part
  };
  const uint64_t size = uint64_t(1) << 16, rl = b.frame.record_length;
  std::vector<Block> blocks;
  for (size_t k = 0; k + 1 < b.direct.first.size(); ++k) {
    const uint64_t n = b.direct.first[k + 1] - b.direct.first[k];
    for (uint64_t at = 0; at < n; at += size) blocks.push_back({k, at, std::min(size, n - at)});
  }
  std::atomic<size_t> next{0};
  run_threads(b.threads, [&](unsigned) {
    std::string error;
    for (size_t i; !b.cancelled() && (i = next++) < blocks.size();) {
      const Block& k = blocks[i];
      if (!binner.add_indices(b.direct.data[k.part] + k.at * rl, size_t(k.n),
                              b.direct.first[k.part] + k.at, &error)) {
        b.fail(error);
        return;
      }
      if (b.progress) b.progress->done.fetch_add(k.n, std::memory_order_relaxed);
    }
  });
  *binned = b.direct.count();
  return !b.stop.load();
}

bool bin_source(Build& b, RecordSource& source, Binner& binner, uint64_t* binned) {
  if (b.is_direct) return bin_direct(b, binner, binned);
  std::atomic<uint64_t> count{0};
  run_threads(b.threads, [&](unsigned) {
    std::vector<uint8_t> block;
    std::string error;
    while (!b.cancelled()) {
      if (!source.next(block)) {
        const std::string e = source.error();
        if (!e.empty()) b.fail(e);
        return;
      }
      const size_t n = block.size() / b.frame.record_length;
      if (!binner.add(block.data(), n, &error)) {
        b.fail(error);
        return;
      }
      count += n;
      if (b.progress) b.progress->done.fetch_add(n, std::memory_order_relaxed);
    }
  });
  *binned = count.load();
  return !b.stop.load();
}

/// The region count of every node above a bucket, from every bucket's.
void count_upper(Build& b, const std::vector<Bucket>& buckets) {
  for (const Bucket& k : buckets)
    for (int d = 0; d < k.key.level; ++d) b.upper_counts[ancestor(k.key, d)] += k.region();
}

/// Moves the records of `k`'s pieces (or of the indices they hold) to `out`, giving the pieces
/// back; the bytes written.
size_t take_pieces(const Build& b, Bucket& k, uint8_t* out) {
  const size_t rl = b.frame.record_length;
  size_t at = 0;
  for (RecordPiece& p : k.pieces) {
    if (b.is_direct) {
      size_t part = 0;
      for (size_t r = 0; r < p.size; r += 4, at += rl)
        copy_record(out + at, b.direct.record(get_le<uint32_t>(p.bytes.get() + r), rl, part), rl);
    } else {
      std::memcpy(out + at, p.bytes.get(), p.size);
      at += p.size;
    }
    p = RecordPiece();
  }
  return at;
}

/// Builds every bucket's subtree, the largest first, holding at most `budget` bytes of them.
bool build_buckets(Build& b, std::vector<Bucket>& buckets, Store* store, uint64_t budget) {
  std::vector<size_t> order(buckets.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t x, size_t y) { return buckets[x].records > buckets[y].records; });
  MemoryBudget memory(budget);
  std::atomic<size_t> next{0};
  run_threads(b.threads, [&](unsigned) {
    std::string error;
    // In memory the thread's arrays keep their size for the next (smaller) bucket; on disk they
    // are given back after each, as the budget counts them.
    Workspace work;
    std::vector<uint8_t>& records = work.records;
    for (size_t i; !b.cancelled() && (i = next++) < order.size();) {
      Bucket& k = buckets[order[i]];
      if (k.records == 0) continue;
      const uint64_t cost = k.records * build_cost(b.frame.record_length);
      memory.acquire(cost);
      records.resize(k.records * b.frame.record_length);
      bool ok = true;
      size_t at = take_pieces(b, k, records.data());
      if (store) {
        for (const Extent& e : k.extents) {
          if (!(ok = store->read(e, records.data() + at, &error))) break;
          at += e.bytes;
        }
        store->release(k.extents);
      }
      ok = ok ? build_subtree(b, k, work) : b.fail(error);
      if (store) work = Workspace();
      memory.release(cost);
      if (!ok) return;
    }
  });
  return !b.stop.load();
}

void set_stage(ConvertProgress* p, int stage, uint64_t total) {
  if (!p) return;
  p->stage = stage;
  p->done = 0;
  p->total = total;
}

}  // namespace
}  // namespace copc_build

bool build_copc_nodes(RecordSource& source, const OctreeCube& cube, const BuildOptions& options,
                      NodeSink& sink, std::string* error) {
  return build_copc_nodes(source, cube, options, BuildTuning{}, sink, error);
}

bool build_copc_nodes(RecordSource& source, const OctreeCube& cube, const BuildOptions& options,
                      const BuildTuning& tuning, NodeSink& sink, std::string* error) {
  using namespace copc_build;
  const RecordSpec& spec = source.spec();
  if (spec.record_length < 12 || !(cube.halfsize > 0.0)) {
    if (error) *error = "octree build: records shorter than X, Y, Z or an empty cube";
    return false;
  }
  Build b;
  b.frame = make_frame(cube, spec);
  b.tuning = tuning;
  b.tuning.leaf_points = std::max<uint64_t>(tuning.leaf_points, 1);
  b.sink = &sink;
  b.progress = options.progress;
  b.threads = options.threads ? options.threads : default_threads();
  // Declared counts beyond 2^52 (more than any disk) are taken as 2^52: the products below stay
  // in 64 bits.
  const uint64_t rl = spec.record_length, cost = build_cost(spec.record_length);
  const uint64_t n = std::min<uint64_t>(spec.points, uint64_t(1) << 52);
  const uint64_t memory =
      options.memory_bytes ? options.memory_bytes : std::numeric_limits<uint64_t>::max();
  // In memory when the records, their sort entries and the nodes' copies fit in half the budget.
  const bool in_memory = n <= memory / 2 / (cost + rl);
  std::unique_ptr<Store> store;
  int level = memory_level(n, b.threads);
  size_t buffer_bytes = 0;
  // On disk the budget goes to the subtrees being built (3/8), the bucket buffers while binning
  // (1/4) and the records of the nodes above the buckets (1/8); the rest is room for the
  // allocator's slack, the source's blocks and the sink.
  const uint64_t budget = in_memory ? memory : memory / 8 * 3;
  if (!in_memory) {
    store = Store::create(options.temp_dir, n * rl + n * rl / 32 + (16u << 20), error);
    if (!store) return false;
    level = disk_level(n * cost, budget, b.threads);
    buffer_bytes = size_t(memory / 4);
    b.store = store.get();
    b.upper_limit = memory / 8;
  }
  b.is_direct = in_memory && source.direct(&b.direct) && b.direct.count() <= 0xFFFFFFFFull;
  std::vector<Bucket> buckets;
  uint64_t binned = 0;
  {
    set_stage(b.progress, ConvertProgress::kBin, n);
    Binner binner(b.frame, CopcKey{}, level, store.get(), buffer_bytes);
    std::string e;
    if (bin_source(b, source, binner, &binned) && !binner.finish(&buckets, &e)) b.fail(e);
  }
  if (!b.stop && store) {
    const uint64_t largest = std::max(budget / b.threads, (b.tuning.leaf_points + 1) * cost);
    split_large_buckets(b, *store, buckets, largest, buffer_bytes);
  }
  if (!b.stop) {
    count_upper(b, buckets);
    set_stage(b.progress, ConvertProgress::kBuild, binned);
    if (build_buckets(b, buckets, store.get(), budget)) deliver_upper(b, budget);
  }
  if (b.stop) {
    if (error) *error = b.error;
    return false;
  }
  return true;
}

}  // namespace pr::io
