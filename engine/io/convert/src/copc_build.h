// The parts of the COPC octree build (build_copc_nodes, convert_records.h) shared by its sources:
// copc_build.cpp (the cube, binning, the order of the phases), copc_build_subtree.cpp (a bucket's
// subtree in memory, the nodes above the buckets), copc_build_disk.cpp (the temporary folder and
// its bucket file, the splitting of buckets too large for memory).
//
// The octree, whatever the buckets: positions are 32-bit fixed point over the cube on each axis
// (q = floor((world - cube min) / edge * 2^32)), so the node of level d holding a point is q >> (32
// - d) and its grid cell (128^3 a node) is q >> (25 - d). A node N of level d keeps every point
// reaching it when its region (the cube of N) holds at most `leaf_points` input records, or when d
// is the depth cap; otherwise it keeps, in each grid cell, the point reaching it nearest the cell's
// centre (ties: the smaller record bytes) and passes the others to its children. The result does
// not depend on the order of the records, the threads or the buckets: a bucket is a node region of
// level b built from level s (b <= s + 7), and every grid cell of a level >= s lies inside one
// bucket or holds it whole, so each cell's choice is made by one bucket; the region counts of the
// nodes above a bucket come from every bucket's count.
//
// In memory the buckets hold their records in pieces, or, for a direct source (LAS files needing no
// translation, RecordSource::direct), only their indices into the files' maps.
//
// Out of core: the records are binned into the buckets of one level (picked from the count and the
// budget) in one file of a fresh temporary folder. A bucket too large for a thread's share of the
// budget is split: read once for the choices of the levels it passes on its way down to the
// deepest node holding its records' box, once more into that node's children. The subtrees are
// built in parallel, largest first, within the budget; the records chosen for the nodes above the
// buckets are gathered (in memory, in the file past an eighth of the budget) and handed over last,
// each node sorted. Within a node records are in Morton order, equal positions by their bytes.
#pragma once

#include <array>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "convert_records.h"

