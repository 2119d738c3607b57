// Morton (Z-order) codes and the spatial order they give a cloud: consecutive points end up close
// in space, the order a scanner's tiles or an octree's leaves give. Used by the compact encoder,
// the CUDA renderer's upload-time sort and the benchmarks' "Morton order" clouds.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/compact.h"
#include "engine/point_cloud.h"
#include "engine/projection.h"  // PR_HD

namespace pr {

/// Spreads the low 10 bits of v to every third bit (bit k goes to bit 3k).
PR_HD uint32_t morton_spread10(uint32_t v) {
  v &= 0x3ffu;
  v = (v | (v << 16)) & 0x030000ffu;
  v = (v | (v << 8)) & 0x0300f00fu;
  v = (v | (v << 4)) & 0x030c30c3u;
  v = (v | (v << 2)) & 0x09249249u;
  return v;
}

/// The box a cloud's Morton codes are taken in: the corner and 1 / extent per axis (0 for a flat
/// axis), in double. morton_box() makes it from a cloud's local bounds.
struct MortonBox {
  double lo[3];
  double inv[3];
};
MortonBox morton_box(const Bounds& local_bounds);

/// The 30-bit Morton code of a point in the box, 10 bits an axis; 0x3fffffff (the largest) for a
/// point that is not compact_valid() (engine/compact.h), so such points sort last. The host's
/// morton_order() and the CUDA renderer's upload sort both call this, so they give the same order.
PR_HD uint32_t morton_code_of(const MortonBox& b, float x, float y, float z) {
  if (!compact_valid(x, y, z)) return 0x3fffffffu;
  const float f[3] = {x, y, z};
  uint32_t code = 0;
  for (int a = 0; a < 3; ++a) {
    double t = (double(f[a]) - b.lo[a]) * b.inv[a] * 1023.0;
    t = t < 0.0 ? 0.0 : (t > 1023.0 ? 1023.0 : t);
    code |= morton_spread10(uint32_t(t)) << a;
  }
  return code;
}

/// The permutation that orders the cloud along a Morton curve of its finite points' bounds, 10
/// bits an axis: order[i] is the index of the point that goes to position i. Points with a
/// non-finite coordinate or one beyond +-1e30 go last; equal codes keep their index order, so
/// the result is deterministic. Parallel (a counting pass on the code's top bits, then each
/// bucket sorted on its own). `local_bounds`: the cloud's, when the caller has them already.
std::vector<uint32_t> morton_order(const PointCloud& cloud);
std::vector<uint32_t> morton_order(const PointCloud& cloud, const Bounds& local_bounds);

/// How spatially coherent the cloud's stored order already is: of `samples` pairs of consecutive
/// points (i, i + 1) at evenly spread i, the fraction whose two points lie in the same cell of a
/// grid over the bounds with about 64 points a cell on average (2^b cells a side, b =
/// log2(cbrt(n / 64)) in [1, 10]); pairs with a non-finite point are not counted. About 1/cells
/// for points in random order, close to 1 for a grid, a scan or a Morton order. 1 for clouds of
/// fewer than two points. Deterministic, and costs `samples` pairs of reads (and, without
/// `local_bounds`, a pass over the positions for them).
double order_coherence(const PointCloud& cloud, size_t samples = 4096);
double order_coherence(const PointCloud& cloud, const Bounds& local_bounds, size_t samples = 4096);
/// order_coherence() in two steps, for points held elsewhere (the GPU renderer's device points):
/// the stored indices it reads of a cloud of `n` points (the pairs i, i + 1, in order; none for
/// fewer than two points), then its value from the positions at those indices.
std::vector<uint64_t> coherence_sample_indices(uint64_t n, size_t samples = 4096);
double order_coherence_of(uint64_t n, const Bounds& local_bounds,
                          const std::vector<Float3>& sampled);

/// Above this order_coherence() a cloud is drawn in its own order (the CUDA renderer's automatic
/// upload-time sort leaves it alone: re-sorting a coherent order gains nothing and can lose the
/// file's own front-to-back sweeps).
constexpr double kCoherentOrder = 0.5;

/// Largest cloud sort_if_incoherent() reorders on the host (its temporaries take about 24 bytes a
/// point while it runs; 64M points sort in about 3 s on 2 cores).
constexpr uint64_t kMaxHostSort = uint64_t{1} << 26;

/// Reorders the cloud along its Morton curve when its own order is not spatially coherent
/// (order_coherence() < kCoherentOrder) and it has at most `max_points` points; true when it did.
/// The images do not change (the depth test's tie-break is the color, not the order); the CPU
/// renderer draws a random-order cloud about twice as fast once it is sorted (nearby points hit
/// nearby pixels), and the CUDA renderer then keeps the order instead of sorting it again.
bool sort_if_incoherent(PointCloud& cloud, uint64_t max_points = kMaxHostSort);

/// Reorders every per-point array of the cloud (positions, colors, intensity, classification) so
/// that new point i is old point order[i].
void apply_order(PointCloud& cloud, const std::vector<uint32_t>& order);

}  // namespace pr
