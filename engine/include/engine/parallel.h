// Minimal data parallelism over index ranges with std::thread, and what the machine offers it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

namespace pr {

/// Number of worker threads to use when 0 is asked for: the hardware concurrency (at least 1).
unsigned default_threads();

/// This machine's physical memory in bytes; 0 when the system does not say.
uint64_t physical_memory();

/// Calls fn(begin, end) on disjoint chunks covering [0, n) from up to `threads` threads
/// (0 = default_threads()), in at most ceil(n / grain) chunks of nearly equal length, at most four
/// a thread, which the threads take in turn. Blocks until all are done. The threads are kept
/// between calls (one caller at a time; a concurrent caller starts threads of its own, and a call
/// from inside a chunk runs serially).
void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, unsigned threads = 0,
                  size_t grain = 4096);

}  // namespace pr
