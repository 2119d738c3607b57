// Shared machinery of the readers: the input view, and the parallel point sink that turns decoded
// double-precision points into the cloud's float positions relative to a double origin, dropping
// non-finite points, without any per-point allocation.
#pragma once

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/io/base/bytes.h"
#include "engine/io/file_info.h"
#include "engine/parallel.h"
#include "engine/point_cloud.h"
#include "engine/progress.h"

namespace pr::io {

/// The file's bytes and where to report. Readers never read outside [data, data + size).
struct Input {
  const uint8_t* data = nullptr;
  size_t size = 0;
  std::string name;
  LoadProgress* progress = nullptr;
  const LoadOptions* options = nullptr;  ///< never null inside the readers
};

/// What a reader fills in besides the points.
struct Output {
  PointCloud* cloud = nullptr;
  FileInfo* info = nullptr;  // never null inside the readers
};

/// One decoded point, in the file's own coordinates.
struct RawPoint {
  double x, y, z;
  uint32_t color;
  float intensity;
  uint8_t classification;
  uint8_t returns = pack_returns(1, 1);
  uint16_t point_source = 0;
  double gps_time = 0.0;
};

/// Sets *error to "name: message" and returns false, so readers can `return fail(...)`.
bool fail(const Input& in, std::string* error, const std::string& message);

/// `message` with the query of every URL in it ("https://h/a.laz?X-Amz-Signature=...") shown as
/// "?..." : a presigned URL's signature or a token never reaches a message, a log or a screen.
std::string redact_url_queries(std::string message);

/// `message` on one line: its control characters (a file's strings can hold any) as '?'.
std::string one_line(std::string message);

/// `n` with a comma between groups of three digits ("133,332"), as the warnings print counts.
std::string group_digits(uint64_t n);

/// The one warning line of a file cut short (it ends before the points it declares, or inside a
/// record): "name: cut short: 133,332 of 200,000 points decoded (chunk 3 of 4 is truncated)".
/// `decoded`: the points the file holds before the cut (a point budget reads a stride of them);
/// `declared`: the points its header declares, or 0 for text that declares none ("name: cut
/// short: 1,234 points decoded (...)"); `why`: what was lost.
std::string cut_short_warning(const std::string& name, uint64_t decoded, uint64_t declared,
                              const std::string& why);

/// Adds cut_short_warning() of `in` to out.info's warnings: every reader reports a cut file so.
void warn_cut_short(const Input& in, Output& out, uint64_t decoded, uint64_t declared,
                    const std::string& why);

/// False (with one line naming the sizes) when `points` points of `bytes_per_point` bytes would
/// take more than this machine's physical memory. A crafted header and chunk table (or COPC
/// hierarchy) can agree on any point count; refusing it here keeps bad input from ever making a
/// giant allocation, which would fail, or page the machine to a halt, before any point is decoded.
bool fits_in_memory(const Input& in, uint64_t points, uint64_t bytes_per_point, std::string* error);

/// The memory fits_in_memory() measures against: the smaller of `bytes` and the physical memory
/// (0, the default: the physical memory alone). For the fuzzers and their replays, which run
/// under a memory limit of their own; process-wide.
void set_memory_limit(uint64_t bytes);

/// Which optional attributes the reader will produce.
struct Attributes {
  bool color = false, intensity = false, classification = false;
  bool returns = false, point_source = false, gps_time = false;
};

/// The origin for float positions: 0 when the sampled bounds are small (floats keep better than
/// 0.1 mm within +-1024), else the bounds' centre rounded to a whole unit so that positions up to
/// some kilometres from it keep millimetres (float's 24-bit mantissa: 1 mm at 8 km).
glm::dvec3 choose_origin(const Bounds& sample);

/// Decodes up to `capacity` points per block into the cloud in parallel. `produce(block, emit)`
/// decodes block `block` and calls emit(const RawPoint&) once per point (at most the block's
/// capacity). Points with non-finite coordinates are dropped; blocks are compacted afterwards.
/// Checks cancel between blocks and updates progress. Returns false (with message) on cancel or
/// when produce returns false (it then sets `block_error`).
class PointSink {
 public:
  PointSink(const Input& in, Output& out, Attributes attrs, glm::dvec3 origin)
      : in_(in), out_(out), attrs_(attrs), origin_(origin) {}

  /// capacities[i]: the most points block i may emit. Allocates their sum.
  template <class Produce>
  bool run(const std::vector<size_t>& capacities, Produce&& produce, std::string* error);

  Bounds bounds;  ///< of the kept points, file coordinates
  /// Named scalar fields (PLY properties, PCD fields): run() adds them to the cloud, and the
  /// reader writes each point's values with the point (emit_with_fields), not in a pass of their
  /// own, so that they follow it through dropped points and compaction.
  std::vector<std::string> fields;
  /// Their arrays, one per name in `fields`, while run() runs.
  float* const* field_arrays() const { return field_data_.data(); }

 private:
  /// Sizes the cloud's arrays for the sum of the capacities (refused when it would not fit in
  /// memory); start[b]: where block b writes, start[nb]: the sum.
  bool allocate(const std::vector<size_t>& caps, std::vector<size_t>& start, std::string* error);
  /// Moves each block's kept points down behind the previous blocks' and trims the arrays;
  /// `bounds` becomes the blocks' bounds together.
  void compact(const std::vector<size_t>& start, const std::vector<size_t>& kept,
               const std::vector<Bounds>& bb);
  // The fields' share of run(), out of line, so that run(), inside which the readers' point
  // loops are compiled, stays as it was for readers without fields.
  void add_fields(size_t total);
  void move_fields(size_t to, size_t from, size_t count);
  void resize_fields(size_t count);

