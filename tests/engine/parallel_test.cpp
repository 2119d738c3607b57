// parallel_for on its kept worker threads: every index once, in at most ceil(n / grain) chunks,
// called back to back, nested, and from two threads at once.
#include "engine/parallel.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <vector>

namespace pr {
namespace {

TEST(Parallel, EveryIndexOnceInAtMostOneChunkAGrain) {
  for (size_t n : {size_t{0}, size_t{1}, size_t{2}, size_t{7}, size_t{100}, size_t{10007}})
    for (unsigned threads : {1u, 2u, 3u, 8u, 16u})
      for (size_t grain : {size_t{1}, size_t{3}, size_t{4096}}) {
        std::vector<std::atomic<int>> hits(n);
        std::mutex m;
        std::vector<std::pair<size_t, size_t>> chunks;
        parallel_for(
            n,
            [&](size_t b, size_t e) {
              for (size_t i = b; i < e; ++i) hits[i].fetch_add(1);
              std::lock_guard<std::mutex> lk(m);
              chunks.emplace_back(b, e);
            },
            threads, grain);
        for (size_t i = 0; i < n; ++i)
          ASSERT_EQ(hits[i].load(), 1) << "n " << n << " threads " << threads << " index " << i;
        // At most four chunks a thread, and no more than ceil(n / grain).
        EXPECT_LE(chunks.size(), size_t(threads) * 4);
        EXPECT_LE(chunks.size(), std::max<size_t>(1, (n + grain - 1) / grain));
      }
}

TEST(Parallel, BackToBackCallsSeeTheirOwnWork) {
  // Thousands of short calls in a row, as the CPU renderer's binning makes: each sees its own
  // function and range (a worker that missed a call or ran one twice would break the sums).
  for (int call = 0; call < 3000; ++call) {
    const size_t n = 1 + size_t(call % 37);
    std::atomic<size_t> sum{0};
    parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) sum.fetch_add(i + size_t(call));
        },
        1 + unsigned(call % 5), 1);
    ASSERT_EQ(sum.load(), n * (n - 1) / 2 + n * size_t(call)) << "call " << call;
  }
}

TEST(Parallel, NestedCallsComplete) {
  std::vector<std::atomic<int>> hits(64 * 64);
  parallel_for(
      64,
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e; ++i)
          parallel_for(
              64,
              [&](size_t b2, size_t e2) {
                for (size_t j = b2; j < e2; ++j) hits[i * 64 + j].fetch_add(1);
              },
              4, 1);
      },
      4, 1);
  for (auto& h : hits) ASSERT_EQ(h.load(), 1);
}

TEST(Parallel, TwoCallersAtOnceBothFinish) {
  // A loader thread and the render thread: one gets the kept workers, the other threads of its
  // own; both results are whole.
  auto work = [](size_t salt, size_t* out) {
    size_t total = 0;
    for (int call = 0; call < 300; ++call) {
      std::atomic<size_t> sum{0};
      parallel_for(
          1000,
          [&](size_t b, size_t e) {
            for (size_t i = b; i < e; ++i) sum.fetch_add(i * salt);
          },
          4, 1);
      total += sum.load();
    }
    *out = total;
  };
  size_t a = 0, b = 0;
  std::thread other(work, size_t{3}, &b);
  work(size_t{2}, &a);
  other.join();
  EXPECT_EQ(a, size_t{300} * 2 * 999 * 1000 / 2);
  EXPECT_EQ(b, size_t{300} * 3 * 999 * 1000 / 2);
}

TEST(Parallel, CoversEveryIndexOnce) {
  for (size_t n : {size_t(0), size_t(1), size_t(5), size_t(100003)}) {
    std::vector<int> hits(n, 0);
    parallel_for(
        n,
        [&](size_t b, size_t e) {
          for (size_t i = b; i < e; ++i) hits[i]++;
        },
        7, 10);
    for (int h : hits) ASSERT_EQ(h, 1);
  }
}

}  // namespace
}  // namespace pr
