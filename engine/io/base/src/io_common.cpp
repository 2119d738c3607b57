#include "engine/io/base/io_common.h"

#include <atomic>
#include <cctype>
#include <cstring>

#include "engine/parallel.h"

namespace pr::io {

bool fail(const Input& in, std::string* error, const std::string& message) {
  if (error) *error = in.name + ": " + message;
  return false;
}

std::string one_line(std::string message) {
  for (char& c : message)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return message;
}

std::string redact_url_queries(std::string message) {
  for (size_t at = message.find("://"); at != std::string::npos; at = message.find("://", at)) {
    // The URL runs to the next white space or quote; its query from its first '?' to there,
    // less the punctuation that follows a name in a message ("url: 403", "(url)", "url,").
    size_t end = message.find_first_of(" \t\r\n\"'<>", at);
    if (end == std::string::npos) end = message.size();
    const size_t q = message.find('?', at);
    if (q == std::string::npos || q >= end) {
      at = end;
      continue;
    }
    size_t stop = end;
    while (stop > q + 1 && std::strchr(":,;)]", message[stop - 1])) --stop;
    if (stop > q + 1) message.replace(q, stop - q, "?...");
    at = q + 4;
  }
  return message;
}

std::string group_digits(uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

std::string cut_short_warning(const std::string& name, uint64_t decoded, uint64_t declared,
                              const std::string& why) {
  return name + ": cut short: " + group_digits(decoded) +
         (declared ? " of " + group_digits(declared) : std::string()) + " points decoded (" + why +
         ")";
}

void warn_cut_short(const Input& in, Output& out, uint64_t decoded, uint64_t declared,
                    const std::string& why) {
  out.info->warnings.push_back(cut_short_warning(in.name, decoded, declared, why));
}

namespace {
std::atomic<uint64_t> memory_limit{0};
}  // namespace

void set_memory_limit(uint64_t bytes) {
  memory_limit.store(bytes, std::memory_order_relaxed);
}

bool fits_in_memory(const Input& in, uint64_t points, uint64_t bytes_per_point,
                    std::string* error) {
  const uint64_t limit = memory_limit.load(std::memory_order_relaxed);
  const uint64_t machine = physical_memory();
  const uint64_t memory = limit && (machine == 0 || limit < machine) ? limit : machine;
  if (memory == 0 || bytes_per_point == 0) return true;  // unknown: nothing to refuse
  if (points <= memory / bytes_per_point) return true;
  return fail(in, error,
              std::to_string(points) + " points of " + std::to_string(bytes_per_point) +
                  " bytes each would take more than " +
                  (memory == machine ? "this machine's " : "the allowed ") +
                  std::to_string(memory) + " bytes of physical memory");
}

glm::dvec3 choose_origin(const Bounds& s) {
  if (s.empty) return glm::dvec3(0.0);
  const double m = std::max({std::abs(s.min.x), std::abs(s.min.y), std::abs(s.min.z),
                             std::abs(s.max.x), std::abs(s.max.y), std::abs(s.max.z)});
  if (!std::isfinite(m) || m < 1024.0) return glm::dvec3(0.0);
  const glm::dvec3 c = s.center();
  if (!(std::isfinite(c.x) && std::isfinite(c.y) && std::isfinite(c.z))) return glm::dvec3(0.0);
  return glm::dvec3(std::round(c.x), std::round(c.y), std::round(c.z));
}

void resize_points(PointCloud& c, const Attributes& attrs, size_t n) {
  c.resize(n);
  if (attrs.intensity) c.intensity.resize(n);
  if (attrs.classification) c.classification.resize(n);
  if (attrs.returns) c.returns.resize(n);
  if (attrs.point_source) c.point_source.resize(n);
  if (attrs.gps_time) c.gps_time.resize(n);
}

bool PointSink::allocate(const std::vector<size_t>& caps, std::vector<size_t>& start,
                         std::string* error) {
  PointCloud& c = *out_.cloud;
  const size_t nb = caps.size();
  start.assign(nb + 1, 0);
  bool wraps = false;
  for (size_t b = 0; b < nb; ++b) {
    wraps = wraps || caps[b] > SIZE_MAX - start[b];
    start[b + 1] = start[b] + caps[b];
  }
  const size_t total = start[nb];
  const uint64_t point_bytes =
      sizeof(Float3) + sizeof(uint32_t) + (attrs_.intensity ? sizeof(float) : 0) +
      (attrs_.classification ? 1 : 0) + (attrs_.returns ? 1 : 0) +
      (attrs_.point_source ? sizeof(uint16_t) : 0) + (attrs_.gps_time ? sizeof(double) : 0) +
      fields.size() * sizeof(float);
  if (!fits_in_memory(in_, wraps ? UINT64_MAX : total, point_bytes, error)) {
    *out_.cloud = PointCloud{};
    return false;
  }
  resize_points(c, attrs_, total);
  add_fields(total);
  return true;
}

void PointSink::compact(const std::vector<size_t>& start, const std::vector<size_t>& kept,
                        const std::vector<Bounds>& bb) {
  PointCloud& c = *out_.cloud;
  const size_t nb = kept.size(), total = start[nb];
  size_t w = 0;
  for (size_t b = 0; b < nb; ++b) {
    if (w != start[b] && kept[b]) {
      std::memmove(&c.positions[w], &c.positions[start[b]], kept[b] * sizeof(Float3));
      std::memmove(&c.colors[w], &c.colors[start[b]], kept[b] * sizeof(uint32_t));
      if (attrs_.intensity)
        std::memmove(&c.intensity[w], &c.intensity[start[b]], kept[b] * sizeof(float));
      if (attrs_.classification)
        std::memmove(&c.classification[w], &c.classification[start[b]], kept[b]);
      if (attrs_.returns) std::memmove(&c.returns[w], &c.returns[start[b]], kept[b]);
      if (attrs_.point_source)
        std::memmove(&c.point_source[w], &c.point_source[start[b]], kept[b] * sizeof(uint16_t));
      if (attrs_.gps_time)
        std::memmove(&c.gps_time[w], &c.gps_time[start[b]], kept[b] * sizeof(double));
      move_fields(w, start[b], kept[b]);
    }
    w += kept[b];
    bounds.extend(bb[b]);
  }
  if (w != total) {
    c.positions.resize(w);
    c.colors.resize(w);
    if (attrs_.intensity) c.intensity.resize(w);
    if (attrs_.classification) c.classification.resize(w);
    if (attrs_.returns) c.returns.resize(w);
    if (attrs_.point_source) c.point_source.resize(w);
    if (attrs_.gps_time) c.gps_time.resize(w);
    resize_fields(w);
  }
  c.origin = origin_;
}

void PointSink::add_fields(size_t total) {
  PointCloud& c = *out_.cloud;
  field_data_.clear();
  for (const std::string& name : fields) {
    c.fields.push_back(ScalarField{name, {}});
    c.fields.back().values.resize(total);
    field_data_.push_back(c.fields.back().values.data());
  }
}

void PointSink::move_fields(size_t to, size_t from, size_t count) {
  for (float* f : field_data_) std::memmove(f + to, f + from, count * sizeof(float));
}

void PointSink::resize_fields(size_t count) {
  PointCloud& c = *out_.cloud;
  for (size_t f = c.fields.size() - fields.size(); f < c.fields.size(); ++f)
    c.fields[f].values.resize(count);
}

std::vector<size_t> fixed_blocks(size_t n, size_t per) {
  std::vector<size_t> caps;
  caps.reserve(n / per + 1);
  for (size_t b = 0; b < n; b += per) caps.push_back(std::min(per, n - b));
  return caps;
}

void finish(const Input& in, Output& out, const Bounds& bounds, Attributes attrs) {
  PointCloud& c = *out.cloud;
  const size_t slash = in.name.find_last_of('/');
  c.name = slash == std::string::npos ? in.name : in.name.substr(slash + 1);
  FileInfo& fi = *out.info;
  fi.file = in.name;
  fi.points = c.size();
  fi.bounds = bounds;
  fi.origin = c.origin;
  fi.has_color = attrs.color;
  fi.has_intensity = attrs.intensity;
  fi.has_classification = attrs.classification;
  if (in.progress) in.progress->fraction.store(1.0);
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

uint8_t clamp_u8(double v) {
  if (!(v > 0.0)) return 0;
  if (v >= 255.0) return 255;
  return uint8_t(v + 0.5);
}

}  // namespace pr::io
