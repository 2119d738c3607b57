// Helpers shared by the benchmarks: robust summaries of repeated timings, the Morton (Z-order)
// sort that makes the spatially coherent variant of a cloud, and the host memory available.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/point_cloud.h"

namespace pr {

/// Median and spread of a set of repeated measurements.
struct Spread {
  double median = 0, min = 0, max = 0, p25 = 0, p75 = 0;
  size_t count = 0;
};
Spread summarize(std::vector<double> v);

/// Reorders the cloud (positions, colors and any per-point attributes) along a Morton curve of
/// its bounding box, 10 bits per axis (engine/morton.h): the order a scanner's tiles or an
/// octree's leaves give, where consecutive points are close in space. Deterministic.
void morton_sort(PointCloud& cloud);

/// The kernel's MemAvailable in bytes (0 when unknown).
uint64_t host_memory_available();

/// "1e5,1e6,10000" -> counts; false with a message naming the bad item.
bool parse_counts(const std::string& list, std::vector<uint64_t>& out, std::string* error);
std::vector<std::string> split_list(const std::string& list);

}  // namespace pr
