#include "engine/parallel.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

namespace pr {

unsigned default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

uint64_t physical_memory() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? uint64_t(pages) * uint64_t(page) : 0;
}

namespace {

/// Chunk c of [0, n) split into `chunks` nearly equal pieces.
inline void chunk_range(size_t n, size_t chunks, size_t c, size_t& begin, size_t& end) {
  const size_t per = n / chunks, extra = n % chunks;
  begin = c * per + std::min(c, extra);
  end = begin + per + (c < extra ? 1 : 0);
}

/// Set on the pool's own threads: a parallel_for called from inside a chunk runs serially there
/// (its caller already occupies a worker; waiting for the others could deadlock).
thread_local bool t_in_pool = false;

/// A short wait in a spin loop.
inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#else
  std::this_thread::yield();
#endif
}

/// Worker threads kept between parallel_for calls. Starting and joining std::threads on every call
/// cost tens of microseconds, and the CPU renderer makes several calls a frame. One call uses the
/// pool at a time (`busy_`); a concurrent caller (a loader thread while the viewer draws) starts
/// threads of its own as before. A call is cut into up to four pieces a thread, which the caller
/// and the workers take in turn, so a thread that the system runs late (a shared machine, another
/// process on its core) holds up a piece, not a quarter of the work. Workers spin for a while
/// after a call, since the next one usually follows within microseconds (the renderer's passes),
/// then sleep.
class Pool {
 public:
  ~Pool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
      generation_atomic_.store(++generation_, std::memory_order_release);
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }

  /// False when another call holds the pool.
  bool try_run(size_t n, size_t pieces, size_t threads,
               const std::function<void(size_t, size_t)>& fn) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    while (workers_.size() + 1 < threads) {
      const size_t id = workers_.size();
      workers_.emplace_back([this, id] { work(id); });
    }
    {
      std::unique_lock<std::mutex> lk(m_);
      // A worker that woke late for the last call may still be in it (taking no piece, since
      // all were taken); its counter must not be reset under it.
      done_cv_.wait(lk, [&] { return inside_ == 0; });
      fn_ = &fn;
      n_ = n;
      pieces_ = pieces;
      helpers_ = threads - 1;
      next_.store(0, std::memory_order_relaxed);
      pending_.store(pieces, std::memory_order_relaxed);
      generation_atomic_.store(++generation_, std::memory_order_release);
    }
    cv_.notify_all();
    t_in_pool = true;  // nested calls from the caller's own pieces run serially too
    take_pieces(fn, n, pieces);
    t_in_pool = false;
    // The workers' last pieces: spin (they are short), then block.
    for (int spin = 0; pending_.load(std::memory_order_acquire) != 0; ++spin) {
      if (spin < (1 << 16)) {
        cpu_relax();
        continue;
      }
      std::unique_lock<std::mutex> lk(m_);
      done_cv_.wait(lk, [&] { return pending_.load(std::memory_order_acquire) == 0; });
    }
    return true;
  }

 private:
  void take_pieces(const std::function<void(size_t, size_t)>& fn, size_t n, size_t pieces) {
    for (size_t c; (c = next_.fetch_add(1, std::memory_order_relaxed)) < pieces;) {
      size_t b, e;
      chunk_range(n, pieces, c, b, e);
      fn(b, e);
      if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
        std::lock_guard<std::mutex> lk(m_);  // the caller may be about to wait
        done_cv_.notify_all();
      }
    }
  }

  void work(size_t id) {
    t_in_pool = true;
    uint64_t seen = 0;
    for (;;) {
      // Spin for a while on the generation before sleeping on the condition variable.
      const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(kSpinUs);
      for (int i = 0; generation_atomic_.load(std::memory_order_acquire) == seen; ++i) {
        cpu_relax();
        if ((i & 255) == 255 && std::chrono::steady_clock::now() >= until) break;
      }
      const std::function<void(size_t, size_t)>* fn;
      size_t n, pieces;
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || generation_ != seen; });
        if (stop_) return;
        seen = generation_;
        if (id >= helpers_) continue;  // this call needs fewer threads
        fn = fn_;
        n = n_;
        pieces = pieces_;
        ++inside_;
      }
      take_pieces(*fn, n, pieces);
      {
        std::lock_guard<std::mutex> lk(m_);
        if (--inside_ == 0) done_cv_.notify_all();
      }
    }
  }

  static constexpr int kSpinUs = 500;
  std::mutex busy_;
  std::mutex m_;
  std::condition_variable cv_, done_cv_;
  std::vector<std::thread> workers_;
  const std::function<void(size_t, size_t)>* fn_ = nullptr;
  size_t n_ = 0, pieces_ = 0, helpers_ = 0, inside_ = 0;
  std::atomic<size_t> next_{0}, pending_{0};
  uint64_t generation_ = 0;
  std::atomic<uint64_t> generation_atomic_{0};
  bool stop_ = false;
};

Pool& pool() {
  static Pool p;
  return p;
}

}  // namespace

void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, unsigned threads,
                  size_t grain) {
  if (n == 0) return;
  if (threads == 0) threads = default_threads();
  grain = std::max<size_t>(grain, 1);
  const size_t max_chunks = (n + grain - 1) / grain;
  const size_t chunks = std::min<size_t>(threads, max_chunks);
  if (chunks <= 1 || t_in_pool) {
    fn(0, n);
    return;
  }
  // Up to four pieces a thread on the kept workers (none shorter than the grain).
  const size_t pieces = std::min<size_t>(max_chunks, size_t(threads) * 4);
  if (pool().try_run(n, pieces, chunks, fn)) return;
  // The pool is busy with another caller's work: threads of this call's own.
  std::vector<std::thread> own;
  own.reserve(chunks - 1);
  for (size_t c = 0; c + 1 < chunks; ++c) {
    size_t b, e;
    chunk_range(n, chunks, c, b, e);
    own.emplace_back(fn, b, e);
  }
  size_t b, e;
  chunk_range(n, chunks, chunks - 1, b, e);
  fn(b, e);
  for (auto& t : own) t.join();
}

}  // namespace pr
