// The octree build's temporary folder (one file of bucket runs, its space given back as buckets
// are read) and the splitting of buckets too large for memory.
#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

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

/// The record of `bucket` nearest the centre of its grid cell at level bucket.start (the bucket is
/// that whole cell), ties by the smaller bytes: what that level's node keeps from the bucket.
bool find_winner(Build& b, Store& store, const Bucket& bucket, std::vector<uint8_t>* winner,
                 std::string* error) {
  const size_t rl = b.frame.record_length;
  std::vector<uint8_t> buf;
  uint64_t best_d = 0;
  for (const Extent& e : bucket.extents) {
    buf.resize(size_t(e.bytes));
    if (!store.read(e, buf.data(), error)) return false;
    for (size_t at = 0; at < buf.size(); at += rl) {
      const uint64_t d = cell_distance(b.frame.position(&buf[at]), bucket.start);
      if (winner->empty() || d < best_d ||
          (d == best_d && std::memcmp(&buf[at], winner->data(), rl) < 0)) {
        winner->assign(buf.begin() + long(at), buf.begin() + long(at + rl));
        best_d = d;
      }
    }
  }
  return true;
}

/// Bins the records of `bucket` (less `winner`, once, when not empty) into its eight children.
bool bin_children(Build& b, Store& store, const Bucket& bucket, const std::vector<uint8_t>& winner,
                  size_t buffer_bytes, std::vector<Bucket>* children, std::string* error) {
  const size_t rl = b.frame.record_length;
  Binner binner(b.frame, bucket.key, 1, &store, buffer_bytes);
  bool skip = !winner.empty();
  std::vector<uint8_t> buf;
  for (const Extent& e : bucket.extents) {
    if (b.cancelled()) return false;
    buf.resize(size_t(e.bytes));
    if (!store.read(e, buf.data(), error)) return false;
    size_t n = buf.size() / rl, from = 0;
    for (size_t i = 0; skip && i < n; ++i)
      if (std::memcmp(&buf[i * rl], winner.data(), rl) == 0) {
        if (!binner.add(buf.data(), i, error)) return false;
        from = i + 1;
        skip = false;
      }
    if (!binner.add(buf.data() + from * rl, n - from, error)) return false;
  }
  return binner.finish(children, error);
}

/// Splits `bucket` into its children (with the records they hold or the removed positions that lie
/// in them). A bucket as deep as start + 7 is one grid cell of level start: that level's choice
/// (one record) is made here and the children start one level lower.
bool split(Build& b, Store& store, Bucket& bucket, size_t buffer_bytes, std::vector<Bucket>* out) {
  std::string error;
  std::vector<uint8_t> winner;
  const bool choose = bucket.key.level >= bucket.start + 7;
  if (choose && !find_winner(b, store, bucket, &winner, &error)) return b.fail(error);
  std::vector<Bucket> children;
  if (!bin_children(b, store, bucket, winner, buffer_bytes, &children, &error))
    return error.empty() ? false : b.fail(error);
  store.release(bucket.extents);
  std::vector<Pos> removed = bucket.removed;
  if (choose) {
    removed.push_back(b.frame.position(winner.data()));
    if (!b.add_upper(ancestor(bucket.key, bucket.start), winner.data(), winner.size()))
      return false;
  }
  for (int c = 0; c < 8; ++c) {
    const CopcKey key = bucket.key.child(c);
    Bucket k;
    for (Bucket& h : children)
      if (h.key == key) k = std::move(h);
    k.key = key;
    k.start = choose ? bucket.start + 1 : bucket.start;
    for (const Pos& p : removed)
      if (key_at(p, key.level) == key) k.removed.push_back(p);
    if (k.region() > 0) out->push_back(std::move(k));
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
