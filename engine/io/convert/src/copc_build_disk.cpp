// The octree build's temporary folder (one file of bucket runs, its space given back as buckets
// are read) and the splitting of buckets too large for memory.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "copc_build.h"

namespace pr::io::copc_build {

std::unique_ptr<Store> Store::create(const std::string& dir, uint64_t need, std::string* error) {
  std::error_code ec;
  const std::string base = dir.empty() ? std::filesystem::temp_directory_path(ec).string() : dir;
  std::string name = base + "/pointraster-octree-XXXXXX";
  if (!mkdtemp(name.data())) {
    if (error) *error = base + ": cannot make a temporary folder: " + std::strerror(errno);
    return nullptr;
  }
  std::unique_ptr<Store> s(new Store());
  s->folder_ = name;  // removed by the destructor from here on
  struct statvfs sv {};
  if (statvfs(name.c_str(), &sv) == 0) {
    const uint64_t free_bytes = uint64_t(sv.f_bavail) * uint64_t(sv.f_frsize);
    if (free_bytes < need) {
      if (error)
        *error = base + ": not enough free disk for the temporary buckets (" +
                 std::to_string(need >> 20) + " MiB needed, " + std::to_string(free_bytes >> 20) +
                 " MiB free; --temp picks another folder)";
      return nullptr;
    }
  }
  s->path_ = name + "/buckets.bin";
  s->fd_ = ::open(s->path_.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (s->fd_ < 0) {
    if (error) *error = s->path_ + ": cannot create: " + std::strerror(errno);
    return nullptr;
  }
  return s;
}

Store::~Store() {
  if (fd_ >= 0) ::close(fd_);
  std::error_code ec;
  if (!folder_.empty()) std::filesystem::remove_all(folder_, ec);
}

bool Store::append(const uint8_t* data, size_t bytes, Extent* where, std::string* error) {
  const uint64_t at = end_.fetch_add(bytes);
  for (size_t done = 0; done < bytes;) {
    const ssize_t n = ::pwrite(fd_, data + done, bytes - done, off_t(at + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (error)
        *error = path_ +
                 ": cannot write the temporary buckets: " + std::strerror(n < 0 ? errno : ENOSPC);
      return false;
    }
    done += size_t(n);
  }
  *where = Extent{at, bytes};
  return true;
}

bool Store::read(const Extent& e, uint8_t* out, std::string* error) const {
  for (uint64_t done = 0; done < e.bytes;) {
    const ssize_t n = ::pread(fd_, out + done, size_t(e.bytes - done), off_t(e.offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (error)
        *error = path_ + ": cannot read the temporary buckets: " +
                 (n < 0 ? std::strerror(errno) : "file shorter than written");
      return false;
    }
    done += uint64_t(n);
  }
  return true;
}

void Store::release(const std::vector<Extent>& extents) {
  // Punching holes keeps the file's disk use near the records not yet built; where the file
  // system cannot, the space comes back when the folder is removed.
  for (const Extent& e : extents)
    (void)::fallocate(fd_, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, off_t(e.offset),
                      off_t(e.bytes));
}

namespace {

/// A record of a bucket file: where it lies (its identity), its distance for one level's choice
/// and its bytes (the tie).
struct Candidate {
  uint64_t offset = 0, distance = 0;
  std::vector<uint8_t> bytes;
};

/// How a split descends from `bucket` to the deepest node holding every record (its box): a node
/// of level j at start s is one grid cell of level s when j == s + 7, and passing it makes that
/// level's choice (one record, nearest the cell's centre), appended to `choose`. Returns the node
/// whose children get the records, or (`whole`, its start reached the depth cap) the node that
/// gets them as one bucket.
CopcKey plan(const Build& b, const Bucket& bucket, std::vector<int>* choose, bool* whole) {
  int common = 32;
  for (size_t a = 0; a < 3; ++a) {
    const uint32_t d = bucket.lo[a] ^ bucket.hi[a];
    if (d) common = std::min(common, __builtin_clz(d));
  }
  const int last = std::max(bucket.key.level, std::min(common, 31));
  int start = bucket.start, j = bucket.key.level;
  *whole = false;
  for (; j <= last; ++j) {
    if (j != start + 7) continue;
    if (start >= b.frame.cap) {
      *whole = true;
      break;
    }
    choose->push_back(start++);
  }
  return key_at(bucket.lo, std::min(j, last));
}

/// The records the levels of `choose` keep from `bucket`: for level i, the best (nearest its
/// cell's centre, then smaller bytes) of the records the levels before it left, found among its
/// best i + 1 in one pass.
bool choose_records(Build& b, Store& store, const Bucket& bucket, const std::vector<int>& choose,
                    std::vector<Candidate>* chosen, std::string* error) {
  const size_t rl = b.frame.record_length, m = choose.size();
  auto better = [&](const Candidate& x, const Candidate& y) {
    if (x.distance != y.distance) return x.distance < y.distance;
    return std::memcmp(x.bytes.data(), y.bytes.data(), rl) < 0;
  };
  std::vector<std::vector<Candidate>> best(m);
  std::vector<uint8_t> buf;
  Candidate c;
  for (const Extent& e : bucket.extents) {
    if (b.cancelled()) return false;
    buf.resize(size_t(e.bytes));
    if (!store.read(e, buf.data(), error)) return false;
    for (size_t at = 0; at < buf.size(); at += rl) {
      const Pos p = b.frame.position(&buf[at]);
      c.offset = e.offset + at;
      c.bytes.assign(buf.begin() + long(at), buf.begin() + long(at + rl));
      for (size_t i = 0; i < m; ++i) {
        c.distance = cell_distance(p, choose[i]);
        std::vector<Candidate>& v = best[i];
        if (v.size() > i && !better(c, v.back())) continue;
        v.insert(std::upper_bound(v.begin(), v.end(), c, better), c);
        if (v.size() > i + 1) v.pop_back();
      }
    }
  }
  for (size_t i = 0; i < m; ++i)
    for (const Candidate& x : best[i]) {
      bool taken = false;
      for (const Candidate& y : *chosen) taken |= y.offset == x.offset;
      if (!taken) {
        chosen->push_back(x);
        break;
      }
    }
  return chosen->size() == m || b.fail("octree build: a bucket shorter than its levels");
}

/// Bins the records of `bucket`, less those at the sorted offsets `skip`, `depth` (0 or 1) levels
/// below `node`.
bool bin_records(Build& b, Store& store, const Bucket& bucket, const CopcKey& node, int depth,
                 const std::vector<uint64_t>& skip, size_t buffer_bytes, std::vector<Bucket>* out,
                 std::string* error) {
  const size_t rl = b.frame.record_length;
  Binner binner(b.frame, node, depth, &store, buffer_bytes);
  std::vector<uint8_t> buf;
  for (const Extent& e : bucket.extents) {
    if (b.cancelled()) return false;
    buf.resize(size_t(e.bytes));
    if (!store.read(e, buf.data(), error)) return false;
    size_t from = 0;
    auto it = std::lower_bound(skip.begin(), skip.end(), e.offset);
    for (; it != skip.end() && *it < e.offset + e.bytes; ++it) {
      const size_t at = size_t(*it - e.offset);
      if (!binner.add(buf.data() + from, (at - from) / rl, error)) return false;
      from = at + rl;
    }
    if (!binner.add(buf.data() + from, (buf.size() - from) / rl, error)) return false;
  }
  return binner.finish(out, error);
}

/// Splits `bucket` down to the deepest node holding its records (see plan()): the choices of the
/// levels passed go to their nodes above, the records to that node's children (or to the node
/// whole, at the depth cap), with the removed positions that lie in them.
bool split(Build& b, Store& store, Bucket& bucket, size_t buffer_bytes, std::vector<Bucket>* out) {
  std::string error;
  std::vector<int> levels;
  bool whole = false;
  const CopcKey node = plan(b, bucket, &levels, &whole);
  std::vector<Candidate> chosen;
  if (!levels.empty() && !choose_records(b, store, bucket, levels, &chosen, &error))
    return error.empty() ? false : b.fail(error);
  std::vector<uint64_t> skip;
  std::vector<Pos> removed = bucket.removed;
  for (size_t i = 0; i < chosen.size(); ++i) {
    skip.push_back(chosen[i].offset);
    removed.push_back(b.frame.position(chosen[i].bytes.data()));
    if (!b.add_upper(ancestor(node, levels[i]), chosen[i].bytes.data(), b.frame.record_length))
      return false;
  }
  std::sort(skip.begin(), skip.end());
  std::vector<Bucket> held;
  const int depth = whole ? 0 : 1;
  if (!bin_records(b, store, bucket, node, depth, skip, buffer_bytes, &held, &error))
    return error.empty() ? false : b.fail(error);
  store.release(bucket.extents);
  const int start = bucket.start + int(levels.size());
  // The children that hold records, then those that hold only removed positions.
  const int level = whole ? node.level : node.level + 1;
  for (const Pos& p : removed) {
    const CopcKey key = key_at(p, level);
    bool known = false;
    for (const Bucket& h : held) known |= h.key == key;
    if (!known) {
      held.emplace_back();
      held.back().key = key;
    }
  }
  for (Bucket& k : held) {
    k.start = start;
    for (const Pos& p : removed)
      if (key_at(p, level) == k.key) k.removed.push_back(p);
    out->push_back(std::move(k));
  }
  return true;
}

}  // namespace

bool split_large_buckets(Build& b, Store& store, std::vector<Bucket>& buckets, uint64_t max_bytes,
                         size_t buffer_bytes) {
  const uint64_t cost = build_cost(b.frame.record_length);
  std::vector<Bucket> work = std::move(buckets);
  buckets.clear();
  // In rounds: the buckets still too large are split on every thread, their children looked at
  // in the next round.
  while (!work.empty() && !b.cancelled()) {
    std::vector<Bucket> large, next;
    for (Bucket& k : work) {
      // At the depth cap a region keeps every point in one node: it is built whole.
      const bool fits = k.records * cost <= max_bytes || k.start >= b.frame.cap;
      (fits ? buckets : large).push_back(std::move(k));
    }
    std::mutex m;
    std::atomic<size_t> at{0};
    run_threads(std::min<unsigned>(b.threads, unsigned(large.size())), [&](unsigned) {
      for (size_t i; !b.cancelled() && (i = at++) < large.size();) {
        std::vector<Bucket> children;
        if (!split(b, store, large[i], buffer_bytes, &children)) return;
        std::lock_guard<std::mutex> lock(m);
        for (Bucket& c : children) next.push_back(std::move(c));
      }
    });
    work = std::move(next);
  }
  return !b.stop.load();
}

}  // namespace pr::io::copc_build
