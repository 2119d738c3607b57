// A bucket's subtree built in memory, top down over its records sorted in Morton order (a node's
// points, its children's and its grid cells' are then contiguous runs), and the nodes above the
// buckets, gathered from every bucket and handed over once all are built.
#include <algorithm>
#include <cstring>
#include <utility>

#include "copc_build.h"

namespace pr::io::copc_build {
namespace {

/// The 7-bit values spread to every third bit.
struct Spread7 {
  uint32_t t[128];
  constexpr Spread7() : t() {
    for (uint32_t v = 0; v < 128; ++v)
      for (uint32_t b = 0; b < 7; ++b) t[v] |= ((v >> b) & 1u) << (3 * b);
  }
};
constexpr Spread7 kSpread7;

/// Bits 0..20 of `v` spread to every third bit, seven bits a look-up.
inline uint64_t spread3(uint64_t v) {
  return uint64_t(kSpread7.t[v & 127u]) | uint64_t(kSpread7.t[(v >> 7) & 127u]) << 21 |
         uint64_t(kSpread7.t[(v >> 14) & 127u]) << 42;
}

/// The Morton key of the 21 bits an axis below the `common` top bits every entry shares: bit b
/// of axis a (b = 0..20, from q's bit b + 11 - common) is the key's bit 3b + a.
inline uint64_t morton_key(const Pos& p, int common) {
  const int up = common, down = 11;
  return spread3(uint64_t(uint32_t(p[0] << up) >> down)) |
         spread3(uint64_t(uint32_t(p[1] << up) >> down)) << 1 |
         spread3(uint64_t(uint32_t(p[2] << up) >> down)) << 2;
}

/// Sorts work.entries in Morton order, equal positions by their records' bytes: the order and so
/// every choice below depend on the records only. A radix sort on the top 33 of the 63 bits of
/// Morton key, then the runs of equal top bits by the whole key, the whole positions and the
/// bytes.
void sort_entries(Workspace& work, const uint8_t* records, size_t rl) {
  std::vector<Entry>& e = work.entries;
  std::vector<std::pair<uint64_t, uint32_t>>&a = work.keyed, &b = work.spare;
  const size_t n = e.size();
  a.resize(n);
  b.resize(n);
  for (size_t i = 0; i < n; ++i) a[i] = {e[i].key, uint32_t(i)};
  constexpr int kDigit = 11, kLow = 63 - 3 * kDigit;
  // The three digits' histograms in one pass over the keys.
  uint32_t count[3][size_t(1) << kDigit] = {};
  for (const auto& k : a) {
    ++count[0][(k.first >> kLow) & 2047u];
    ++count[1][(k.first >> (kLow + kDigit)) & 2047u];
    ++count[2][(k.first >> (kLow + 2 * kDigit)) & 2047u];
  }
  for (int d = 0; d < 3; ++d) {
    const int shift = kLow + d * kDigit;
    uint32_t sum = 0;
    for (uint32_t& c : count[d]) sum += std::exchange(c, sum);
    uint32_t* at = count[d];
    for (const auto& k : a) b[at[(k.first >> shift) & 2047u]++] = k;
    a.swap(b);
  }
  std::vector<Entry>& sorted = work.sorted;
  sorted.resize(n);
  for (size_t i = 0; i < n; ++i) sorted[i] = e[a[i].second];
  auto less = [&](const Entry& x, const Entry& y) {
    if (x.key != y.key) return x.key < y.key;
    if (morton_less(x.q, y.q)) return true;
    if (morton_less(y.q, x.q)) return false;
    return std::memcmp(records + x.index * rl, records + y.index * rl, rl) < 0;
  };
  for (size_t i = 0, j; i < n; i = j) {
    for (j = i + 1; j < n && (a[j].first >> kLow) == (a[i].first >> kLow);) ++j;
    if (j - i > 1) std::sort(sorted.begin() + long(i), sorted.begin() + long(j), less);
  }
  e.swap(sorted);
}

/// work.entries: those of `count` records in Morton order; they share the top `common` bits an
/// axis.
void make_entries(const Frame& f, const uint8_t* records, size_t count, int common,
                  Workspace& work) {
  std::vector<Entry>& e = work.entries;
  e.resize(count);
  for (size_t i = 0; i < count; ++i) {
    const Pos q = f.position(records + i * f.record_length);
    e[i] = Entry{q, uint32_t(i), morton_key(q, common)};
  }
  sort_entries(work, records, f.record_length);
}

inline bool same_cell(const Pos& a, const Pos& b, int shift) {
  return (a[0] >> shift) == (b[0] >> shift) && (a[1] >> shift) == (b[1] >> shift) &&
         (a[2] >> shift) == (b[2] >> shift);
}

inline int child_of(const Pos& p, int bit) {
  return int((p[0] >> bit) & 1u) | int(((p[1] >> bit) & 1u) << 1) | int(((p[2] >> bit) & 1u) << 2);
}

class Subtree {
 public:
  Subtree(Build& b, const Bucket& bucket, Workspace& work)
      : b_(b),
        bucket_(bucket),
        rec_(work.records.data()),
        rl_(b.frame.record_length),
        common_(bucket.key.level),
        e_(work.entries),
        taken_(work.taken),
        gather_(work.gather) {
    make_entries(b.frame, rec_, size_t(bucket.records), common_, work);
    taken_.assign(e_.size(), 0);
  }