namespace pr::io {

/// What a conversion leaves at the defaults (tests ask for small nodes).
struct BuildTuning {
  /// A node whose region holds at most this many input records keeps them all (a leaf).
  uint64_t leaf_points = 100000;
};

/// build_copc_nodes() with the given tuning.
bool build_copc_nodes(RecordSource& source, const OctreeCube& cube, const BuildOptions& options,
                      const BuildTuning& tuning, NodeSink& sink, std::string* error);

namespace copc_build {

using Pos = std::array<uint32_t, 3>;

/// The cube and the records' coordinates: where a record lies, in fixed point.
struct Frame {
  glm::dvec3 min{0.0};  ///< the cube's lowest corner
  double units = 0.0;   ///< 2^32 / edge
  glm::dvec3 scale{1.0}, offset{0.0};
  uint16_t record_length = 0;
  int cap = 0;  ///< depth cap: its nodes keep every point reaching them
  Pos position(const uint8_t* record) const {
    int32_t xyz[3];
    std::memcpy(xyz, record, sizeof(xyz));
    Pos p;
    for (int i = 0; i < 3; ++i) {
      const double world = double(xyz[i]) * scale[i] + offset[i];
      const double t = (world - min[i]) * units;
      // Points on the cube's far faces (or a rounding outside it) belong to the last cell.
      p[size_t(i)] = t <= 0.0 ? 0u : t >= 4294967295.0 ? 0xFFFFFFFFu : uint32_t(t);
    }
    return p;
  }
};

/// The frame of `cube` for records of `spec`; the depth cap is the level whose grid cells are no
/// larger than the finest scale (deeper levels could only peel duplicates), at most 24.
Frame make_frame(const OctreeCube& cube, const RecordSpec& spec);

/// The node of `level` holding position `p`.
inline CopcKey key_at(const Pos& p, int level) {
  if (level == 0) return CopcKey{};
  const int s = 32 - level;
  return CopcKey{level, int32_t(p[0] >> s), int32_t(p[1] >> s), int32_t(p[2] >> s)};
}

/// The ancestor of `k` at `level` (<= k.level).
inline CopcKey ancestor(const CopcKey& k, int level) {
  const int s = k.level - level;
  return CopcKey{level, k.x >> s, k.y >> s, k.z >> s};
}

/// Morton order (z, then y, then x at each bit, from the top): a node's points, and each of its
/// children's and grid cells', are contiguous.
inline bool morton_less(const Pos& a, const Pos& b) {
  // The axis whose difference has the highest bit decides; at equal bits z outranks y, y x.
  int axis = 2;
  uint32_t top = a[2] ^ b[2];
  for (int i = 1; i >= 0; --i) {
    const uint32_t d = a[size_t(i)] ^ b[size_t(i)];
    if (top < d && top < (top ^ d)) {
      axis = i;
      top = d;
    }
  }
  return a[size_t(axis)] < b[size_t(axis)];
}

/// Squared distance from `p` to the centre of its grid cell at `level` (<= 24), in fixed point.
inline uint64_t cell_distance(const Pos& p, int level) {
  const int shift = 25 - level;
  const uint32_t mask = (uint32_t(1) << shift) - 1u;
  const int64_t centre = int64_t(1) << (shift - 1);
  uint64_t sum = 0;
  for (uint32_t v : p) {
    const int64_t d = int64_t(v & mask) - centre;
    sum += uint64_t(d * d);
  }
  return sum;
}

/// Bytes a record costs while its bucket's subtree is built: the record, its entry (position and
/// index, 16), the radix sort's two keyed copies (32) and its taken flag.
inline uint64_t build_cost(uint16_t record_length) {
  return uint64_t(record_length) + 49;
}

struct KeyHash {
  size_t operator()(const CopcKey& k) const { return size_t(k.hash()); }
};

/// Where a run of a bucket's records lies in the bucket file.
struct Extent {
  uint64_t offset = 0, bytes = 0;
};

/// Records of a bucket in memory: a block of `capacity` bytes, its first `size` written.
struct RecordPiece {
  std::unique_ptr<uint8_t[]> bytes;
  size_t size = 0, capacity = 0;
};

/// A node region of the cube and the records binned into it.
struct Bucket {
  CopcKey key;
  int start = 0;         ///< levels above start are already chosen for this region
  uint64_t records = 0;  ///< records held (in `data` or in `extents`)
  /// Positions of the region's records taken by levels above `start` (when a bucket too large is
  /// split): the region's input count is records + removed.size().
  std::vector<Pos> removed;
  Pos lo{0xFFFFFFFFu, 0xFFFFFFFFu, 0xFFFFFFFFu}, hi{0, 0, 0};  ///< box of the records held
  /// The records, when in memory: pieces filled in turn (a bucket never grows by copying); the
  /// records' indices instead for a direct source.
  std::vector<RecordPiece> pieces;
  std::vector<Extent> extents;                                 ///< the records, when on disk
  uint64_t region() const { return records + removed.size(); }
};

/// A fresh folder inside a temporary directory holding one file of bucket runs; the destructor
/// removes it.
class Store {
 public:
  /// Null with a one-line error when `dir` has no room for `need` bytes or cannot be written.
  static std::unique_ptr<Store> create(const std::string& dir, uint64_t need, std::string* error);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;
  /// Thread-safe: writes `bytes` at the file's end, returning where.
  bool append(const uint8_t* data, size_t bytes, Extent* where, std::string* error);
  bool read(const Extent& e, uint8_t* out, std::string* error) const;
  /// Gives the disk space of `extents` back (their records were read for the last time).
  void release(const std::vector<Extent>& extents);
  const std::string& folder() const { return folder_; }

 private:
  Store() = default;
  std::string folder_, path_;
  int fd_ = -1;
  std::atomic<uint64_t> end_{0};
};

/// Bins records into the 8^depth regions `depth` levels below `parent`, in memory or (with a
/// store) through a buffer a region, written to the store at 1 MiB, or at 16 KiB while the buffers
/// together hold more than `buffer_bytes`. add() is thread-safe.
class Binner {
 public:
  Binner(const Frame& frame, const CopcKey& parent, int depth, Store* store, size_t buffer_bytes);
  ~Binner();
  bool add(const uint8_t* records, size_t count, std::string* error);
  /// In memory, for a direct source: bins the indices first ... first + count - 1 (32-bit) of
  /// `records` (record `first` first) into the buckets' pieces, not the records.
  bool add_indices(const uint8_t* records, size_t count, uint64_t first, std::string* error);
  /// Flushes the buffers; the buckets that received records, in Morton order.
  bool finish(std::vector<Bucket>* out, std::string* error);

