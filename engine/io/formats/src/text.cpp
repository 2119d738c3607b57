// Text formats: XYZ/TXT/CSV (columns separated by spaces, tabs, commas or semicolons, an
// optional header line naming them, LF or CRLF) and Leica PTS (blocks, each a line holding the
// point count followed by "x y z [intensity [r g b]]" lines). Lines are split into chunks at
// newlines and parsed in parallel; every chunk may hold at most as many points as lines.
#include <atomic>
#include <cstring>

#include "engine/io/formats/readers.h"
#include "text_rows.h"

namespace pr::io {

namespace {

struct Columns {
  int x = 0, y = 1, z = 2, i = -1, r = -1, g = -1, b = -1, c = -1;
  int needed = 3;     // columns a data line must have
  double cscale = 1;  // 255 when colors are written as 0..1
};

Columns columns_from_count(int n) {
  Columns k;
  if (n == 4 || n == 5) k.i = 3;
  if (n == 6) k.r = 3, k.g = 4, k.b = 5;
  if (n >= 7) k.i = 3, k.r = 4, k.g = 5, k.b = 6;
  return k;
}

bool columns_from_header(const char* s, const char* e, Columns& k) {
  Columns h;
  h.x = h.y = h.z = -1;
  int col = 0;
  while (s < e) {
    while (s < e && is_sep(*s)) ++s;
    if (s >= e) break;
    const char* t = s;
    while (t < e && !is_sep(*t)) ++t;
    std::string n;
    for (const char* u = s; u < t; ++u)
      if (*u != '/' && *u != '#' && *u != '"' && *u != '\'') n += *u;
    n = lower(n);
    if (n == "x")
      h.x = col;
    else if (n == "y")
      h.y = col;
    else if (n == "z")
      h.z = col;
    else if (n == "r" || n == "red")
      h.r = col;
    else if (n == "g" || n == "green")
      h.g = col;
    else if (n == "b" || n == "blue")
      h.b = col;
    else if (n == "i" || n == "intensity" || n == "scalar_intensity")
      h.i = col;
    else if (n == "classification")
      h.c = col;
    ++col;
    s = t;
  }
  if (h.x < 0 || h.y < 0 || h.z < 0) return false;
  if (h.r < 0 || h.g < 0 || h.b < 0) h.r = h.g = h.b = -1;
  k = h;
  return true;
}

const char* line_end(const char* s, const char* e, const char** next) {
  const char* nl = static_cast<const char*>(std::memchr(s, '\n', size_t(e - s)));
  *next = nl ? nl + 1 : e;
  return nl ? nl : e;
}

/// Where the points start and how to read their columns.
struct TextLayout {
  Columns k;
  bool have_header = false;
  const char* first_data = nullptr;  ///< the first line of x y z numbers
  const char* count_line = nullptr;  ///< PTS: the first block's point count
};

/// Finds the first data line, a header line before it, and the column count.
bool find_first_data(const Input& in, bool pts, TextLayout& t, std::string* error) {
  const char* end = reinterpret_cast<const char*>(in.data) + in.size;
  const char* s = reinterpret_cast<const char*>(in.data);
  if (in.size >= 3 && std::memcmp(s, "\xEF\xBB\xBF", 3) == 0) s += 3;  // UTF-8 byte-order mark
  int ncols = -1;
  for (int guard = 0; s < end && guard < 1000; ++guard) {
    const char* next;
    const char* le = line_end(s, end, &next);
    double v[64];
    const int n = parse_numbers(s, le, v, 64);
    if (n == 0 || (n < 0 && (*s == '#' || *s == '/'))) {
      if (n < 0 && !t.have_header) t.have_header = columns_from_header(s, le, t.k);
    } else if (n < 0) {
      if (t.have_header || !columns_from_header(s, le, t.k))
        return fail(in, error,
                    "line " + std::to_string(guard + 1) +
                        " is neither a header naming x, y, z nor numbers: '" +
                        std::string(s, std::min<size_t>(size_t(le - s), 60)) + "'");
      t.have_header = true;
    } else if (n == 1 && pts) {
      if (!t.count_line) t.count_line = s;  // the first block's point count
    } else if (n >= 3) {
      ncols = n;
      t.first_data = s;
      break;
    } else {
      return fail(in, error,
                  "line " + std::to_string(guard + 1) + " has " + std::to_string(n) +
                      " numbers; need at least x y z");
    }
    s = next;
  }
  // No line of numbers (blank lines, comments, a header, a PTS count of 0): a file without points.
  if (!t.first_data) return true;
  Columns& k = t.k;
  if (!t.have_header) k = columns_from_count(ncols);
  k.needed = 1 + std::max({k.x, k.y, k.z, k.i, k.r, k.g, k.b, k.c});
  if (k.needed > 64) return fail(in, error, "too many columns");
  return true;
}

/// Colors written as fractions (0..1) are scaled to 0..255; the first lines decide.
void detect_fraction_colors(const char* first_data, const char* end, Columns& k) {
  if (k.r < 0) return;
  double mx = 0;
  bool frac = false;
  const char* t = first_data;
  for (int m = 0; m < 256 && t < end; ++m) {
    const char* next;
    const char* le = line_end(t, end, &next);
    double v[64];
    if (parse_numbers(t, le, v, 64) >= k.needed)
      for (int c : {k.r, k.g, k.b}) {
        mx = std::max(mx, v[c]);
        frac = frac || v[c] != std::floor(v[c]);
      }
    t = next;
  }
  if (frac && mx <= 1.0) k.cscale = 255.0;
}

/// The line [a, b) as a point: 1, 0 for a blank line (or a PTS count line), -1 for a line that
/// is not a point.
inline int parse_point_line(const char* a, const char* b, const Columns& k, bool pts,
                            RawPoint& pt) {
  double v[64];
  const int n = parse_numbers(a, b, v, 64);
  if (n == 0) return 0;  // blank
  if (n < k.needed) return n == 1 && pts ? 0 : -1;
  pt.x = v[k.x], pt.y = v[k.y], pt.z = v[k.z];
  pt.color = k.r >= 0 ? rgba(clamp_u8(v[k.r] * k.cscale), clamp_u8(v[k.g] * k.cscale),
                             clamp_u8(v[k.b] * k.cscale))
                      : rgba(255, 255, 255);
  pt.intensity = k.i >= 0 ? float(v[k.i]) : 0.0f;
  pt.classification = k.c >= 0 ? clamp_u8(v[k.c]) : 0;
  return 1;
}

/// Bounds of evenly spaced lines through the file, for the origin.
Bounds sample_lines(const Input& in, const TextLayout& t, bool pts) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  Bounds sample;
  const size_t span = in.size - size_t(t.first_data - text);
  for (int m = 0; m < 256; ++m) {
    const char* s = t.first_data + span * size_t(m) / 256;
    if (s != t.first_data) {
      const void* nl = std::memchr(s, '\n', size_t(end - s));
      if (!nl) break;
      s = static_cast<const char*>(nl) + 1;
    }
    const char* next;
    const char* le = line_end(s, end, &next);
    RawPoint pt;
    if (parse_point_line(s, le, t.k, pts, pt) == 1 && std::isfinite(pt.x) && std::isfinite(pt.y) &&
        std::isfinite(pt.z))
      sample.extend({pt.x, pt.y, pt.z});
  }
  return sample;
}

/// PTS: each block is a count line and that many point lines; lines after the last block are
/// not points. The byte ranges of the blocks' point lines; `declared`: the points their counts
/// declare. A block that the file ends inside is cut short (`cut`): its lines up to the end.
void pts_regions(const Input& in, const char* count_line,
                 std::vector<std::pair<size_t, size_t>>& regions, uint64_t& declared, bool& cut) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  const char* t = count_line;
  while (t < end) {
    const char* next;
    const char* le = line_end(t, end, &next);
    double v[2];
    const int n = parse_numbers(t, le, v, 2);
    if (n == 0) {
      t = next;
      continue;
    }
    if (n != 1 || !(v[0] >= 0) || v[0] != std::floor(v[0])) break;
    // a count beyond the file's size cannot be met (and must not overflow the conversion)
    uint64_t want = v[0] > double(in.size) ? uint64_t(in.size) + 1 : uint64_t(v[0]);
    declared += v[0] < 1e18 ? uint64_t(v[0]) : uint64_t(1e18);
    const char* rb = next;
    t = next;
    while (want > 0 && t < end) {
      const char* nx;
      const char* e2 = line_end(t, end, &nx);
      for (const char* u = t; u < e2; ++u)
        if (!is_space(*u)) {
          --want;
          break;
        }
      t = nx;
    }
    regions.emplace_back(size_t(rb - text), size_t(t - text));
    if (want > 0) {
      cut = true;
      return;
    }
  }
}

