// PCD (Point Cloud Library) 0.5 to 0.7: ascii, binary and binary_compressed (LZF, fields stored
// one after another: all x, then all y, ...). Fields in any order and case; rgb/rgba packed
// into one 32-bit value (0x00RRGGBB, often stored as a float's bits); organized clouds
// (HEIGHT > 1) keep their invalid points as NaN, which we drop.
#include <cstring>

#include "readers.h"

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

}  // namespace

bool read_pcd(const Input& in, Output& out, std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  std::vector<Field> fields;
  std::vector<size_t> sizes, counts;
  std::vector<char> types;
  uint64_t width = 0, height = 1, points = 0;
  bool have_points = false;
  std::string version = "0.7", data_kind;
  const char* p = text;
  int line_no = 0;
  while (p < end && data_kind.empty()) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* le = nl ? nl : end;
    ++line_no;
    std::string line(p, le);
    p = nl ? nl + 1 : end;
    if (line_no > 1000) return fail(in, error, "PCD header has no DATA line");
    const size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::vector<std::string> tok;
    for (size_t i = 0; i < line.size();) {
      while (i < line.size() && is_space(line[i])) ++i;
      size_t j = i;
      while (j < line.size() && !is_space(line[j])) ++j;
      if (j > i) tok.push_back(line.substr(i, j - i));
      i = j;
    }
    if (tok.empty()) continue;
    const std::string key = lower(tok[0]);
    const std::string where = "PCD header line " + std::to_string(line_no) + ": ";
    auto number = [&](const std::string& s, uint64_t& v) {
      double d;
      if (!parse_double(s.data(), s.data() + s.size(), d) || !(d >= 0) || d > 1e15 ||
          d != std::floor(d))
        return false;
      v = uint64_t(d);
      return true;
    };
    if (key == "version") {
      if (tok.size() > 1) version = tok[1][0] == '.' ? "0" + tok[1] : tok[1];
    } else if (key == "fields" || key == "columns") {
      fields.clear();
      for (size_t i = 1; i < tok.size(); ++i) fields.push_back(Field{tok[i]});
    } else if (key == "size" || key == "count") {
      auto& dst = key == "size" ? sizes : counts;
      dst.clear();
      for (size_t i = 1; i < tok.size(); ++i) {
        uint64_t v;
        if (!number(tok[i], v) || v == 0 || v > 1 << 20)
          return fail(in, error, where + "bad " + key + " '" + tok[i] + "'");
        dst.push_back(size_t(v));
      }
    } else if (key == "type") {
      types.clear();
      for (size_t i = 1; i < tok.size(); ++i) {
        const char t = char(std::toupper(static_cast<unsigned char>(tok[i][0])));
        if (tok[i].size() != 1 || (t != 'F' && t != 'U' && t != 'I'))
          return fail(in, error, where + "unknown type '" + tok[i] + "'");
        types.push_back(t);
      }
    } else if (key == "width" || key == "height" || key == "points") {
      uint64_t v;
      if (tok.size() < 2 || !number(tok[1], v)) return fail(in, error, where + "bad " + key);
      if (key == "width")
        width = v;
      else if (key == "height")
        height = v;
      else
        points = v, have_points = true;
    } else if (key == "viewpoint") {
      // The sensor pose; points are stored in the cloud's frame, so it does not move them.
    } else if (key == "data") {
      if (tok.size() < 2) return fail(in, error, where + "DATA without a kind");
      data_kind = lower(tok[1]);
      if (data_kind != "ascii" && data_kind != "binary" && data_kind != "binary_compressed")
        return fail(in, error, where + "unknown DATA kind '" + tok[1] + "'");
    } else {
      return fail(in, error, where + "unknown keyword '" + tok[0] + "'");
    }
  }
  if (data_kind.empty()) return fail(in, error, "PCD header has no DATA line");
  if (fields.empty()) return fail(in, error, "PCD header has no FIELDS line");
  if (counts.empty()) counts.assign(fields.size(), 1);
  if (sizes.size() != fields.size() || types.size() != fields.size() ||
      counts.size() != fields.size())
    return fail(in, error, "PCD header: FIELDS, SIZE, TYPE and COUNT have different lengths");
  if (!have_points) points = width * height;
  size_t record_size = 0, tokens = 0;
  int f[kFields];
  for (int& k : f) k = -1;
  for (size_t i = 0; i < fields.size(); ++i) {
    Field& fd = fields[i];
    fd.size = sizes[i], fd.type = types[i], fd.count = counts[i];
    if ((fd.type == 'F' && fd.size != 4 && fd.size != 8) ||
        (fd.size != 1 && fd.size != 2 && fd.size != 4 && fd.size != 8))
      return fail(in, error,
                  "PCD field '" + fd.name + "' has unsupported size " + std::to_string(fd.size));
    fd.offset = record_size;
    fd.token = tokens;
    record_size += fd.size * fd.count;
    tokens += fd.count;
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
  if (f[kX] < 0 || f[kY] < 0 || f[kZ] < 0) return fail(in, error, "PCD file has no x, y, z fields");
  if (points == 0) return fail(in, error, "the file holds no points (POINTS 0)");
  const bool separate = f[kR] >= 0 && f[kG] >= 0 && f[kB] >= 0;
  const Attributes attrs{f[kPacked] >= 0 || separate, f[kI] >= 0, f[kC] >= 0};
  // The other single-valued fields are kept by name (ScalarField), in file order; `_` is padding.
  std::vector<size_t> extra;
  std::vector<std::string> extra_names;
  for (size_t k = 0; k < fields.size(); ++k) {
    bool used = fields[k].count != 1 || fields[k].name == "_";
    for (int u : f) used |= u == int(k);
    if (used) continue;
    extra.push_back(k);
    extra_names.push_back(fields[k].name);
  }
  const size_t nextra = extra.size();
  // Cloud index k holds point stride.record(k): every point, or an even stride through them.
  const Stride stride = Stride::of(points, *in.options);
  out.info->format = "PCD";
  out.info->version = version + " " + data_kind;
  const size_t data_off = size_t(p - text);
  const size_t avail = in.size - data_off;

  // ---- binary and binary_compressed: each field at base + i * step ----
  if (data_kind != "ascii") {
    std::vector<uint8_t> unpacked;
    std::vector<const uint8_t*> base(fields.size());
    std::vector<size_t> step(fields.size());
    if (data_kind == "binary") {
      if (points > avail / record_size)
        return fail(in, error,
                    "the header declares " + std::to_string(points) +
                        " points but the file holds " + std::to_string(avail / record_size) +
                        " (truncated?)");
      for (size_t i = 0; i < fields.size(); ++i)
        base[i] = in.data + data_off + fields[i].offset, step[i] = record_size;
    } else {
      if (avail < 8) return fail(in, error, "truncated PCD: no compressed block sizes");
      uint32_t csize, usize;
      std::memcpy(&csize, in.data + data_off, 4);
      std::memcpy(&usize, in.data + data_off + 4, 4);
      if (csize > avail - 8)
        return fail(in, error,
                    "truncated PCD: the compressed block is " + std::to_string(csize) +
                        " bytes, the file holds " + std::to_string(avail - 8));
      if (points > usize / record_size || uint64_t(usize) != points * record_size)
        return fail(in, error,
                    "PCD compressed block holds " + std::to_string(usize) +
                        " bytes, the header needs " + std::to_string(points * record_size));
      // LZF expands at most 264 bytes per 3 input bytes, so a larger claim is corrupt (and must not
      // make us allocate). The block is one LZF stream whose matches reach back into what it has
      // already produced, so it is decompressed whole even when a point budget keeps few points.
      if (uint64_t(usize) > uint64_t(csize) * 88 + 64)
        return fail(in, error, "PCD compressed block sizes are inconsistent");
      unpacked.resize(usize);
      if (!lzf_decompress(in.data + data_off + 8, csize, unpacked.data(), usize))
        return fail(in, error, "corrupt LZF data in the PCD compressed block");
      size_t o = 0;
      for (size_t i = 0; i < fields.size(); ++i) {
        base[i] = unpacked.data() + o;
        step[i] = fields[i].size * fields[i].count;
        o += step[i] * size_t(points);
      }
    }
    const size_t n = size_t(points);
    auto val = [&](int k, size_t i) {
      return read_value(base[k] + i * step[k], fields[k].type, fields[k].size);
    };
    // 16-bit separate channels: scale down only if some value exceeds 255 (as in LAS).
    double shift16 = 1.0;
    if (separate && f[kPacked] < 0 && fields[f[kR]].size >= 2) {
      double mx = 0;
      for (size_t i = 0; i < n; ++i)
        mx = std::max({mx, val(f[kR], i), val(f[kG], i), val(f[kB], i)});
      if (mx > 255.0) shift16 = fields[f[kR]].size == 2 ? 1.0 / 256.0 : 1.0 / 16777216.0;
    }
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
    PointSink sink(in, out, attrs, choose_origin(sample));
    sink.fields = extra_names;
    const size_t keep = size_t(stride.keep);
    const bool plain = stride.all() && nextra == 0;
    std::vector<const uint8_t*> extra_base(nextra);
    std::vector<size_t> extra_step(nextra), extra_size(nextra);
    std::vector<char> extra_type(nextra);
    for (size_t j = 0; j < nextra; ++j) {
      const size_t k = extra[j];
      extra_base[j] = base[k], extra_step[j] = step[k];
      extra_size[j] = fields[k].size, extra_type[j] = fields[k].type;
    }
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
                for (size_t j = 0; j < nextra; ++j)
                  values[j] = float(
                      read_value(extra_base[j] + i * extra_step[j], extra_type[j], extra_size[j]));
                emit_with_fields(w, pt, sink.field_arrays(), values.data(), nextra);
              }
              return true;
            },
            error))
      return false;
    finish(in, out, sink.bounds, attrs);
    return true;
  }

  // ---- ascii: one point per line, tokens separated by spaces, tabs or commas ----
  const char* q = p;
  uint64_t left = points;
  while (left > 0 && q < end) {
    const char* nl = static_cast<const char*>(std::memchr(q, '\n', size_t(end - q)));
    const char* le = nl ? nl : end;
    if (!is_blank(q, le)) --left;
    q = nl ? nl + 1 : end;
  }
  if (left != 0)
    return fail(in, error,
                "the header declares " + std::to_string(points) + " points but the file holds " +
                    std::to_string(points - left) + " lines (truncated?)");
  if (tokens > 4096) return fail(in, error, "PCD has too many values per point");
  auto parse_line = [&](const char* s, const char* e, RawPoint& pt, float* values) {
    double v[4096];
    const int got = parse_numbers(s, e, v, int(tokens));
    if (got < int(tokens)) return false;
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
    } else if (separate) {
      pt.color = rgba(clamp_u8(v[fields[f[kR]].token]), clamp_u8(v[fields[f[kG]].token]),
                      clamp_u8(v[fields[f[kB]].token]));
    } else {
      pt.color = rgba(255, 255, 255);
    }
    pt.intensity = f[kI] >= 0 ? float(v[fields[f[kI]].token]) : 0.0f;
    pt.classification = f[kC] >= 0 ? clamp_u8(v[fields[f[kC]].token]) : 0;
    for (size_t j = 0; j < nextra; ++j) values[j] = float(v[fields[extra[j]].token]);
    return true;
  };
  return read_text_rows(
      in, out, attrs, extra_names, text, data_off, size_t(q - text), parse_line,
      [&](size_t line, const char*, const char*) {
        return "PCD line " + std::to_string(line) + ": expected " + std::to_string(tokens) +
               " numbers";
      },
      error);
}

}  // namespace pr::io
