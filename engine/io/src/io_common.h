// Shared machinery of the format readers: the input view, number parsing, and the parallel
// point sink that turns decoded double-precision points into the cloud's float positions relative
// to a double origin, dropping non-finite points, without any per-point allocation.
#pragma once

#include <algorithm>
#include <atomic>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/io/io.h"
#include "engine/parallel.h"
#include "stride.h"

namespace pr::io {

/// The file's bytes and where to report. Readers never read outside [data, data + size).
/// The little-endian value of type T at `p`, unaligned. LAS, LAZ and E57 store their binary
/// parts little-endian, like the machines this builds for.
template <class T>
T get_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
/// Stores `v` at `p` little-endian, unaligned (get_le's inverse).
template <class T>
void put_le(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

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

/// False (with one line naming the sizes) when `points` points of `bytes_per_point` bytes would
/// take more than this machine's physical memory. A crafted header and chunk table (or COPC
/// hierarchy) can agree on any point count; refusing it here keeps bad input from ever making a
/// giant allocation, which would fail, or page the machine to a halt, before any point is decoded.
bool fits_in_memory(const Input& in, uint64_t points, uint64_t bytes_per_point, std::string* error);

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

// ---- text helpers ----

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}
inline bool is_sep(char c) {
  return is_space(c) || c == ',' || c == ';';
}

/// The words of a header line (PLY, PCD), split at blanks.
std::vector<std::string> tokens(const std::string& line);

/// Parses a number at [p, e) (a leading '+' allowed); returns the end or nullptr.
inline const char* parse_double(const char* p, const char* e, double& v) {
  if (p < e && *p == '+') ++p;
  auto r = std::from_chars(p, e, v);
  if (r.ec != std::errc()) {
    if (r.ec == std::errc::result_out_of_range && r.ptr != p) {
      v = (*p == '-') ? -INFINITY : INFINITY;
      return r.ptr;
    }
    return nullptr;
  }
  return r.ptr;
}

/// Splits a line into up to `max` number tokens separated by spaces, tabs, commas or semicolons.
/// Returns the count of tokens, or -1 when a token is not a number.
inline int parse_numbers(const char* p, const char* e, double* out, int max) {
  int n = 0;
  for (;;) {
    while (p < e && is_sep(*p)) ++p;
    if (p >= e) return n;
    double v;
    const char* q = parse_double(p, e, v);
    if (!q || (q < e && !is_sep(*q))) return -1;
    if (n < max) out[n] = v;
    ++n;
    p = q;
  }
}

/// True when [p, e) holds only spaces.
inline bool is_blank(const char* p, const char* e) {
  for (; p < e; ++p)
    if (!is_space(*p)) return false;
  return true;
}

/// Splits [b, e) into about `parts` pieces at line starts.
std::vector<std::pair<size_t, size_t>> split_lines(const char* base, size_t b, size_t e,
                                                   size_t parts);

/// Number of '\n'-terminated lines in [p, e) (a last line without '\n' counts).
size_t count_lines(const char* p, const char* e);

/// Number of non-blank lines in [p, e).
size_t count_records(const char* p, const char* e);

std::string lower(std::string s);

uint8_t clamp_u8(double v);

/// The records of text chunks for LoadOptions::max_points. A text body's point count is known
/// only once its lines are parsed, but the readers split it into chunks at newlines and count
/// each chunk's lines to size the cloud before parsing any; counting the non-blank lines there
/// (each a record: a point, or a stray line that gives none) yields the total and each chunk's
/// first record, so the budget keeps an even stride through the lines as it does through binary
/// records, and lines not kept are never parsed. A stray line that the stride picks gives no
/// point, so such a file may give a few points fewer than the budget.
struct TextRecords {
  std::vector<uint64_t> first;  ///< records before chunk c; first.back(): all of them
  Stride stride;

