#include "engine/parallel.h"

#include <algorithm>
#include <thread>
#include <vector>

namespace pr {

unsigned default_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

void parallel_for(size_t n, const std::function<void(size_t, size_t)>& fn, unsigned threads,
                  size_t grain) {
  if (n == 0) return;
  if (threads == 0) threads = default_threads();
  grain = std::max<size_t>(grain, 1);
  const size_t max_chunks = (n + grain - 1) / grain;
  const size_t chunks = std::min<size_t>(threads, max_chunks);
  if (chunks <= 1) {
    fn(0, n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(chunks - 1);
  const size_t per = n / chunks, extra = n % chunks;
  size_t begin = 0;
  for (size_t c = 0; c < chunks; ++c) {
    const size_t end = begin + per + (c < extra ? 1 : 0);
    if (c + 1 == chunks) {
      fn(begin, end);  // the calling thread takes the last chunk
    } else {
      pool.emplace_back(fn, begin, end);
    }
    begin = end;
  }
  for (auto& t : pool) t.join();
}

}  // namespace pr
