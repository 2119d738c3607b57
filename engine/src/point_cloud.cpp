#include "engine/point_cloud.h"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "engine/parallel.h"

namespace pr {

void Bounds::extend(const glm::dvec3& p) {
  if (empty) {
    min = max = p;
    empty = false;
  } else {
    min = glm::min(min, p);
    max = glm::max(max, p);
  }
}

void Bounds::extend(const Bounds& b) {
  if (b.empty) return;
  extend(b.min);
  extend(b.max);
}

void PointCloud::resize(size_t n) {
  positions.resize(n);
  colors.resize(n);
}

Bounds PointCloud::local_bounds() const {
  Bounds total;
  std::mutex m;
  const Float3* pos = positions.data();
  parallel_for(positions.size(), [&](size_t b, size_t e) {
    float lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    bool any = false;
    for (size_t i = b; i < e; ++i) {
      const Float3 p = pos[i];
      if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) continue;
      any = true;
      lo[0] = std::min(lo[0], p.x), lo[1] = std::min(lo[1], p.y), lo[2] = std::min(lo[2], p.z);
      hi[0] = std::max(hi[0], p.x), hi[1] = std::max(hi[1], p.y), hi[2] = std::max(hi[2], p.z);
    }
    if (!any) return;
    std::lock_guard<std::mutex> lock(m);
    total.extend(glm::dvec3(lo[0], lo[1], lo[2]));
    total.extend(glm::dvec3(hi[0], hi[1], hi[2]));
  }, 0, 1 << 16);
  return total;
}

Bounds PointCloud::world_bounds() const {
  Bounds b = local_bounds();
  if (!b.empty) {
    b.min += origin;
    b.max += origin;
  }
  return b;
}

size_t PointCloud::memory_bytes() const {
  return positions.capacity() * sizeof(Float3) + colors.capacity() * sizeof(uint32_t) +
         intensity.capacity() * sizeof(float) + classification.capacity();
}

void append_cloud(PointCloud& a, const PointCloud& b) {
  if (a.empty()) {
    const std::string keep_name = a.name;
    a = b;
    if (!keep_name.empty()) a.name = keep_name + ", " + b.name;
    return;
  }
  const size_t n0 = a.size(), nb = b.size();
  const glm::dvec3 d = b.origin - a.origin;
  a.positions.resize(n0 + nb);
  a.colors.resize(n0 + nb);
  for (size_t i = 0; i < nb; ++i) {
    const Float3 p = b.positions[i];
    a.positions[n0 + i] = Float3{float(double(p.x) + d.x), float(double(p.y) + d.y),
                                 float(double(p.z) + d.z)};
    a.colors[n0 + i] = b.colors[i];
  }
  // Optional attributes stay aligned: fill with zeros where one side lacks them.
  if (a.has_intensity() || b.has_intensity()) {
    a.intensity.resize(n0, 0.0f);
    if (b.has_intensity())
      a.intensity.insert(a.intensity.end(), b.intensity.begin(), b.intensity.end());
    else
      a.intensity.resize(n0 + nb, 0.0f);
  }
  if (!a.classification.empty() || !b.classification.empty()) {
    a.classification.resize(n0, 0);
    if (!b.classification.empty())
      a.classification.insert(a.classification.end(), b.classification.begin(),
                              b.classification.end());
    else
      a.classification.resize(n0 + nb, 0);
  }
  a.name += ", " + b.name;
}

}  // namespace pr