  TextRecords(const char* text, const std::vector<std::pair<size_t, size_t>>& chunks,
              const LoadOptions& o)
      : first(chunks.size() + 1, 0) {
    parallel_for(
        chunks.size(),
        [&](size_t a, size_t b) {
          for (size_t c = a; c < b; ++c)
            first[c + 1] = count_records(text + chunks[c].first, text + chunks[c].second);
        },
        0, 1);
    for (size_t c = 0; c < chunks.size(); ++c) first[c + 1] += first[c];
    stride = Stride::of(first.back(), o);
  }
  /// Points chunk c may give: its records that the stride keeps.
  std::vector<size_t> capacities() const {
    std::vector<size_t> caps(first.size() - 1);
    for (size_t c = 0; c < caps.size(); ++c)
      caps[c] = size_t(stride.before(first[c + 1]) - stride.before(first[c]));
    return caps;
  }
  /// Calls line(s, le) for each kept non-blank line of chunk c, [a, e) of `text`, in order; stops
  /// at the first line for which it returns false and returns false.
  template <class Line>
  bool each_kept(size_t c, const char* a, const char* e, Line&& line) const {
    uint64_t g = first[c];
    uint64_t next = stride.record(stride.before(g));
    while (a < e) {
      const char* nl = static_cast<const char*>(std::memchr(a, '\n', size_t(e - a)));
      const char* le = nl ? nl : e;
      if (!is_blank(a, le) && g++ == next) {
        next = stride.record(stride.before(g));
        if (!line(a, le)) return false;
      }
      a = nl ? nl + 1 : e;
    }
    return true;
  }
};

/// Reads the text body [begin, end) of `text` in parallel, one point a non-blank line, straight
/// into the cloud, then finish(): the origin comes from the first 64 lines, the work is split in
/// about 64 pieces at line starts. `parse(s, le, pt, values)` reads the line [s, le) into the
/// point and its `fields` (values[j] for fields[j], PointSink::fields); a line it rejects fails
/// the read with the message `describe(line_number, s, le)`. PLY and PCD ascii bodies, whose
/// headers declare the point count: the body holds exactly that many non-blank lines, so
/// LoadOptions::max_points keeps the same stride through them as through a binary body's records.
template <class Parse, class Describe>
bool read_text_rows(const Input& in, Output& out, Attributes attrs, std::vector<std::string> fields,
                    const char* text, size_t begin, size_t end, Parse&& parse, Describe&& describe,
                    std::string* error) {
  const auto chunks = split_lines(text, begin, end, 64);
  const TextRecords records(text, chunks, *in.options);
  const size_t nf = fields.size();
  Bounds sample;
  const char* s = text + begin;
  const char* const q = text + end;
  std::vector<float> scratch(nf);
  for (int k = 0; k < 64 && s < q; ++k) {
    const char* nl = static_cast<const char*>(std::memchr(s, '\n', size_t(q - s)));
    const char* le = nl ? nl : q;
    RawPoint pt;
    if (!is_blank(s, le) && parse(s, le, pt, scratch.data()) && std::isfinite(pt.x) &&
        std::isfinite(pt.y) && std::isfinite(pt.z))
      sample.extend({pt.x, pt.y, pt.z});
    s = nl ? nl + 1 : q;
  }
  PointSink sink(in, out, attrs, choose_origin(sample));
  sink.fields = std::move(fields);
  if (!sink.run(
          records.capacities(),
          [&](size_t c, BlockWriter& w, std::string& err) {
            std::vector<float> values(nf);
            return records.each_kept(c, text + chunks[c].first, text + chunks[c].second,
                                     [&](const char* a, const char* le) {
                                       RawPoint pt;
                                       if (!parse(a, le, pt, values.data())) {
                                         err = describe(count_lines(text, a) + 1, a, le);
                                         return false;
                                       }
                                       emit_with_fields(w, pt, sink.field_arrays(), values.data(),
                                                        nf);
                                       return true;
                                     });
          },
          error))
    return false;
  finish(in, out, sink.bounds, attrs);
  return true;
}

}  // namespace pr::io