/// A file cut inside its last line: the start of that line when the text ends without a newline
/// and the line is not a whole point (or `cut` says the file is cut short already, so that even
/// a line that parses may have lost digits); else null.
const char* cut_last_line(const char* begin, const char* end, const Columns& k, bool pts,
                          bool cut) {
  const char* s = unterminated_last_line(begin, end);
  RawPoint pt;
  return s && (cut || parse_point_line(s, end, k, pts, pt) < 0) ? s : nullptr;
}

/// Parses the chunks' lines in parallel into the cloud. A few stray lines (a repeated header, a
/// comment) are skipped; many mean this is not a table of points, and fail the read.
bool decode_chunks(const Input& in, Output& out, const TextLayout& t, bool pts,
                   const std::vector<std::pair<size_t, size_t>>& chunks, uint64_t& records_read,
                   std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  const Columns k = t.k;
  auto parse_line = [&](const char* a, const char* b, RawPoint& pt) -> int {
    return parse_point_line(a, b, k, pts, pt);
  };
  const Attributes attrs{k.r >= 0, k.i >= 0, k.c >= 0};
  // The records are the non-blank lines of the regions (TextRecords: a point budget keeps an
  // even stride through them, and only the lines kept are parsed).
  const TextRecords records(text, chunks, *in.options);
  records_read = records.first.back();
  const std::vector<size_t> caps = records.capacities();
  std::vector<size_t> bad(chunks.size(), 0), first_bad(chunks.size(), SIZE_MAX);
  PointSink sink(in, out, attrs, choose_origin(sample_lines(in, t, pts)));
  if (!sink.run(
          caps,
          [&](size_t c, BlockWriter& w, std::string&) {
            return records.each_kept(c, text + chunks[c].first, text + chunks[c].second,
                                     [&](const char* a, const char* le) {
                                       RawPoint pt;
                                       const int r = parse_line(a, le, pt);
                                       if (r == 1) {
                                         w(pt);
                                       } else if (r < 0) {
                                         if (bad[c]++ == 0) first_bad[c] = size_t(a - text);
                                       }
                                       return true;
                                     });
          },
          error))
    return false;
  size_t nbad = 0, lines = 0, fb = SIZE_MAX;
  for (size_t c = 0; c < chunks.size(); ++c) {
    nbad += bad[c], lines += caps[c];
    fb = std::min(fb, first_bad[c]);
  }
  if (nbad > 0 && (out.cloud->empty() || nbad > std::max<size_t>(10, lines / 100))) {
    const char* s = text + fb;
    const char* next;
    const char* le = line_end(s, end, &next);
    *out.cloud = PointCloud{};
    return fail(in, error,
                std::to_string(nbad) + " lines are not points, e.g. line " +
                    std::to_string(count_lines(text, s) + 1) + ": '" +
                    std::string(s, std::min<size_t>(size_t(le - s), 60)) + "'");
  }
  finish(in, out, sink.bounds, attrs);
  return true;
}

}  // namespace

