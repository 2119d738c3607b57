#include "pool_classes.h"

#include <cmath>
#include <limits>

namespace pr {

bool PoolClassFilter::set(const std::array<bool, 256>& hidden) {
  if (hidden == hidden_) return false;
  hidden_ = hidden;
  any_ = false;
  for (const bool h : hidden_) any_ = any_ || h;
  return true;
}

void PoolClassFilter::hide(PointCloud& pool, const std::vector<uint32_t>& granules, uint32_t size) {
  if (!any_ || pool.classification.size() != pool.size()) return;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const uint32_t g : granules) {
    const size_t first = size_t(g) * size;
    Kept* kept = nullptr;
    for (uint32_t k = 0; k < size; ++k) {
      Float3& p = pool.positions[first + k];
      // The rest of a node's last granule is NaN already: nothing to keep.
      if (std::isnan(p.x) || !hidden_[pool.classification[first + k]]) continue;
      if (!kept) kept = &kept_[g];
      kept->at.push_back(k);
      kept->position.push_back(p);
      p = Float3{nan, nan, nan};
    }
  }
}

void PoolClassFilter::show(PointCloud& pool, const std::vector<uint32_t>& granules, uint32_t size) {
  for (const uint32_t g : granules) {
    const auto it = kept_.find(g);
    if (it == kept_.end()) continue;
    const size_t first = size_t(g) * size;
    for (size_t k = 0; k < it->second.at.size(); ++k)
      pool.positions[first + it->second.at[k]] = it->second.position[k];
    kept_.erase(it);
  }
}

void PoolClassFilter::forget(const std::vector<uint32_t>& granules) {
  if (kept_.empty()) return;
  for (const uint32_t g : granules) kept_.erase(g);
}

std::vector<std::pair<uint8_t, uint32_t>> node_classes(const PointCloud& node) {
  std::vector<std::pair<uint8_t, uint32_t>> out;
  if (node.classification.size() != node.size()) {
    if (!node.empty()) out.emplace_back(uint8_t(0), uint32_t(node.size()));
    return out;
  }
  std::array<uint32_t, 256> count{};
  for (const uint8_t c : node.classification) ++count[c];
  for (int c = 0; c < 256; ++c)
    if (count[size_t(c)]) out.emplace_back(uint8_t(c), count[size_t(c)]);
  return out;
}

}  // namespace pr
