// PCD (Point Cloud Library) 0.5 to 0.7: ascii, binary and binary_compressed (LZF, fields stored
// one after another: all x, then all y, ...). Fields in any order and case; rgb/rgba packed
// into one 32-bit value (0x00RRGGBB, often stored as a float's bits); organized clouds
// (HEIGHT > 1) keep their invalid points as NaN, which we drop.
#include <cstring>

#include "engine/io/formats/readers.h"
#include "lzf.h"
#include "text_rows.h"

namespace pr::io {

namespace {

struct Field {
  std::string name;
  size_t size = 4;
  char type = 'F';
  size_t count = 1;
  size_t offset = 0;  // in a binary record
  size_t token = 0;   // first token in an ascii line
};

inline double read_value(const uint8_t* p, char type, size_t size) {
  switch (type) {
    case 'F':
      if (size == 8) {
        double v;
        std::memcpy(&v, p, 8);
        return v;
      } else {
        float v;
        std::memcpy(&v, p, 4);
        return double(v);
      }
    case 'U':
      switch (size) {
        case 1:
          return double(*p);
        case 2: {
          uint16_t v;
          std::memcpy(&v, p, 2);
          return double(v);
        }
        case 4: {
          uint32_t v;
          std::memcpy(&v, p, 4);
          return double(v);
        }
        default: {
          uint64_t v;
          std::memcpy(&v, p, 8);
          return double(v);
        }
      }
    default:
      switch (size) {
        case 1:
          return double(int8_t(*p));
        case 2: {
          int16_t v;
          std::memcpy(&v, p, 2);
          return double(v);
        }
        case 4: {
          int32_t v;
          std::memcpy(&v, p, 4);
          return double(v);
        }
        default: {
          int64_t v;
          std::memcpy(&v, p, 8);
          return double(v);
        }
      }
  }
}

/// The packed 0x00RRGGBB word of an rgb field (binary).
inline uint32_t read_packed(const uint8_t* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}

inline uint32_t unpack_rgb(uint32_t v) {
  return rgba(uint8_t(v >> 16), uint8_t(v >> 8), uint8_t(v));
}

enum { kX, kY, kZ, kPacked, kR, kG, kB, kI, kC, kFields };

/// The header: the fields, the point count, the body's kind and offset, and which fields make
/// the point.
struct PcdHeader {
  std::vector<Field> fields;
  uint64_t points = 0;
  std::string version = "0.7", data_kind;
  size_t data_off = 0;
  size_t record_size = 0, tokens = 0;  ///< bytes of a binary record, numbers of an ascii line
  int f[kFields];                      ///< field index per role, -1 when absent
  bool separate = false;               ///< colors in r, g, b fields (not one packed rgb)
  Attributes attrs;
  /// The other single-valued fields, kept by name (ScalarField) in file order.
  std::vector<size_t> extra;
  std::vector<std::string> extra_names;
};

/// What the header lines give before they are checked against each other.
struct HeaderLines {
  std::vector<size_t> sizes, counts;
  std::vector<char> types;
  uint64_t width = 0, height = 1;
  bool have_points = false;
};

bool count_number(const std::string& s, uint64_t& v) {
  double d;
  if (!parse_double(s.data(), s.data() + s.size(), d) || !(d >= 0) || d > 1e15 ||
      d != std::floor(d))
    return false;
  v = uint64_t(d);
  return true;
}

/// One header line (tokens `tok`, not empty) into h and hl; false with the problem in `msg`.
bool header_line(const std::vector<std::string>& tok, PcdHeader& h, HeaderLines& hl,
                 std::string& msg) {
  const std::string key = lower(tok[0]);
  if (key == "version") {
    if (tok.size() > 1) h.version = tok[1][0] == '.' ? "0" + tok[1] : tok[1];
  } else if (key == "fields" || key == "columns") {
    h.fields.clear();
    for (size_t i = 1; i < tok.size(); ++i) h.fields.push_back(Field{tok[i]});
  } else if (key == "size" || key == "count") {
    auto& dst = key == "size" ? hl.sizes : hl.counts;
    dst.clear();
    for (size_t i = 1; i < tok.size(); ++i) {
      uint64_t v;
      if (!count_number(tok[i], v) || v == 0 || v > 1 << 20)
        return msg = "bad " + key + " '" + tok[i] + "'", false;
      dst.push_back(size_t(v));
    }
  } else if (key == "type") {
    hl.types.clear();
    for (size_t i = 1; i < tok.size(); ++i) {
      const char t = char(std::toupper(static_cast<unsigned char>(tok[i][0])));
      if (tok[i].size() != 1 || (t != 'F' && t != 'U' && t != 'I'))
        return msg = "unknown type '" + tok[i] + "'", false;
      hl.types.push_back(t);
    }
  } else if (key == "width" || key == "height" || key == "points") {
    uint64_t v;
    if (tok.size() < 2 || !count_number(tok[1], v)) return msg = "bad " + key, false;
    if (key == "width")
      hl.width = v;
    else if (key == "height")
      hl.height = v;
    else
      h.points = v, hl.have_points = true;
  } else if (key == "viewpoint") {
    // The sensor pose; points are stored in the cloud's frame, so it does not move them.
  } else if (key == "data") {
    if (tok.size() < 2) return msg = "DATA without a kind", false;
    h.data_kind = lower(tok[1]);
    if (h.data_kind != "ascii" && h.data_kind != "binary" && h.data_kind != "binary_compressed")
      return msg = "unknown DATA kind '" + tok[1] + "'", false;
  } else {
    return msg = "unknown keyword '" + tok[0] + "'", false;
  }
  return true;
}

/// Sizes, types, offsets and roles of the fields, once the header's lines are read.
bool layout_fields(const Input& in, PcdHeader& h, const HeaderLines& hl, std::string* error) {
  int* f = h.f;
  for (int k = 0; k < kFields; ++k) f[k] = -1;
  for (size_t i = 0; i < h.fields.size(); ++i) {
    Field& fd = h.fields[i];
    fd.size = hl.sizes[i], fd.type = hl.types[i], fd.count = hl.counts[i];
    if ((fd.type == 'F' && fd.size != 4 && fd.size != 8) ||
        (fd.size != 1 && fd.size != 2 && fd.size != 4 && fd.size != 8))
      return fail(in, error,
                  "PCD field '" + fd.name + "' has unsupported size " + std::to_string(fd.size));
    fd.offset = h.record_size;
    fd.token = h.tokens;
    h.record_size += fd.size * fd.count;
    h.tokens += fd.count;
    const std::string n = lower(fd.name);
    const int k = int(i);
    auto set = [&](int which) {
      if (f[which] < 0) f[which] = k;
    };
    if (n == "x")
      set(kX);
    else if (n == "y")
      set(kY);
    else if (n == "z")
      set(kZ);
    else if ((n == "rgb" || n == "rgba") && fd.size == 4)
      set(kPacked);
    else if (n == "r" || n == "red")
      set(kR);
    else if (n == "g" || n == "green")
      set(kG);
    else if (n == "b" || n == "blue")
      set(kB);
    else if (n == "intensity")
      set(kI);
    else if (n == "classification")
      set(kC);
  }
  return true;
}

/// The header's lines up to DATA, then the fields' layout, roles and the fields kept by name.
bool parse_pcd_header(const Input& in, PcdHeader& h, std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  HeaderLines hl;
  const char* p = text;
  int line_no = 0;
  while (p < end && h.data_kind.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* le = nl ? nl : end;
    ++line_no;
    std::string line(p, le);
    p = nl ? nl + 1 : end;
    if (line_no > 1000) return fail(in, error, "PCD header has no DATA line");
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    const std::vector<std::string> tok = tokens(line);
    std::string msg;
    if (!tok.empty() && !header_line(tok, h, hl, msg))
      return fail(in, error, "PCD header line " + std::to_string(line_no) + ": " + msg);
  }
  if (h.data_kind.empty()) return fail(in, error, "PCD header has no DATA line");
  if (h.fields.empty()) return fail(in, error, "PCD header has no FIELDS line");
  if (hl.counts.empty()) hl.counts.assign(h.fields.size(), 1);
  if (hl.sizes.size() != h.fields.size() || hl.types.size() != h.fields.size() ||
      hl.counts.size() != h.fields.size())
    return fail(in, error, "PCD header: FIELDS, SIZE, TYPE and COUNT have different lengths");
  if (!hl.have_points) h.points = hl.width * hl.height;
  if (!layout_fields(in, h, hl, error)) return false;
  const int* f = h.f;
  if (f[kX] < 0 || f[kY] < 0 || f[kZ] < 0) return fail(in, error, "PCD file has no x, y, z fields");
  h.separate = f[kR] >= 0 && f[kG] >= 0 && f[kB] >= 0;
  h.attrs = Attributes{f[kPacked] >= 0 || h.separate, f[kI] >= 0, f[kC] >= 0};
  // `_` is padding.
  for (size_t k = 0; k < h.fields.size(); ++k) {
    bool used = h.fields[k].count != 1 || h.fields[k].name == "_";
    for (int u = 0; u < kFields; ++u) used |= f[u] == int(k);
    if (used) continue;
    h.extra.push_back(k);
    h.extra_names.push_back(h.fields[k].name);
  }
  h.data_off = size_t(p - text);
  return true;
}

/// A binary body: field k of point i at base[k] + i * step[k], in the file (binary) or in
/// `unpacked` (binary_compressed); `points` of them whole (fewer than the header's when the file
/// is cut short, and then `cut` says what was lost).
struct BinaryFields {
  std::vector<uint8_t> unpacked;
  std::vector<const uint8_t*> base;
  std::vector<size_t> step;
  uint64_t points = 0;
  std::string cut;
};

/// binary: records of all fields, one after another.
void binary_fields(const Input& in, const PcdHeader& h, BinaryFields& b) {
  const size_t avail = in.size - h.data_off;
  b.points = h.points;
  if (h.points > avail / h.record_size) {
    b.points = avail / h.record_size;
    b.cut = "the binary data ends early";
  }
  b.base.resize(h.fields.size());
  b.step.resize(h.fields.size());
  for (size_t i = 0; i < h.fields.size(); ++i)
    b.base[i] = in.data + h.data_off + h.fields[i].offset, b.step[i] = h.record_size;
}

/// The points whose every field the reader uses lies within the first `got` bytes of a
/// compressed block whose fields start at `offset` (all x, then all y, ...).
uint64_t points_within(const PcdHeader& h, const std::vector<size_t>& offset,
                       const std::vector<size_t>& step, size_t got) {
  uint64_t n = h.points;
  auto within = [&](int k) {
    if (k < 0) return;
    const size_t begin = offset[size_t(k)];
    n = std::min<uint64_t>(n, got > begin ? (got - begin) / step[size_t(k)] : 0);
  };
  for (int u = 0; u < kFields; ++u) within(h.f[u]);
  for (size_t k : h.extra) within(int(k));
  return n;
}

/// binary_compressed: one LZF block (compressed and uncompressed sizes first) that holds each
/// field for all points, one field after another. A file that ends inside the block gives the
/// points whose fields its whole runs hold: the first fields of the block come whole, the later
/// ones cut, so a cut block gives few points or none.
bool compressed_fields(const Input& in, const PcdHeader& h, BinaryFields& b, std::string* error) {
  const size_t avail = in.size - h.data_off;
  b.base.assign(h.fields.size(), nullptr);
  b.step.resize(h.fields.size());
  if (avail < 8) {
    if (h.points) b.cut = "the file ends before its compressed block";
    return true;
  }
  uint32_t csize, usize;
  std::memcpy(&csize, in.data + h.data_off, 4);
  std::memcpy(&usize, in.data + h.data_off + 4, 4);
  if (h.points > usize / h.record_size || uint64_t(usize) != h.points * h.record_size)
    return fail(in, error,
                "PCD compressed block holds " + std::to_string(usize) +
                    " bytes, the header needs " + std::to_string(h.points * h.record_size));
  // LZF expands at most 264 bytes per 3 input bytes, so a larger claim is corrupt (and must not
  // make us allocate). The block is one LZF stream whose matches reach back into what it has
  // already produced, so it is decompressed whole even when a point budget keeps few points.
  if (uint64_t(usize) > uint64_t(csize) * 88 + 64)
    return fail(in, error, "PCD compressed block sizes are inconsistent");
  const bool cut = csize > avail - 8;
  const size_t have = cut ? avail - 8 : csize;
  std::vector<size_t> offset(h.fields.size());
  size_t o = 0;
  for (size_t i = 0; i < h.fields.size(); ++i) {
    offset[i] = o;
    b.step[i] = h.fields[i].size * h.fields[i].count;
    o += b.step[i] * size_t(h.points);
  }
  // A cut block holds what its bytes can expand to, at most: no more is allocated.
  b.unpacked.resize(cut ? size_t(std::min<uint64_t>(usize, uint64_t(have) * 88 + 64)) : usize);
  b.points = h.points;
  if (cut) {
    const size_t got =
        lzf_decompress_prefix(in.data + h.data_off + 8, have, b.unpacked.data(), b.unpacked.size());
    b.points = points_within(h, offset, b.step, got);
    b.cut = "the compressed block ends early";
  } else if (!lzf_decompress(in.data + h.data_off + 8, csize, b.unpacked.data(), usize)) {
    return fail(in, error, "corrupt LZF data in the PCD compressed block");
  }
  for (size_t i = 0; i < h.fields.size(); ++i)
    if (offset[i] < b.unpacked.size()) b.base[i] = b.unpacked.data() + offset[i];
  return true;
}

/// 16-bit (or wider) separate color channels are scaled down only when some value exceeds 255
/// (as in LAS): the factor to apply, 1 when they are 8-bit values.
double color_scale(const PcdHeader& h, const BinaryFields& b) {
  const size_t n = size_t(b.points);
  const int* f = h.f;
  if (!h.separate || f[kPacked] >= 0 || h.fields[f[kR]].size < 2) return 1.0;
  auto val = [&](int k, size_t i) {
    return read_value(b.base[k] + i * b.step[k], h.fields[k].type, h.fields[k].size);
  };
  double mx = 0;
  for (size_t i = 0; i < n; ++i) mx = std::max({mx, val(f[kR], i), val(f[kG], i), val(f[kB], i)});
  if (mx <= 255.0) return 1.0;
  return h.fields[f[kR]].size == 2 ? 1.0 / 256.0 : 1.0 / 16777216.0;
}

/// Decodes the points of a binary body in parallel blocks.
bool decode_binary(const Input& in, Output& out, const PcdHeader& h, const BinaryFields& b,
                   std::string* error) {
  const std::vector<Field>& fields = h.fields;
  const std::vector<const uint8_t*>& base = b.base;
  const std::vector<size_t>& step = b.step;
  int f[kFields];
  std::copy(h.f, h.f + kFields, f);
  const bool separate = h.separate;
  const size_t n = size_t(b.points), nextra = h.extra.size();
  auto val = [&](int k, size_t i) {
    return read_value(base[k] + i * step[k], fields[k].type, fields[k].size);
  };
  const double shift16 = color_scale(h, b);
  auto decode = [&](size_t i, RawPoint& pt) {
    pt.x = val(f[kX], i);
    pt.y = val(f[kY], i);
    pt.z = val(f[kZ], i);
    if (f[kPacked] >= 0) {
      pt.color = unpack_rgb(read_packed(base[f[kPacked]] + i * step[f[kPacked]]));
    } else if (separate) {
      pt.color = rgba(clamp_u8(std::floor(val(f[kR], i) * shift16)),
                      clamp_u8(std::floor(val(f[kG], i) * shift16)),
                      clamp_u8(std::floor(val(f[kB], i) * shift16)));
    } else {
      pt.color = rgba(255, 255, 255);
    }
    pt.intensity = f[kI] >= 0 ? float(val(f[kI], i)) : 0.0f;
    pt.classification = f[kC] >= 0 ? clamp_u8(val(f[kC], i)) : 0;
  };
  Bounds sample;
  for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 4096)) {
    RawPoint pt;
    decode(i, pt);
    if (std::isfinite(pt.x) && std::isfinite(pt.y) && std::isfinite(pt.z))
      sample.extend({pt.x, pt.y, pt.z});
  }
  PointSink sink(in, out, h.attrs, choose_origin(sample));
  sink.fields = h.extra_names;
  // Cloud index k holds point stride.record(k): every point, or an even stride through them.
  const Stride stride = Stride::of(b.points, *in.options);
  const size_t keep = size_t(stride.keep);
  const bool plain = stride.all() && nextra == 0;
  if (!sink.run(
          fixed_blocks(keep),
          [&](size_t blk, BlockWriter& w, std::string&) {
            const size_t k0 = blk << 16, k1 = std::min(keep, k0 + (size_t(1) << 16));
            if (plain) {
              // Every point and no fields, the common case: a loop of its own, free of the
              // record lookup and the fields' bookkeeping.
              for (size_t i = k0; i < k1; ++i) {
                RawPoint pt;
                decode(i, pt);
                w(pt);
              }
              return true;
            }
            std::vector<float> values(nextra);
            for (size_t k = k0; k < k1; ++k) {
              const size_t i = size_t(stride.record(k));
              RawPoint pt;
              decode(i, pt);
              for (size_t j = 0; j < nextra; ++j) values[j] = float(val(int(h.extra[j]), i));
              emit_with_fields(w, pt, sink.field_arrays(), values.data(), nextra);
            }
            return true;
          },
          error))
    return false;
  finish(in, out, sink.bounds, h.attrs);
  return true;
}

