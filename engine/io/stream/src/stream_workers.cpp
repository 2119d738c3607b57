#include "stream_workers.h"

#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <unordered_set>

namespace pr {

namespace {

/// Nodes read at once at most, and their bytes.
constexpr size_t kBatchNodes = 16;
constexpr uint64_t kBatchBytes = 8ull << 20;

/// The range this worker thread read ahead, and the source it belongs to.
struct ReadAhead {
  const ByteSource* owner = nullptr;
  uint64_t offset = 0;
  std::vector<uint8_t> bytes;
};
thread_local ReadAhead tl_read_ahead;

class PrefetchingSource final : public ByteSource {
 public:
  explicit PrefetchingSource(std::unique_ptr<ByteSource> inner) : inner_(std::move(inner)) {}
  const std::string& name() const override { return inner_->name(); }
  uint64_t size() const override { return inner_->size(); }
  uint64_t bytes_read() const override { return inner_->bytes_read(); }
  bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
            const std::atomic<bool>* cancel) override {
    const ReadAhead& ra = tl_read_ahead;
    if (ra.owner == this && offset >= ra.offset && offset - ra.offset + size <= ra.bytes.size()) {
      const auto begin = ra.bytes.begin() + long(offset - ra.offset);
      out.assign(begin, begin + long(size));
      return true;
    }
    return inner_->read(offset, size, out, error, cancel);
  }
  /// Reads [offset, offset + size) for this thread's next reads.
  bool read_ahead(uint64_t offset, uint64_t size, const std::atomic<bool>* cancel) {
    ReadAhead& ra = tl_read_ahead;
    ra.owner = nullptr;
    std::string error;
    if (!inner_->read(offset, size, ra.bytes, &error, cancel) || ra.bytes.size() != size)
      return false;
    ra.owner = this;
    ra.offset = offset;
    return true;
  }

 private:
  std::unique_ptr<ByteSource> inner_;
};

}  // namespace

std::unique_ptr<ByteSource> prefetching_source(std::unique_ptr<ByteSource> inner) {
  return std::make_unique<PrefetchingSource>(std::move(inner));
}

bool prefetch_range(ByteSource& source, uint64_t offset, uint64_t size,
                    const std::atomic<bool>* cancel) {
  auto* prefetching = dynamic_cast<PrefetchingSource*>(&source);
  return prefetching && prefetching->read_ahead(offset, size, cancel);
}

void run_batch(std::vector<Request>& batch, const std::function<void(RequestResult&&)>& done) {
  if (batch.size() > 1) {
    const CopcEntry& last = batch.back().entry;
    const uint64_t begin = batch[0].entry.offset;
    const uint64_t end = last.offset + uint64_t(last.byte_size);
    // On failure each node reads its own bytes (and reports its own error).
    batch[0].file->read_ahead(begin, end - begin, batch[0].cancel.get());
  }
  for (Request& r : batch) done(run_request(r));
  tl_read_ahead = ReadAhead();
}

RequestResult run_request(Request& r) {
  RequestResult out;
  out.id = r.id;
  const std::atomic<bool>* cancel = r.cancel.get();
  switch (r.id.kind) {
    case RequestKind::kOpen: {
      out.file = open_tile(r.href, r.http, &out.error);
      out.ok = out.file != nullptr;
      break;
    }
    case RequestKind::kPage:
      out.ok = r.file->read_page(r.entry, out.entries, &out.warnings, &out.error, cancel);
      break;
    case RequestKind::kNode:
      out.cloud = std::make_shared<PointCloud>();
      out.ok = r.file->read_node(r.entry, r.origin, *out.cloud, &out.error, cancel);
      if (!out.ok) out.cloud.reset();
      break;
  }
  out.cancelled = !out.ok && cancel && cancel->load();
  return out;
}

StreamWorkers::StreamWorkers(unsigned threads) {
  threads_.reserve(threads);
  for (unsigned i = 0; i < threads; ++i) threads_.emplace_back([this] { loop(); });
}

StreamWorkers::~StreamWorkers() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
    queue_.clear();
    queued_ = 0;
    by_offset_.clear();
    for (auto& [id, flag] : running_) flag->store(true);
  }
  wake_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void StreamWorkers::schedule(std::vector<Request> wanted) {
  std::unordered_set<RequestId, RequestIdHash> keep;
  keep.reserve(wanted.size());
  for (const Request& r : wanted) keep.insert(r.id);
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto& [id, flag] : running_)
    if (!keep.count(id)) flag->store(true);
  std::erase_if(wanted, [&](const Request& r) { return running_.count(r.id) != 0; });
  std::reverse(wanted.begin(), wanted.end());
  queue_ = std::move(wanted);
  queued_ = queue_.size();
  by_offset_.clear();
  for (size_t i = 0; i < queue_.size(); ++i)
    if (queue_[i].id.kind == RequestKind::kNode && queue_[i].file->contiguous())
      by_offset_.emplace(OffsetKey{queue_[i].file.get(), queue_[i].entry.offset}, i);
  if (queued_) wake_.notify_all();
}

std::vector<RequestResult> StreamWorkers::take_results() {
  std::vector<RequestResult> out;
  std::lock_guard<std::mutex> lock(mutex_);
  out.swap(results_);
  return out;
}

size_t StreamWorkers::in_flight() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return queued_ + running_.size();
}

std::vector<Request> StreamWorkers::take_batch() {
  while (queue_.back().taken) queue_.pop_back();
  std::vector<Request> batch;
  batch.push_back(std::move(queue_.back()));
  queue_.pop_back();
  --queued_;
  Request& first = batch[0];
  if (first.id.kind == RequestKind::kNode && first.file->contiguous()) {
    by_offset_.erase(OffsetKey{first.file.get(), first.entry.offset});
    uint64_t next = first.entry.offset + uint64_t(first.entry.byte_size);
    uint64_t bytes = uint64_t(first.entry.byte_size);
    while (batch.size() < kBatchNodes && bytes < kBatchBytes) {
      const auto it = by_offset_.find(OffsetKey{batch[0].file.get(), next});
      if (it == by_offset_.end()) break;
      Request& q = queue_[it->second];
      by_offset_.erase(it);
      q.taken = true;
      --queued_;
      next += uint64_t(q.entry.byte_size);
      bytes += uint64_t(q.entry.byte_size);
      batch.push_back(q);
      q.file.reset();
    }
  }
  for (Request& r : batch) {
    if (!r.cancel) r.cancel = std::make_shared<std::atomic<bool>>(false);
    running_[r.id] = r.cancel;
  }
  return batch;
}

void StreamWorkers::loop() {
  // Decoding takes every core it is given: the frame's thread (selection, copies into the pool,
  // the upload, the render) goes first, so that frames keep their pace while nodes stream in.
  // (Linux: a thread's nice value is its own.)
  setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 5);
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || queued_ > 0; });
    if (stop_) return;
    std::vector<Request> batch = take_batch();
    lock.unlock();
    run_batch(batch, [this](RequestResult&& r) {
      std::lock_guard<std::mutex> done_lock(mutex_);
      running_.erase(r.id);
      results_.push_back(std::move(r));
    });
    lock.lock();
  }
}

}  // namespace pr
