// Text bodies (PLY and PCD ascii bodies, PTS, XYZ/TXT/CSV): splitting them at newlines into
// chunks that threads parse at once, the numbers of a line, and the records a point budget keeps.
#pragma once

#include <charconv>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "engine/io/base/io_common.h"
#include "engine/io/base/stride.h"
#include "engine/parallel.h"

namespace pr::io {

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

/// The start of the last line of [begin, end) when that line is not blank and no newline ends
/// it, as a file cut inside its last line ends; null otherwise.
inline const char* unterminated_last_line(const char* begin, const char* end) {
  if (begin >= end || end[-1] == '\n') return nullptr;
  const char* s = end;
  while (s > begin && s[-1] != '\n') --s;
  return is_blank(s, end) ? nullptr : s;
}

/// Splits [b, e) into about `parts` pieces at line starts.
std::vector<std::pair<size_t, size_t>> split_lines(const char* base, size_t b, size_t e,
                                                   size_t parts);

/// Number of '\n'-terminated lines in [p, e) (a last line without '\n' counts).
size_t count_lines(const char* p, const char* e);

/// Number of non-blank lines in [p, e).
size_t count_records(const char* p, const char* e);

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