bool read_text(const Input& in, Output& out, bool pts, std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  TextLayout t;
  if (!find_first_data(in, pts, t, error)) return false;
  std::string cols = "x y z";
  if (t.k.i >= 0) cols += " i";
  if (t.k.r >= 0) cols += " r g b";
  out.info->version = cols + (t.have_header ? " (header)" : "");
  std::vector<std::pair<size_t, size_t>> regions;
  uint64_t declared = 0;  // PTS: the points its blocks declare
  bool cut = false;
  if (!t.first_data) {  // no point: a file without points, or a PTS block cut before its first
    if (pts && t.count_line) pts_regions(in, t.count_line, regions, declared, cut);
    finish(in, out, Bounds{}, Attributes{t.k.r >= 0, t.k.i >= 0, t.k.c >= 0});
    if (cut) warn_cut_short(in, out, 0, declared, "the last PTS block ends early");
    return true;
  }
  detect_fraction_colors(t.first_data, text + in.size, t.k);
  // PTS: the blocks' point lines; XYZ: everything after the header.
  if (pts && t.count_line)
    pts_regions(in, t.count_line, regions, declared, cut);
  else
    regions.emplace_back(size_t(t.first_data - text), in.size);
  // A last line the file ends inside is not read.
  if (!regions.empty() && regions.back().second == in.size)
    if (const char* s = cut_last_line(text + regions.back().first, text + in.size, t.k, pts, cut)) {
      regions.back().second = size_t(s - text);
      cut = true;
    }
  std::vector<std::pair<size_t, size_t>> chunks;
  for (const auto& r : regions) {
    const auto c = split_lines(text, r.first, r.second, size_t(default_threads()) * 16);
    chunks.insert(chunks.end(), c.begin(), c.end());
  }
  uint64_t records = 0;
  if (!decode_chunks(in, out, t, pts, chunks, records, error)) return false;
  if (cut)
    warn_cut_short(in, out, in.options->max_points ? records : out.cloud->size(), declared,
                   declared ? "the last PTS block ends early" : "the last line ends mid-line");
  return true;
}

}  // namespace pr::io
