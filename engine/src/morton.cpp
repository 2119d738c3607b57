// Morton order of a cloud (engine/morton.h).
#include "engine/morton.h"

#include <algorithm>
#include <cmath>

#include "engine/compact.h"
#include "engine/parallel.h"

namespace pr {

namespace {

template <class T>
void gather(PodVector<T>& a, const std::vector<uint32_t>& order) {
  if (a.empty()) return;
  PodVector<T> out(a.size());
  parallel_for(a.size(), [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) out[i] = a[order[i]];
  });
  a.swap(out);
}

}  // namespace

double order_coherence(const PointCloud& cloud, size_t samples) {
  if (cloud.size() < 2 || samples == 0) return 1.0;
  return order_coherence(cloud, cloud.local_bounds(), samples);
}

double order_coherence(const PointCloud& cloud, const Bounds& bb, size_t samples) {
  if (cloud.size() < 2 || samples == 0 || bb.empty) return 1.0;
  const std::vector<uint64_t> at = coherence_sample_indices(cloud.size(), samples);
  std::vector<Float3> sampled(at.size());
  for (size_t k = 0; k < at.size(); ++k) sampled[k] = cloud.positions[size_t(at[k])];
  return order_coherence_of(cloud.size(), bb, sampled);
}

std::vector<uint64_t> coherence_sample_indices(uint64_t n, size_t samples) {
  std::vector<uint64_t> at;
  if (n < 2 || samples == 0) return at;
  const uint64_t pairs = n - 1;
  const uint64_t m = std::min<uint64_t>(samples, pairs);
  at.reserve(size_t(2 * m));
  for (uint64_t k = 0; k < m; ++k) {
    const uint64_t i =
        std::min<uint64_t>(pairs - 1, uint64_t(double(k) * double(pairs) / double(m)));  // spread
    at.push_back(i);
    at.push_back(i + 1);
  }
  return at;
}

double order_coherence_of(uint64_t n, const Bounds& bb, const std::vector<Float3>& sampled) {
  if (n < 2 || bb.empty || sampled.size() < 2) return 1.0;
  // Cells of about 64 points of a uniform cloud: 2^bits a side, bits = log2(cbrt(n / 64)).
  const int bits = std::clamp(int(std::lround(std::log2(std::cbrt(double(n) / 64.0)))), 1, 10);
  const double side = double(1 << bits);
  double lo[3], inv[3];
  for (int a = 0; a < 3; ++a) {
    lo[a] = bb.min[a];
    inv[a] = bb.max[a] > bb.min[a] ? side / (bb.max[a] - bb.min[a]) : 0.0;
  }
  auto cell = [&](const Float3& v, uint32_t* c) {
    if (!compact_valid(v.x, v.y, v.z)) return false;
    const float f[3] = {v.x, v.y, v.z};
    *c = 0;
    for (int a = 0; a < 3; ++a)
      *c = *c << 10 | uint32_t(std::clamp((double(f[a]) - lo[a]) * inv[a], 0.0, side - 1.0));
    return true;
  };
  size_t same = 0, counted = 0;
  for (size_t k = 0; k + 1 < sampled.size(); k += 2) {
    uint32_t a = 0, b = 0;
    if (!cell(sampled[k], &a) || !cell(sampled[k + 1], &b)) continue;
    ++counted;
    same += a == b;
  }
  return counted ? double(same) / double(counted) : 1.0;
}

bool sort_if_incoherent(PointCloud& cloud, uint64_t max_points) {
  if (cloud.size() < 2 || cloud.size() > max_points) return false;
  const Bounds bounds = cloud.local_bounds();  // one pass, for both
  if (order_coherence(cloud, bounds) >= kCoherentOrder) return false;
  apply_order(cloud, morton_order(cloud, bounds));
  return true;
}

// (code << 32 | index) keys, bucketed by the code's top 15 bits in parallel (counting sort), then
// each bucket sorted. Invalid points get the largest code, so they gather at the end.
MortonBox morton_box(const Bounds& bb) {
  MortonBox box{{0, 0, 0}, {0, 0, 0}};
  // Bounds of the finite points; huge ones only widen the curve's box.
  if (!bb.empty)
    for (int a = 0; a < 3; ++a) {
      box.lo[a] = bb.min[a];
      box.inv[a] = bb.max[a] > bb.min[a] ? 1.0 / (bb.max[a] - bb.min[a]) : 0.0;
    }
  return box;
}

std::vector<uint32_t> morton_order(const PointCloud& cloud) {
  return morton_order(cloud, cloud.local_bounds());
}

std::vector<uint32_t> morton_order(const PointCloud& cloud, const Bounds& local_bounds) {
  const size_t n = cloud.size();
  const MortonBox box = morton_box(local_bounds);
  std::vector<uint64_t> keys(n);
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) {
      const Float3& v = cloud.positions[i];
      keys[i] = (uint64_t(morton_code_of(box, v.x, v.y, v.z)) << 32) | i;
    }
  });
  // Counting sort by the top 15 of the 30 code bits, per thread range, then sort each bucket.
  constexpr int kShift = 32 + 15;
  constexpr size_t kBuckets = size_t(1) << 15;
  const unsigned threads = default_threads();
  const size_t chunk = (n + threads - 1) / std::max(1u, threads);
  std::vector<std::vector<uint64_t>> hist(threads, std::vector<uint64_t>(kBuckets, 0));
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
          for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
            ++hist[t][keys[i] >> kShift];
      },
      threads, 1);
  std::vector<uint64_t> bucket_start(kBuckets + 1, 0);
  uint64_t run = 0;
  for (size_t k = 0; k < kBuckets; ++k) {
    bucket_start[k] = run;
    for (unsigned t = 0; t < threads; ++t) {
      const uint64_t c = hist[t][k];
      hist[t][k] = run;  // becomes the thread's write cursor in bucket k
      run += c;
    }
  }
  bucket_start[kBuckets] = run;
  std::vector<uint64_t> sorted(n);
  parallel_for(
      threads,
      [&](size_t t0, size_t t1) {
        for (size_t t = t0; t < t1; ++t)
          for (size_t i = t * chunk; i < std::min(n, (t + 1) * chunk); ++i)
            sorted[hist[t][keys[i] >> kShift]++] = keys[i];
      },
      threads, 1);
  keys = std::vector<uint64_t>();
  parallel_for(
      kBuckets,
      [&](size_t k0, size_t k1) {
        for (size_t k = k0; k < k1; ++k)
          std::sort(sorted.begin() + long(bucket_start[k]),
                    sorted.begin() + long(bucket_start[k + 1]));
      },
      threads, 64);
  std::vector<uint32_t> order(n);
  parallel_for(n, [&](size_t b, size_t e) {
    for (size_t i = b; i < e; ++i) order[i] = uint32_t(sorted[i] & 0xffffffffu);
  });
  return order;
}

void apply_order(PointCloud& cloud, const std::vector<uint32_t>& order) {
  gather(cloud.positions, order);
  gather(cloud.colors, order);
  gather(cloud.intensity, order);
  gather(cloud.classification, order);
  gather(cloud.file_colors, order);
  gather(cloud.returns, order);
  gather(cloud.point_source, order);
  gather(cloud.gps_time, order);
  for (ScalarField& f : cloud.fields) gather(f.values, order);
}

}  // namespace pr