  bool run() {
    if (e_.empty()) return true;
    return node(ancestor(bucket_.key, bucket_.start), 0, e_.size());
  }

 private:
  const uint8_t* record(size_t entry) const { return rec_ + size_t(e_[entry].index) * rl_; }

  /// Input records in the region of `key` (whose records here are entries [lo, hi)).
  uint64_t region(const CopcKey& key, size_t lo, size_t hi) const {
    if (key.level < bucket_.key.level) {
      const auto it = b_.upper_counts.find(key);
      return it != b_.upper_counts.end() ? it->second : hi - lo;
    }
    uint64_t n = hi - lo;
    for (const Pos& p : bucket_.removed) n += key_at(p, key.level) == key;
    return n;
  }

  /// One point a grid cell of `level`: the one nearest the cell's centre (ties: smaller bytes).
  /// True when some cell keeps points for the levels below.
  bool sample(int level, size_t lo, size_t hi, std::vector<uint32_t>& chosen) {
    // A cell's entries are a run: a prefix of the keys when they hold the cell's bits (level <=
    // 14 + common; m, the key's lowest axis bit inside the cell's), else of the positions.
    const int m = 14 - level + common_;
    if (m > 20) return sample_runs(level, lo, hi, chosen, [](size_t, size_t) { return true; });
    if (m >= 0)
      return sample_runs(level, lo, hi, chosen, [&](size_t a, size_t b) {
        return (e_[a].key >> (3 * m)) == (e_[b].key >> (3 * m));
      });
    return sample_runs(level, lo, hi, chosen, [&](size_t a, size_t b) {
      return same_cell(e_[a].q, e_[b].q, 25 - level);
    });
  }

  template <class SameCell>
  bool sample_runs(int level, size_t lo, size_t hi, std::vector<uint32_t>& chosen,
                   SameCell same_cell_as) {
    bool left = false;
    for (size_t i = lo, k; i < hi; i = k) {
      size_t best = hi, open = 0;
      uint64_t best_d = 0;
      for (k = i; k < hi && same_cell_as(i, k); ++k) {
        if (taken_[k]) continue;
        ++open;
        const uint64_t d = cell_distance(e_[k].q, level);
        if (best == hi || d < best_d ||
            (d == best_d && std::memcmp(record(k), record(best), rl_) < 0)) {
          best = k;
          best_d = d;
        }
      }
      if (best != hi) {
        taken_[best] = 1;
        chosen.push_back(uint32_t(best));
      }
      left |= open > 1;
    }
    return left;
  }

  /// The children of `key` (level `level`) over entries [lo, hi): the runs of equal child, found
  /// by binary search on the keys when they hold the child's bit.
  bool children(const CopcKey& key, size_t lo, size_t hi) {
    const int level = key.level, bit = 31 - level;
    const int c = 20 - level + common_;  // the key's axis bit of the split
    if (c > 20) return node(key.child(child_of(e_[lo].q, bit)), lo, hi);
    for (size_t i = lo, j; i < hi; i = j) {
      int child;
      if (c >= 0) {
        const uint64_t top = e_[i].key >> (3 * c);
        j = size_t(std::partition_point(e_.begin() + long(i), e_.begin() + long(hi),
                                        [&](const Entry& x) { return (x.key >> (3 * c)) <= top; }) -
                   e_.begin());
        child = int(top & 7u);
      } else {
        child = child_of(e_[i].q, bit);
        for (j = i + 1; j < hi && child_of(e_[j].q, bit) == child;) ++j;
      }
      if (!node(key.child(child), i, j)) return false;
    }
    return true;
  }