 private:
  struct Slot;
  bool add(const uint8_t* records, size_t count, uint64_t first, std::string* error);
  bool flush(Slot& slot, std::string* error);
  const Frame& frame_;
  CopcKey parent_;
  int depth_;
  Store* store_;
  size_t buffer_bytes_;
  std::atomic<uint64_t> buffered_{0};
  std::vector<std::unique_ptr<Slot>> slots_;
};

/// Bytes a thread may hold for the subtrees being built; a bucket larger than the whole budget
/// waits until it is alone.
class MemoryBudget {
 public:
  explicit MemoryBudget(uint64_t total) : total_(total) {}
  void acquire(uint64_t bytes);
  void release(uint64_t bytes);

 private:
  std::mutex m_;
  std::condition_variable cv_;
  uint64_t total_, used_ = 0;
};

/// What every part of one build shares.
struct Build {
  /// A direct source's records (RecordSource::direct), when the build is in memory: the buckets'
  /// pieces then hold 32-bit indices into them.
  bool is_direct = false;
  DirectRecords direct;
  Frame frame;
  BuildTuning tuning;
  NodeSink* sink = nullptr;
  ConvertProgress* progress = nullptr;
  unsigned threads = 1;
  std::atomic<bool> stop{false};
  std::mutex error_mutex;
  std::string error;
  /// Input records in the region of each node above some bucket.
  std::unordered_map<CopcKey, uint64_t, KeyHash> upper_counts;
  /// The records the buckets choose for the nodes above them, gathered until every bucket is
  /// done: in memory, and in the store (when there is one) past `upper_limit` bytes.
  std::mutex upper_mutex;
  std::unordered_map<CopcKey, std::vector<uint8_t>, KeyHash> upper_records;
  std::unordered_map<CopcKey, std::vector<Extent>, KeyHash> upper_extents;
  uint64_t upper_held = 0;
  uint64_t upper_limit = ~uint64_t(0);
  Store* store = nullptr;

  /// Records the first failure and stops the build; false, for `return fail(...)`.
  bool fail(const std::string& message);
  bool cancelled();
  /// Adds records chosen for `key`, a node above some bucket (thread-safe).
  bool add_upper(const CopcKey& key, const uint8_t* records, size_t bytes);
  /// Hands a node's records to the sink, counting them as built.
  bool deliver(const CopcKey& key, const uint8_t* records, uint64_t count);
};

/// A record while a subtree is built: its position, its index in the bucket, and its Morton key
/// below the bits the bucket's records share (copc_build_subtree.cpp).
struct Entry {
  Pos q;
  uint32_t index;
  uint64_t key;
};

/// The arrays of a thread's subtree builds, kept from one bucket to the next (the largest comes
/// first), so that a bucket's build does not start on fresh pages.
struct Workspace {
  std::vector<uint8_t> records;  ///< the bucket's records
  std::vector<Entry> entries, sorted;
  std::vector<std::pair<uint64_t, uint32_t>> keyed, spare;
  std::vector<uint8_t> taken, gather;
};

/// Builds the subtree of `bucket` (its records in work.records) from level bucket.start: nodes
/// inside the bucket go to the sink, the points chosen for nodes above it to build.upper_records.
bool build_subtree(Build& build, const Bucket& bucket, Workspace& work);

/// Sorts and hands the nodes above the buckets to the sink, `threads` at once, holding at most
/// `budget` bytes of them.
bool deliver_upper(Build& build, uint64_t budget);

/// Splits the buckets whose records exceed `max_bytes` into their eight children until each fits
/// (or lies at the depth cap), as build_subtree needs them.
bool split_large_buckets(Build& build, Store& store, std::vector<Bucket>& buckets,
                         uint64_t max_bytes, size_t buffer_bytes);

/// Runs fn(thread index) on `threads` threads (the caller's among them) and waits.
void run_threads(unsigned threads, const std::function<void(unsigned)>& fn);

}  // namespace copc_build
}  // namespace pr::io