  const Input& in_;
  Output& out_;
  Attributes attrs_;
  glm::dvec3 origin_;
  std::vector<float*> field_data_;
};

/// Emits points of one block into the cloud's arrays, tracking bounds.
struct BlockWriter {
  Float3* pos;
  uint32_t* col;
  float* inten;
  uint8_t* cls;
  uint8_t* ret;
  uint16_t* src;
  double* gps;
  size_t begin, cap, n = 0;
  glm::dvec3 origin;
  double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
  bool overflow = false;

  inline void operator()(const RawPoint& p) {
    if (!(std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))) return;
    if (n == cap) {
      overflow = true;
      return;
    }
    const size_t i = begin + n++;
    pos[i] = Float3{float(p.x - origin.x), float(p.y - origin.y), float(p.z - origin.z)};
    col[i] = p.color;
    if (inten) inten[i] = p.intensity;
    if (cls) cls[i] = p.classification;
    if (ret) ret[i] = p.returns;
    if (src) src[i] = p.point_source;
    if (gps) gps[i] = p.gps_time;
    lo[0] = std::min(lo[0], p.x), lo[1] = std::min(lo[1], p.y), lo[2] = std::min(lo[2], p.z);
    hi[0] = std::max(hi[0], p.x), hi[1] = std::max(hi[1], p.y), hi[2] = std::max(hi[2], p.z);
  }
};

/// Sizes `c` for `n` points: positions, colors and the attributes `attrs` keeps.
void resize_points(PointCloud& c, const Attributes& attrs, size_t n);

/// A writer of `cap` points into `c`'s arrays (those `attrs` keeps) from point `begin` on.
inline BlockWriter block_writer(PointCloud& c, const Attributes& attrs, size_t begin, size_t cap,
                                const glm::dvec3& origin) {
  return BlockWriter{c.positions.data(),
                     c.colors.data(),
                     attrs.intensity ? c.intensity.data() : nullptr,
                     attrs.classification ? c.classification.data() : nullptr,
                     attrs.returns ? c.returns.data() : nullptr,
                     attrs.point_source ? c.point_source.data() : nullptr,
                     attrs.gps_time ? c.gps_time.data() : nullptr,
                     begin,
                     cap,
                     0,
                     origin};
}

/// Emits p through w and, when it is kept, its `values` (one per PointSink::fields) into the
/// sink's field_arrays() at its index. Apart from BlockWriter, so that the loops of readers
/// without fields compile as they would if fields did not exist.
inline void emit_with_fields(BlockWriter& w, const RawPoint& p, float* const* arrays,
                             const float* values, size_t count) {
  const size_t k = w.n;
  w(p);
  if (w.n != k)
    for (size_t f = 0; f < count; ++f) arrays[f][w.begin + k] = values[f];
}

template <class Produce>
bool PointSink::run(const std::vector<size_t>& caps, Produce&& produce, std::string* error) {
  PointCloud& c = *out_.cloud;
  const size_t nb = caps.size();
  std::vector<size_t> start;
  if (!allocate(caps, start, error)) return false;
  std::vector<size_t> kept(nb, 0);
  std::vector<Bounds> bb(nb);
  std::vector<std::string> errs(nb);
  std::atomic<size_t> next{0}, done{0};
  std::atomic<bool> stop{false};
  const unsigned threads = unsigned(std::min<size_t>(default_threads(), std::max<size_t>(nb, 1)));
  parallel_for(
      threads,
      [&](size_t, size_t) {
        for (;;) {
          const size_t b = next.fetch_add(1);
          if (b >= nb || stop.load(std::memory_order_relaxed)) return;
          if (in_.progress && in_.progress->cancel.load(std::memory_order_relaxed)) {
            stop = true;
            errs[b] = "cancelled";
            return;
          }
          BlockWriter w = block_writer(c, attrs_, start[b], caps[b], origin_);
          if (!produce(b, w, errs[b]) || w.overflow) {
            if (errs[b].empty()) errs[b] = "more points than the header declares";
            stop = true;
            return;
          }
          kept[b] = w.n;
          if (w.n) {
            bb[b].extend(glm::dvec3(w.lo[0], w.lo[1], w.lo[2]));
            bb[b].extend(glm::dvec3(w.hi[0], w.hi[1], w.hi[2]));
          }
          const size_t d = done.fetch_add(1) + 1;
          if (in_.progress) in_.progress->fraction.store(double(d) / double(nb));
        }
      },
      threads, 1);
  for (size_t b = 0; b < nb; ++b) {
    if (!errs[b].empty()) {
      *out_.cloud = PointCloud{};
      return fail(in_, error, errs[b]);
    }
  }
  compact(start, kept, bb);
  return true;
}

/// Splits n records into blocks of at most `per` records.
std::vector<size_t> fixed_blocks(size_t n, size_t per = size_t(1) << 16);

/// Fills in the cloud's and info's common fields after a reader succeeded.
void finish(const Input& in, Output& out, const Bounds& bounds, Attributes attrs);

/// `s` in lower case (ASCII).
std::string lower(std::string s);

/// `v` rounded to the nearest byte value, clamped to 0..255 (NaN: 0).
uint8_t clamp_u8(double v);

}  // namespace pr::io