  bool emit(const CopcKey& key, const std::vector<uint32_t>& chosen) {
    gather_.resize(chosen.size() * rl_);
    for (size_t i = 0; i < chosen.size(); ++i)
      copy_record(&gather_[i * rl_], record(chosen[i]), rl_);
    if (key.level >= bucket_.key.level) return b_.deliver(key, gather_.data(), chosen.size());
    return b_.add_upper(key, gather_.data(), gather_.size());
  }

  /// Node `key` over entries [lo, hi): its points, then its children's (a child whose points
  /// were all taken above keeps none and has none below).
  bool node(const CopcKey& key, size_t lo, size_t hi) {
    if (b_.cancelled()) return false;
    const int level = key.level;
    std::vector<uint32_t> chosen;
    const bool leaf = level >= b_.frame.cap || region(key, lo, hi) <= b_.tuning.leaf_points;
    bool left = false;
    if (leaf) {
      for (size_t i = lo; i < hi; ++i)
        if (!taken_[i]) {
          taken_[i] = 1;
          chosen.push_back(uint32_t(i));
        }
    } else {
      left = sample(level, lo, hi, chosen);
    }
    if (!chosen.empty() && !emit(key, chosen)) return false;
    if (!left) return true;
    std::vector<uint32_t>().swap(chosen);
    return children(key, lo, hi);
  }

  Build& b_;
  const Bucket& bucket_;
  const uint8_t* rec_;
  size_t rl_;
  int common_;  // the top bits an axis every entry shares (the bucket's level)
  std::vector<Entry>& e_;
  std::vector<uint8_t>& taken_;
  std::vector<uint8_t>& gather_;
};

}  // namespace

bool build_subtree(Build& build, const Bucket& bucket, Workspace& work) {
  if (bucket.records > 0xFFFFFFFFull)
    return build.fail("octree build: a bucket of more than 2^32 points (too little --memory?)");
  Subtree s(build, bucket, work);
  return s.run();
}

namespace {

/// Takes the records gathered for `key` (from the store, then from memory).
bool take_upper(Build& build, const CopcKey& key, std::vector<uint8_t>* out, std::string* error) {
  std::vector<Extent> extents;
  {
    std::lock_guard<std::mutex> lock(build.upper_mutex);
    out->swap(build.upper_records[key]);
    extents.swap(build.upper_extents[key]);
  }
  const size_t held = out->size();
  uint64_t stored = 0;
  for (const Extent& x : extents) stored += x.bytes;
  out->resize(held + size_t(stored));
  for (const Extent& x : extents) {
    if (!build.store->read(x, out->data() + out->size() - stored, error)) return false;
    stored -= x.bytes;
  }
  if (build.store) build.store->release(extents);
  return true;
}

}  // namespace

bool deliver_upper(Build& build, uint64_t budget) {
  std::vector<std::pair<uint64_t, CopcKey>> keys;  // largest first
  for (const auto& [k, v] : build.upper_records) keys.emplace_back(v.size(), k);
  for (const auto& [k, v] : build.upper_extents) {
    uint64_t bytes = 0;
    for (const Extent& x : v) bytes += x.bytes;
    auto it = build.upper_records.find(k);
    if (it == build.upper_records.end())
      keys.emplace_back(bytes, k);
    else
      for (auto& [size, key] : keys)
        if (key == k) size += bytes;
  }
  std::stable_sort(keys.begin(), keys.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  const size_t rl = build.frame.record_length;
  MemoryBudget memory(budget);
  std::atomic<size_t> next{0};
  run_threads(build.threads, [&](unsigned) {
    std::string error;
    Workspace work;
    for (size_t i; !build.cancelled() && (i = next++) < keys.size();) {
      const auto& [bytes, key] = keys[i];
      if (bytes == 0) continue;
      const uint64_t cost = bytes / rl * build_cost(uint16_t(rl)) + bytes;
      memory.acquire(cost);
      std::vector<uint8_t> records;
      std::vector<uint8_t>& sorted = work.gather;
      bool ok = take_upper(build, key, &records, &error);
      if (ok) {
        const size_t n = records.size() / rl;
        make_entries(build.frame, records.data(), n, key.level, work);
        sorted.resize(records.size());
        for (size_t k = 0; k < n; ++k)
          copy_record(&sorted[k * rl], records.data() + size_t(work.entries[k].index) * rl, rl);
        std::vector<uint8_t>().swap(records);
        ok = build.deliver(key, sorted.data(), n);
      } else {
        build.fail(error);
      }
      if (build.store) work = Workspace();  // on disk the budget counts it for this node only
      memory.release(cost);
      if (!ok) return;
    }
  });
  return !build.stop.load();
}

}  // namespace pr::io::copc_build
