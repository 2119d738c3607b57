#include "bench_util.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "engine/morton.h"

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

void morton_sort(PointCloud& c) {
  if (c.size() < 2) return;
  apply_order(c, morton_order(c));
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
