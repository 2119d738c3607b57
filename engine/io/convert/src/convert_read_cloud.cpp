// A cloud in memory as LAS 1.4 records (the viewer's "Save as COPC"), and the parts of the
// record spec that both record sources choose the same way.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "convert_read.h"
#include "engine/io/base/io_common.h"
#include "engine/parallel.h"

namespace pr::io {

namespace {

std::string vec_text(const glm::dvec3& v) {
  char b[128];
  std::snprintf(b, sizeof b, "(%.17g, %.17g, %.17g)", v.x, v.y, v.z);
  return b;
}

}  // namespace

void choose_scale_offset(const Bounds& b, const std::string& why, RecordSpec& spec) {
  double half = 0.0;
  glm::dvec3 centre(0.0);
  if (!b.empty) {
    centre = b.center();
    for (int a = 0; a < 3; ++a) half = std::max(half, (b.max[a] - b.min[a]) * 0.5);
  }
  // A margin of a tenth over the half extent: the centre below is rounded, and the octree's cube
  // reaches a little past the bounds.
  double scale = 0.001;
  while (half * 1.1 + 1.0 > kQuantumLimit * scale && scale < 1e300) scale *= 10.0;
  const double unit = std::max(1.0, scale);
  for (int a = 0; a < 3; ++a) {
    spec.scale[a] = scale;
    spec.offset[a] = std::isfinite(centre[a]) ? std::round(centre[a] / unit) * unit : 0.0;
  }
  spec.scale_from_input = false;
  char s[64];
  std::snprintf(s, sizeof s, "%g", scale);
  spec.messages.push_back("scale " + std::string(s) + " and offset " + vec_text(spec.offset) +
                          " chosen from the bounds (" + why + ")");
}

bool quantum_holds(const Bounds& b, const RecordSpec& spec) {
  if (b.empty) return true;
  for (int a = 0; a < 3; ++a)
    for (double v : {b.min[a], b.max[a]}) {
      const double q = (v - spec.offset[a]) / spec.scale[a];
      if (!(std::abs(q) < 2147483000.0)) return false;
    }
  return true;
}

std::vector<uint8_t> float_fields_vlr(const std::vector<std::string>& names) {
  std::vector<uint8_t> v(192 * names.size(), 0);
  for (size_t k = 0; k < names.size(); ++k) {
    uint8_t* e = v.data() + 192 * k;
    e[2] = 9;  // float
    std::memcpy(e + 4, names[k].data(), std::min<size_t>(names[k].size(), 32));
    const char* desc = "pointraster field";
    std::memcpy(e + 160, desc, std::strlen(desc));
  }
  return v;
}

void snap_bounds(RecordSpec& spec) {
  if (spec.bounds.empty) return;
  for (int a = 0; a < 3; ++a) {
    const double s = spec.scale[a], o = spec.offset[a];
    spec.bounds.min[a] = std::round((spec.bounds.min[a] - o) / s) * s + o;
    spec.bounds.max[a] = std::round((spec.bounds.max[a] - o) / s) * s + o;
  }
}

void finish_record_length(RecordSpec& spec) {
  spec.record_length = uint16_t(kRecordFormatSize[spec.point_format - 6] + spec.extra_bytes);
}

bool quantize(const glm::dvec3& w, const RecordSpec& spec, int32_t xyz[3]) {
  for (int a = 0; a < 3; ++a) {
    const double q = std::round((w[a] - spec.offset[a]) / spec.scale[a]);
    if (!(q >= -2147483648.0 && q <= 2147483647.0)) return false;
    xyz[a] = int32_t(q);
  }
  return true;
}

IntensityMap intensity_map(const PointCloud& c, const std::string& name,
                           std::vector<std::string>& messages) {
  IntensityMap im;
  if (!c.has_intensity()) return im;
  float lo = INFINITY, hi = -INFINITY;
  bool integers = true;
  for (const float v : c.intensity) {
    if (!std::isfinite(v)) continue;
    lo = std::min(lo, v), hi = std::max(hi, v);
    integers = integers && v == std::round(v);
  }
  if (!(lo <= hi) || (integers && lo >= 0.0f && hi <= 65535.0f) || lo == hi) return im;
  im.low = double(lo);
  im.scale = 65535.0 / (double(hi) - double(lo));
  char b[96];
  std::snprintf(b, sizeof b, "intensities from %g to %g scaled to 0-65535", double(lo), double(hi));
  messages.push_back(name + ": " + b);
  return im;
}

uint64_t cloud_records(const PointCloud& c, size_t begin, size_t end, const RecordSpec& spec,
                       bool color, const IntensityMap& im, const std::vector<int>& field_of,
                       std::vector<uint8_t>& out) {
  const size_t rec = spec.record_length;
  const size_t at0 = out.size();
  out.resize(at0 + (end - begin) * rec);
  const auto& colors = c.source_colors();
  const uint16_t fields_at = kRecordFormatSize[spec.point_format - 6];
  size_t n = 0;
  uint64_t dropped = 0;
  for (size_t i = begin; i < end; ++i) {
    const Float3 p = c.positions[i];
    int32_t xyz[3];
    if (!quantize(c.origin + glm::dvec3(p.x, p.y, p.z), spec, xyz)) {
      ++dropped;
      continue;
    }
    uint8_t* r = out.data() + at0 + n++ * rec;
    std::memset(r, 0, rec);
    std::memcpy(r, xyz, 12);
    if (c.has_intensity()) put_le<uint16_t>(r + 12, im(c.intensity[i]));
    r[14] = c.returns.empty() ? pack_returns(1, 1) : c.returns[i];
    if (!c.classification.empty()) r[16] = c.classification[i];
    if (!c.point_source.empty()) put_le<uint16_t>(r + 20, c.point_source[i]);
    if (!c.gps_time.empty()) put_le<double>(r + 22, c.gps_time[i]);
    if (color && spec.point_format >= 7) {
      const uint32_t col = colors[i];
      for (int k = 0; k < 3; ++k)
        put_le<uint16_t>(r + 30 + 2 * k, uint16_t(((col >> (8 * k)) & 255) * 257));
    }
    for (size_t j = 0; j < field_of.size(); ++j)
      put_le<float>(r + fields_at + 4 * j,
                    field_of[j] < 0 ? 0.0f : c.fields[size_t(field_of[j])].values[i]);
  }
  out.resize(at0 + n * rec);
  return dropped;
}

namespace {

/// The records of a cloud in memory, in blocks of 65536 points.
class CloudRecordSource final : public RecordSource {
 public:
  explicit CloudRecordSource(const PointCloud& cloud) : cloud_(cloud) {
    const auto& colors = cloud.source_colors();
    // The readers give points without colors opaque white: a cloud all white has none to keep.
    std::atomic<bool> colored{false};
    parallel_for(
        colors.size(),
        [&](size_t i0, size_t i1) {
          for (size_t i = i0; i < i1 && !colored.load(std::memory_order_relaxed); ++i)
            if (colors[i] != rgba(255, 255, 255)) colored = true;
        },
        0, 1 << 16);
    color_ = colored.load();
    spec_.point_format = color_ ? 7 : 6;
    std::vector<std::string> names;
    for (size_t f = 0; f < cloud.fields.size(); ++f) {
      names.push_back(cloud.fields[f].name);
      field_of_.push_back(int(f));
    }
    spec_.extra_bytes = uint16_t(4 * names.size());
    if (!names.empty()) spec_.extra_bytes_vlr = float_fields_vlr(names);
    finish_record_length(spec_);
    spec_.bounds = cloud.world_bounds();
    spec_.points = cloud.size();
    choose_scale_offset(spec_.bounds, "a cloud in memory", spec_);
    snap_bounds(spec_);
    im_ = intensity_map(cloud, cloud.name.empty() ? "the cloud" : cloud.name, spec_.messages);
  }

  const RecordSpec& spec() const override { return spec_; }

  bool next(std::vector<uint8_t>& out) override {
    for (;;) {
      const size_t b = next_.fetch_add(1);
      const size_t begin = b << 16;
      if (begin >= cloud_.size()) return false;
      const size_t end = std::min(cloud_.size(), begin + (size_t(1) << 16));
      out.clear();
      cloud_records(cloud_, begin, end, spec_, color_, im_, field_of_, out);
      if (!out.empty()) return true;
    }
  }

  std::string error() const override { return {}; }

 private:
  const PointCloud& cloud_;
  RecordSpec spec_;
  bool color_ = false;
  IntensityMap im_;
  std::vector<int> field_of_;
  std::atomic<size_t> next_{0};
};

}  // namespace

std::unique_ptr<RecordSource> cloud_record_source(const PointCloud& cloud) {
  return std::make_unique<CloudRecordSource>(cloud);
}

}  // namespace pr::io