/// Reads the ascii line [s, e) into a point and its fields.
inline bool parse_ascii_line(const char* s, const char* e, const PcdHeader& h, RawPoint& pt,
                             float* values) {
  const std::vector<Field>& fields = h.fields;
  const int* f = h.f;
  double v[4096];
  const int got = parse_numbers(s, e, v, int(h.tokens));
  if (got < int(h.tokens)) return false;
  pt.x = v[fields[f[kX]].token];
  pt.y = v[fields[f[kY]].token];
  pt.z = v[fields[f[kZ]].token];
  if (f[kPacked] >= 0) {
    const Field& fd = fields[f[kPacked]];
    const double c = v[fd.token];
    uint32_t w = 0;
    if (fd.type == 'F') {
      const float fl = float(c);
      std::memcpy(&w, &fl, 4);
    } else if (c >= 0 && c < 4294967296.0) {
      w = uint32_t(c);
    }
    pt.color = unpack_rgb(w);
  } else if (h.separate) {
    pt.color = rgba(clamp_u8(v[fields[f[kR]].token]), clamp_u8(v[fields[f[kG]].token]),
                    clamp_u8(v[fields[f[kB]].token]));
  } else {
    pt.color = rgba(255, 255, 255);
  }
  pt.intensity = f[kI] >= 0 ? float(v[fields[f[kI]].token]) : 0.0f;
  pt.classification = f[kC] >= 0 ? clamp_u8(v[fields[f[kC]].token]) : 0;
  for (size_t j = 0; j < h.extra.size(); ++j) values[j] = float(v[fields[h.extra[j]].token]);
  return true;
}

