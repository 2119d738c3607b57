// What the io tests share to look into files and clouds: a file's bytes, and a cloud as a
// multiset of its points' bytes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/point_cloud.h"

namespace pr::test {

inline std::vector<uint8_t> file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

/// A point's position bits, color and attributes, as bytes: clouds compare as multisets of these
/// (sorted).
inline std::vector<std::string> rows(const PointCloud& c) {
  std::vector<std::string> r(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    std::string& s = r[i];
    auto add = [&s](const void* p, size_t n) { s.append(static_cast<const char*>(p), n); };
    add(&c.positions[i], sizeof(Float3));
    add(&c.colors[i], 4);
    if (!c.intensity.empty()) add(&c.intensity[i], 4);
    if (!c.classification.empty()) add(&c.classification[i], 1);
    if (!c.returns.empty()) add(&c.returns[i], 1);
    if (!c.point_source.empty()) add(&c.point_source[i], 2);
    if (!c.gps_time.empty()) add(&c.gps_time[i], 8);
    for (const ScalarField& f : c.fields) add(&f.values[i], 4);
  }
  std::sort(r.begin(), r.end());
  return r;
}

}  // namespace pr::test
