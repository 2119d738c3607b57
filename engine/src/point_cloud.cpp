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
  parallel_for(
      positions.size(),
      [&](size_t b, size_t e) {
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
      },
      0, 1 << 16);
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

const ScalarField* PointCloud::field(const std::string& field_name) const {
  for (const ScalarField& f : fields)
    if (f.name == field_name) return &f;
  return nullptr;
}

size_t PointCloud::memory_bytes() const {
  size_t n = positions.capacity() * sizeof(Float3) + colors.capacity() * sizeof(uint32_t) +
             file_colors.capacity() * sizeof(uint32_t) + intensity.capacity() * sizeof(float) +
             classification.capacity() + returns.capacity() +
             point_source.capacity() * sizeof(uint16_t) + gps_time.capacity() * sizeof(double);
  for (const ScalarField& f : fields) n += f.values.capacity() * sizeof(float);
  return n;
}

namespace {

/// Appends b's optional array to a's, so both stay one entry a point: a side that lacks it
/// (empty) counts as `fill` for each of its n0 or nb points.
template <class T>
void append_optional(PodVector<T>& a, size_t n0, const PodVector<T>& b, size_t nb, T fill) {
  if (a.empty() && b.empty()) return;
  a.resize(n0, fill);
  if (!b.empty())
    a.insert(a.end(), b.begin(), b.end());
  else
    a.resize(n0 + nb, fill);
}

}  // namespace

void append_cloud(PointCloud& a, const PointCloud& b) {
  if (a.empty()) {
    const std::string keep_name = a.name;
    a = b;
    if (!keep_name.empty()) a.name = keep_name + ", " + b.name;
    return;
  }
  const size_t n0 = a.size(), nb = b.size();
  const glm::dvec3 d = b.origin - a.origin;
  if (!a.file_colors.empty() || !b.file_colors.empty()) {
    PodVector<uint32_t> fc = a.source_colors();
    fc.insert(fc.end(), b.source_colors().begin(), b.source_colors().end());
    a.file_colors = std::move(fc);
  }
  a.positions.resize(n0 + nb);
  a.colors.resize(n0 + nb);
  for (size_t i = 0; i < nb; ++i) {
    const Float3 p = b.positions[i];
    a.positions[n0 + i] =
        Float3{float(double(p.x) + d.x), float(double(p.y) + d.y), float(double(p.z) + d.z)};
    a.colors[n0 + i] = b.colors[i];
  }
  // Optional attributes stay aligned: the defaults (zeros; a single return) where one side lacks
  // them.
  append_optional(a.intensity, n0, b.intensity, nb, 0.0f);
  append_optional(a.classification, n0, b.classification, nb, uint8_t{0});
  append_optional(a.returns, n0, b.returns, nb, pack_returns(1, 1));
  append_optional(a.point_source, n0, b.point_source, nb, uint16_t{0});
  append_optional(a.gps_time, n0, b.gps_time, nb, 0.0);
  // Named fields by name: a field only one side has is 0 on the other.
  std::vector<ScalarField> fields;
  for (const ScalarField& fa : a.fields) {
    const ScalarField* fb = b.field(fa.name);
    ScalarField f{fa.name, fa.values};
    append_optional(f.values, n0, fb ? fb->values : PodVector<float>(), nb, 0.0f);
    fields.push_back(std::move(f));
  }
  for (const ScalarField& fb : b.fields) {
    if (a.field(fb.name)) continue;
    ScalarField f{fb.name, {}};
    append_optional(f.values, n0, fb.values, nb, 0.0f);
    fields.push_back(std::move(f));
  }
  a.fields = std::move(fields);
  a.name += ", " + b.name;
}

}  // namespace pr