/// ascii: one point per line, tokens separated by spaces, tabs or commas. A file that ends
/// before its lines do gives the lines present (`points`, `cut`), but for a last line without its
/// newline (it may have lost digits): the same holds for a last line that does not parse.
bool read_ascii(const Input& in, Output& out, const PcdHeader& h, uint64_t& points,
                std::string& cut, std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  const char* q = text + h.data_off;
  uint64_t left = h.points;
  while (left > 0 && q < end) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', size_t(end - q)));
    const char* le = nl ? nl : end;
    if (!is_blank(q, le)) --left;
    q = nl ? nl + 1 : end;
  }
  if (h.tokens > 4096) return fail(in, error, "PCD has too many values per point");
  points = h.points - left;
  if (left) cut = "the point lines end early";
  auto parse = [&](const char* s, const char* e, RawPoint& pt, float* values) {
    return parse_ascii_line(s, e, h, pt, values);
  };
  if (const char* last = q == end ? unterminated_last_line(text + h.data_off, q) : nullptr) {
    RawPoint pt;
    std::vector<float> values(h.extra.size());
    if (left || !parse(last, q, pt, values.data())) {
      q = last;
      points--;
      if (!left) cut = "the last point line ends mid-line";
    }
  }
  return read_text_rows(
      in, out, h.attrs, h.extra_names, text, h.data_off, size_t(q - text), parse,
      [&](size_t line, const char*, const char*) {
        return "PCD line " + std::to_string(line) + ": expected " + std::to_string(h.tokens) +
               " numbers";
      },
      error);
}

}  // namespace

bool read_pcd(const Input& in, Output& out, std::string* error) {
  PcdHeader h;
  if (!parse_pcd_header(in, h, error)) return false;
  out.info->version = h.version + " " + h.data_kind;
  uint64_t points = 0;
  std::string cut;
  if (h.data_kind == "ascii") {
    if (!read_ascii(in, out, h, points, cut, error)) return false;
  } else {
    BinaryFields b;
    if (h.data_kind == "binary")
      binary_fields(in, h, b);
    else if (!compressed_fields(in, h, b, error))
      return false;
    if (!decode_binary(in, out, h, b, error)) return false;
    points = b.points;
    cut = b.cut;
  }
  if (!cut.empty()) warn_cut_short(in, out, points, h.points, cut);
  return true;
}

}  // namespace pr::io
