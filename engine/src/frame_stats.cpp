#include "engine/frame_stats.h"

#include <algorithm>

namespace pr {

std::vector<float> History::values() const {
  std::vector<float> out;
  out.reserve(count_);
  const size_t start = (next_ + data_.size() - count_) % data_.size();
  for (size_t i = 0; i < count_; ++i) out.push_back(data_[(start + i) % data_.size()]);
  return out;
}

float History::average() const {
  if (count_ == 0) return 0.0f;
  double s = 0.0;
  for (float v : values()) s += v;
  return float(s / double(count_));
}

float History::max() const {
  float m = 0.0f;
  for (float v : values()) m = std::max(m, v);
  return m;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + mid, v.end());
  double m = v[mid];
  if (v.size() % 2 == 0) m = (m + *std::max_element(v.begin(), v.begin() + mid)) * 0.5;
  return m;
}

}  // namespace pr
