#include "page_prefault.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace pr {

PagePrefault::~PagePrefault() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void PagePrefault::want(std::vector<std::pair<const void*, size_t>> ranges) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (unsupported_) return;
    ranges_ = std::move(ranges);
    ++generation_;
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
  }
  wake_.notify_all();
}

uint64_t PagePrefault::bytes_done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return done_;
}

void PagePrefault::run() {
  // Below the frame's thread, as the streaming workers are (Linux: a thread's nice value is its
  // own).
  setpriority(PRIO_PROCESS, id_t(syscall(SYS_gettid)), 5);
  const size_t page = size_t(sysconf(_SC_PAGESIZE));
  constexpr size_t kStep = size_t{2} << 20;  // between steps a newer request is taken up
  std::unique_lock<std::mutex> lock(mutex_);
  while (true) {
    wake_.wait(lock, [&] { return stop_ || !ranges_.empty(); });
    if (stop_) return;
    const uint64_t gen = generation_;
    std::vector<std::pair<const void*, size_t>> ranges;
    ranges.swap(ranges_);
    lock.unlock();
    bool unsupported = false;
    uint64_t done = 0;
    for (const auto& [addr, len] : ranges) {
      // Whole pages: the first one may hold the array's points in use (already there).
      const uintptr_t b = reinterpret_cast<uintptr_t>(addr) & ~uintptr_t(page - 1);
      const uintptr_t e = reinterpret_cast<uintptr_t>(addr) + len;
      for (uintptr_t at = b; at < e && !unsupported; at += kStep) {
        const size_t n = std::min<size_t>(kStep, e - at);
#ifdef MADV_POPULATE_WRITE
        if (madvise(reinterpret_cast<void*>(at), n, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
          unsupported = true;  // a kernel without it (a stale range fails with ENOMEM or EFAULT)
#else
        unsupported = true;
#endif
        done += n;
        std::lock_guard<std::mutex> check(mutex_);
        if (stop_ || generation_ != gen) break;
      }
      std::lock_guard<std::mutex> check(mutex_);
      if (stop_ || generation_ != gen || unsupported) break;
    }
    lock.lock();
    done_ += done;
    if (unsupported) {
      unsupported_ = true;
      ranges_.clear();
    }
  }
}

}  // namespace pr
