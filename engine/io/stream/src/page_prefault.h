// Faulting in, on a thread of its own, the pages a growing array writes next (the streaming
// pool's arrays, reserved for their capacity and grown as nodes arrive), so that the frame's
// thread that grows them never waits for the kernel to find and zero fresh pages: a first write to
// 32 MB of fresh memory takes about 15 ms on a 2-core machine, 3 ms once its pages are there.
// madvise(MADV_POPULATE_WRITE) (Linux 5.14) touches no data: a range freed or reused meanwhile
// is merely faulted in or refused, so the ranges given may go stale without harm. Where the
// kernel lacks it, nothing is done (the growth then faults its pages itself).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace pr {

class PagePrefault {
 public:
  PagePrefault() = default;
  ~PagePrefault();
  PagePrefault(const PagePrefault&) = delete;
  PagePrefault& operator=(const PagePrefault&) = delete;

  /// Replaces the byte ranges still to fault in with `ranges` (address, length), taken in order;
  /// starts the thread on the first call.
  void want(std::vector<std::pair<const void*, size_t>> ranges);
  /// Bytes faulted in so far (for tests and measurements).
  uint64_t bytes_done() const;

 private:
  void run();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<std::pair<const void*, size_t>> ranges_;
  uint64_t generation_ = 0, done_ = 0;
  bool stop_ = false, unsupported_ = false;
  std::thread thread_;
};

}  // namespace pr
