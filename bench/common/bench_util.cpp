#include "bench_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/parallel.h"

namespace pr {

Spread summarize(std::vector<double> v) {
  Spread s;
  s.count = v.size();
  if (v.empty()) return s;
  std::sort(v.begin(), v.end());
  // Linear interpolation between order statistics (numpy's default percentile).
  auto q = [&](double f) {
    const double x = f * double(v.size() - 1);
    const size_t i = size_t(x);
    const double t = x - double(i);
    return i + 1 < v.size() ? v[i] * (1.0 - t) + v[i + 1] * t : v[i];
  };
  s.median = q(0.5);
  s.p25 = q(0.25);
  s.p75 = q(0.75);
  s.min = v.front();
  s.max = v.back();
  return s;
}

namespace {

/// Spreads the low 10 bits of v to every third bit (bit k goes to bit 3k).
inline uint32_t spread10(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

template <class T>
void gather(PodVector<T>& a, const PodVector<uint64_t>& keyed) {
  if (a.empty()) return;
  PodVector<T> out(a.size());
  parallel_for(a.size(), [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = a[size_t(keyed[i] & 0xffffffffu)];
  });
  a.swap(out);
}

}  // namespace

void morton_sort(PointCloud& c) {
  const size_t n = c.size();
  if (n < 2) return;
  const Bounds b = c.local_bounds();
  const glm::dvec3 lo = b.min;
  const glm::dvec3 inv = 1.0 / glm::max(b.size(), glm::dvec3(1e-30));
  constexpr int kCodeBits = 30, kTopBits = 16;
  constexpr size_t kBuckets = size_t(1) << kTopBits;
  PodVector<uint32_t> code(n);
  parallel_for(n, [&](size_t s, size_t e) {
    for (size_t i = s; i < e; ++i) {
      const Float3 p = c.positions[i];
      auto quant = [&](float v, int axis) {
        double t = (double(v) - lo[axis]) * inv[axis];
        if (!(t >= 0.0)) t = 0.0;  // NaN and below: the first cell
        if (t > 1.0) t = 1.0;
        return uint32_t(t * 1023.0);
      };
      code[i] =
          spread10(quant(p.x, 0)) | (spread10(quant(p.y, 1)) << 1) | (spread10(quant(p.z, 2)) << 2);
    }
  });
  // Bucket pass: per-thread histograms of the top bits, exclusive prefix over (bucket, thread),
  // then each thread scatters its chunk to its own slots (stable within a bucket).
  const unsigned threads = default_threads();
  const size_t chunk = (n + threads - 1) / threads;
  std::vector<uint64_t> hist(size_t(threads) * kBuckets, 0);
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t) {
          uint64_t* h = &hist[t * kBuckets];
          for (size_t i = t * chunk, e = std::min(n, (t + 1) * chunk); i < e; ++i)
            ++h[code[i] >> (kCodeBits - kTopBits)];
        }
      },
      threads, 1);
  std::vector<uint64_t> bucket_start(kBuckets + 1, 0);
  uint64_t run = 0;
  for (size_t k = 0; k < kBuckets; ++k) {
    bucket_start[k] = run;
    for (unsigned t = 0; t < threads; ++t) {
      const uint64_t cnt = hist[t * kBuckets + k];
      hist[t * kBuckets + k] = run;
      run += cnt;
    }
  }
  bucket_start[kBuckets] = run;
  PodVector<uint64_t> keyed(n);  // code << 32 | original index
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t) {
          uint64_t* off = &hist[t * kBuckets];
          for (size_t i = t * chunk, e = std::min(n, (t + 1) * chunk); i < e; ++i)
            keyed[off[code[i] >> (kCodeBits - kTopBits)]++] = (uint64_t(code[i]) << 32) | i;
        }
      },
      threads, 1);
  PodVector<uint32_t>().swap(code);
  parallel_for(
      kBuckets,
      [&](size_t k0, size_t k1) {
        for (size_t k = k0; k < k1; ++k)
          std::sort(keyed.begin() + long(bucket_start[k]),
                    keyed.begin() + long(bucket_start[k + 1]));
      },
      threads, 64);
  gather(c.positions, keyed);
  gather(c.colors, keyed);
  gather(c.intensity, keyed);
  gather(c.classification, keyed);
}

uint64_t host_memory_available() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  uint64_t kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024;
  return 0;
}

std::vector<std::string> split_list(const std::string& list) {
  std::vector<std::string> v;
  std::stringstream ss(list);
  std::string t;
  while (std::getline(ss, t, ','))
    if (!t.empty()) v.push_back(t);
  return v;
}

bool parse_counts(const std::string& list, std::vector<uint64_t>& out, std::string* error) {
  out.clear();
  for (const std::string& s : split_list(list)) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    if (end == s.c_str() || *end != '\0' || !(v >= 1.0) || v > 4.0e9) {
      if (error) *error = "bad point count '" + s + "' (want e.g. 1e6, between 1 and 4e9)";
      return false;
    }
    out.push_back(uint64_t(std::llround(v)));
  }
  if (out.empty() && error) *error = "empty point count list";
  return !out.empty();
}

}  // namespace pr
