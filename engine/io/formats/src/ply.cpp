// PLY (Stanford polygon format): ascii, binary_little_endian and binary_big_endian 1.0.
// The header lists elements in file order, each with scalar or list properties; we read the
// `vertex` element wherever it is, skipping the elements before it (faces, edges, ...). A vertex
// element of scalar properties has a fixed record size, so binary files decode in parallel blocks.
#include <cstring>
#include <string_view>
#include <type_traits>

#include "engine/io/formats/readers.h"
#include "text_rows.h"

namespace pr::io {

namespace {

enum class Scalar : uint8_t { kI8, kU8, kI16, kU16, kI32, kU32, kF32, kF64 };

bool scalar_from_name(const std::string& n, Scalar& s) {
  static const struct {
    const char* name;
    Scalar s;
  } kNames[] = {{"char", Scalar::kI8},    {"int8", Scalar::kI8},     {"uchar", Scalar::kU8},
                {"uint8", Scalar::kU8},   {"short", Scalar::kI16},   {"int16", Scalar::kI16},
                {"ushort", Scalar::kU16}, {"uint16", Scalar::kU16},  {"int", Scalar::kI32},
                {"int32", Scalar::kI32},  {"uint", Scalar::kU32},    {"uint32", Scalar::kU32},
                {"float", Scalar::kF32},  {"float32", Scalar::kF32}, {"double", Scalar::kF64},
                {"float64", Scalar::kF64}};
  for (const auto& k : kNames)
    if (n == k.name) {
      s = k.s;
      return true;
    }
  return false;
}

size_t scalar_size(Scalar s) {
  switch (s) {
    case Scalar::kI8:
    case Scalar::kU8:
      return 1;
    case Scalar::kI16:
    case Scalar::kU16:
      return 2;
    case Scalar::kI32:
    case Scalar::kU32:
    case Scalar::kF32:
      return 4;
    case Scalar::kF64:
      return 8;
  }
  return 1;
}

template <class T>
inline T load(const uint8_t* p, bool swap) {
  uint8_t b[sizeof(T)];
  std::memcpy(b, p, sizeof(T));
  if (swap) std::reverse(b, b + sizeof(T));
  T v;
  std::memcpy(&v, b, sizeof(T));
  return v;
}

inline double read_scalar(const uint8_t* p, Scalar s, bool swap) {
  switch (s) {
    case Scalar::kI8:
      return double(int8_t(*p));
    case Scalar::kU8:
      return double(*p);
    case Scalar::kI16:
      return double(load<int16_t>(p, swap));
    case Scalar::kU16:
      return double(load<uint16_t>(p, swap));
    case Scalar::kI32:
      return double(load<int32_t>(p, swap));
    case Scalar::kU32:
      return double(load<uint32_t>(p, swap));
    case Scalar::kF32:
      return double(load<float>(p, swap));
    case Scalar::kF64:
      return load<double>(p, swap);
  }
  return 0.0;
}

/// 8-bit color channel from a value of the property's type: integers scaled from their range,
/// floats taken as 0..1.
inline uint8_t color_channel(double v, Scalar s) {
  switch (s) {
    case Scalar::kI8:
    case Scalar::kU8:
      return clamp_u8(v);
    case Scalar::kI16:
    case Scalar::kU16:
      return clamp_u8(v / 257.0);
    case Scalar::kI32:
    case Scalar::kU32:
      return clamp_u8(v / 16843009.0);
    case Scalar::kF32:
    case Scalar::kF64:
      return clamp_u8(v * 255.0);
  }
  return 0;
}

struct Prop {
  std::string name;
  Scalar type = Scalar::kF32;
  bool list = false;
  Scalar count_type = Scalar::kU8;
  size_t offset = 0;  // in a fixed-size record
};

struct Element {
  std::string name;
  uint64_t count = 0;
  std::vector<Prop> props;
  bool fixed = true;
  size_t stride = 0;
};

enum { kX, kY, kZ, kR, kG, kB, kA, kI, kC, kFields };

struct Layout {
  int field[kFields];  // property index per field, -1 when absent
};

Layout vertex_layout(const Element& v) {
  Layout l;
  for (int& f : l.field) f = -1;
  int scalar_any = -1;
  for (size_t i = 0; i < v.props.size(); ++i) {
    const Prop& p = v.props[i];
    if (p.list) continue;
    const std::string n = lower(p.name);
    const int k = int(i);
    auto set = [&](int f) {
      if (l.field[f] < 0) l.field[f] = k;
    };
    if (n == "x")
      set(kX);
    else if (n == "y")
      set(kY);
    else if (n == "z")
      set(kZ);
    else if (n == "red" || n == "r" || n == "diffuse_red")
      set(kR);
    else if (n == "green" || n == "g" || n == "diffuse_green")
      set(kG);
    else if (n == "blue" || n == "b" || n == "diffuse_blue")
      set(kB);
    else if (n == "alpha" || n == "a" || n == "diffuse_alpha")
      set(kA);
    else if (n == "intensity" || n == "scalar_intensity")
      set(kI);
    else if (n == "classification" || n == "scalar_classification")
      set(kC);
    else if (n.rfind("scalar_", 0) == 0 && scalar_any < 0)
      scalar_any = k;
  }
  if (l.field[kI] < 0) l.field[kI] = scalar_any;
  return l;
}

/// Turns the values of one vertex (indexed by property) into a point.
inline void make_point(const double* val, const Layout& l, const Element& v, RawPoint& p) {
  p.x = val[l.field[kX]];
  p.y = val[l.field[kY]];
  p.z = l.field[kZ] >= 0 ? val[l.field[kZ]] : 0.0;  // 2D files lie in z = 0
  if (l.field[kR] >= 0) {
    p.color = rgba(color_channel(val[l.field[kR]], v.props[l.field[kR]].type),
                   color_channel(val[l.field[kG]], v.props[l.field[kG]].type),
                   color_channel(val[l.field[kB]], v.props[l.field[kB]].type));
  } else {
    p.color = rgba(255, 255, 255);
  }
  p.intensity = l.field[kI] >= 0 ? float(val[l.field[kI]]) : 0.0f;
  p.classification = l.field[kC] >= 0 ? clamp_u8(val[l.field[kC]]) : 0;
}

/// Size in bytes of one binary instance of `e` at p, or 0 when it runs past `end`.
size_t instance_size(const Element& e, const uint8_t* p, const uint8_t* end, bool swap) {
  size_t n = 0;
  for (const Prop& pr : e.props) {
    if (!pr.list) {
      n += scalar_size(pr.type);
    } else {
      const size_t cs = scalar_size(pr.count_type);
      if (size_t(end - p) < n + cs) return 0;
      const double c = read_scalar(p + n, pr.count_type, swap);
      if (!(c >= 0.0) || c > 1e9) return 0;
      n += cs + size_t(c) * scalar_size(pr.type);
    }
    if (n > size_t(end - p)) return 0;
  }
  return n;
}

enum Encoding { kAscii, kLittle, kBig, kNone };

/// The header: the elements in file order and where the body starts.
struct PlyHeader {
  std::vector<Element> elems;
  Encoding enc = kNone;
  const char* data = nullptr;  ///< the body, after end_header
  size_t vertex = 0;           ///< index of the vertex element
};

/// The vertex properties the reader uses: the point's fields, the attributes they give and the
/// other scalar properties, kept by name (ScalarField) in file order.
struct VertexPlan {
  Layout l;
  Attributes attrs;
  std::vector<size_t> extra;
  std::vector<std::string> extra_names;
};

/// One header line after the first (its tokens `tok`, not empty, no comment, no end_header) into
/// `h`; false with the problem in `msg`.
bool header_line(const std::vector<std::string>& tok, const std::string& line, PlyHeader& h,
                 std::string& msg) {
  if (tok[0] == "format") {
    if (tok.size() < 2) return msg = "format without encoding", false;
    if (tok[1] == "ascii")
      h.enc = kAscii;
    else if (tok[1] == "binary_little_endian")
      h.enc = kLittle;
    else if (tok[1] == "binary_big_endian")
      h.enc = kBig;
    else
      return msg = "unknown encoding '" + tok[1] + "'", false;
  } else if (tok[0] == "element") {
    if (tok.size() < 3) return msg = "element needs a name and a count", false;
    Element e;
    e.name = tok[1];
    double c;
    if (!parse_double(tok[2].data(), tok[2].data() + tok[2].size(), c) || c < 0 || c > 1e15 ||
        c != std::floor(c))
      return msg = "bad element count '" + tok[2] + "'", false;
    e.count = uint64_t(c);
    h.elems.push_back(std::move(e));
  } else if (tok[0] == "property") {
    if (h.elems.empty()) return msg = "property before any element", false;
    Prop pr;
    if (tok.size() >= 5 && tok[1] == "list") {
      pr.list = true;
      if (!scalar_from_name(tok[2], pr.count_type) || !scalar_from_name(tok[3], pr.type))
        return msg = "unknown property type in '" + line + "'", false;
      pr.name = tok[4];
    } else if (tok.size() >= 3) {
      if (!scalar_from_name(tok[1], pr.type))
        return msg = "unknown property type '" + tok[1] + "'", false;
      pr.name = tok[2];
    } else {
      return msg = "malformed property '" + line + "'", false;
    }
    h.elems.back().props.push_back(pr);
  } else {
    return msg = "unknown keyword '" + tok[0] + "'", false;
  }
  return true;
}

/// The header's lines up to end_header, then each element's record layout and the vertex
/// element.
bool parse_ply_header(const Input& in, PlyHeader& h, std::string* error) {
  const char* p = reinterpret_cast<const char*>(in.data);
  const char* end = p + in.size;
  int line_no = 0;
  while (p < end) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(end - p)));
    const char* le = nl ? nl : end;
    ++line_no;
    std::string line(p, le);
    p = nl ? nl + 1 : end;
    while (!line.empty() && is_space(line.back())) line.pop_back();
    const std::vector<std::string> tok = tokens(line);
    if (line_no == 1) {
      if (tok.empty() || tok[0] != "ply") return fail(in, error, "not a PLY file");
      continue;
    }
    if (tok.empty() || tok[0] == "comment" || tok[0] == "obj_info") continue;
    if (tok[0] == "end_header") {
      h.data = p;
      break;
    }
    std::string msg;
    if (!header_line(tok, line, h, msg))
      return fail(in, error, "PLY header line " + std::to_string(line_no) + ": " + msg);
  }
  if (!h.data) return fail(in, error, "PLY header has no end_header");
  if (h.enc == kNone) return fail(in, error, "PLY header has no format line");
  for (Element& e : h.elems) {
    for (Prop& pr : e.props) {
      pr.offset = e.stride;
      if (pr.list)
        e.fixed = false;
      else
        e.stride += scalar_size(pr.type);
    }
  }
  h.vertex = h.elems.size();
  for (size_t i = 0; i < h.elems.size(); ++i)
    if (h.elems[i].name == "vertex") {
      h.vertex = i;
      break;
    }
  if (h.vertex == h.elems.size()) return fail(in, error, "PLY file has no vertex element");
  return true;
}

/// Which vertex properties make the point and which are kept as fields; false when the vertex
/// element cannot give points.
bool plan_vertex(const Input& in, const Element& v, VertexPlan& plan, std::string* error) {
  const Layout lay = vertex_layout(v);
  if (lay.field[kX] < 0 || lay.field[kY] < 0)
    return fail(in, error, "PLY vertex element has no x and y properties");
  if (v.props.size() > 256) return fail(in, error, "PLY vertex element has too many properties");
  const bool has_color = lay.field[kR] >= 0 && lay.field[kG] >= 0 && lay.field[kB] >= 0;
  plan.l = lay;
  if (!has_color) plan.l.field[kR] = -1;
  plan.attrs = Attributes{has_color, plan.l.field[kI] >= 0, plan.l.field[kC] >= 0};
  for (size_t k = 0; k < v.props.size(); ++k) {
    bool used = v.props[k].list;
    for (int f : plan.l.field) used |= f == int(k);
    if (used) continue;
    plan.extra.push_back(k);
    plan.extra_names.push_back(v.props[k].name);
  }
  return true;
}

/// Decodes the binary vertex at r (every property, lists skipped) into a point and its fields.
inline void decode_vertex(const uint8_t* r, const Element& v, const VertexPlan& plan, bool swap,
                          RawPoint& pt, float* values) {
  double val[256];
  size_t o = 0;
  for (size_t k = 0; k < v.props.size(); ++k) {
    const Prop& pr = v.props[k];
    if (!pr.list) {
      val[k] = read_scalar(r + o, pr.type, swap);
      o += scalar_size(pr.type);
    } else {
      const double c = read_scalar(r + o, pr.count_type, swap);
      o += scalar_size(pr.count_type) + size_t(c) * scalar_size(pr.type);
      val[k] = 0;
    }
  }
  make_point(val, plan.l, v, pt);
  for (size_t j = 0; j < plan.extra.size(); ++j) values[j] = float(val[plan.extra[j]]);
}

/// How much of the vertex element a file holds: `vertices` of them (fewer than declared when it
/// is cut short, and then `cut` says what was lost).
struct Present {
  uint64_t vertices = 0;
  std::string cut;
};

/// Moves `b` past the binary elements before the vertex element and counts the whole vertices
/// of fixed size that the rest of the file holds (vertices with lists: all, read_binary_lists
/// finds where they end).
Present skip_to_vertices(const Input& in, const PlyHeader& h, bool swap, const uint8_t*& b) {
  const uint8_t* bend = in.data + in.size;
  Present p;
  for (size_t i = 0; i < h.vertex; ++i) {
    const Element& e = h.elems[i];
    bool whole = true;
    if (e.fixed) {
      whole = !(e.stride && e.count > uint64_t(bend - b) / e.stride);
      if (whole) b += e.count * e.stride;
    } else {
      for (uint64_t k = 0; k < e.count && whole; ++k) {
        const size_t s = instance_size(e, b, bend, swap);
        whole = s != 0;
        b += s;
      }
    }
    if (!whole) {
      p.cut = "the file ends in element '" + e.name + "', before the vertices";
      return p;
    }
  }
  const Element& v = h.elems[h.vertex];
  p.vertices = v.count;
  const size_t avail = size_t(bend - b);
  if (v.fixed && v.count > avail / v.stride) {
    p.vertices = avail / v.stride;
    p.cut = "the vertex data ends early";
  }
  return p;
}

/// Where the kept properties of a fixed-size vertex record lie, and the fast cases: float x y z
/// in the machine's byte order, uchar colors.
struct FixedRecord {
  size_t off[kFields];
  Scalar type[kFields];
  bool xyz_f32 = false, rgb_u8 = false;
  size_t extra_off[256];
  Scalar extra_type[256];

  FixedRecord(const Element& v, const VertexPlan& plan, bool swap) {
    const Layout& l = plan.l;
    for (int k = 0; k < kFields; ++k) {
      const int f = l.field[k];
      off[k] = f >= 0 ? v.props[f].offset : 0;
      type[k] = f >= 0 ? v.props[f].type : Scalar::kU8;
    }
    xyz_f32 = type[kX] == Scalar::kF32 && type[kY] == Scalar::kF32 && type[kZ] == Scalar::kF32 &&
              l.field[kZ] >= 0 && !swap;
    rgb_u8 = plan.attrs.color && type[kR] == Scalar::kU8 && type[kG] == Scalar::kU8 &&
             type[kB] == Scalar::kU8;
    for (size_t j = 0; j < plan.extra.size(); ++j)
      extra_off[j] = v.props[plan.extra[j]].offset, extra_type[j] = v.props[plan.extra[j]].type;
  }
};

/// Vertices of scalar properties only, fixed-size records from `vb`: parallel blocks that read
/// only the properties kept, at their offsets.
bool read_binary_fixed(const Input& in, Output& out, const Element& v, uint64_t vertices,
                       const VertexPlan& plan, const uint8_t* const vb, bool swap,
                       std::string* error) {
  const Layout l = plan.l;
  const Attributes attrs = plan.attrs;
  const size_t nextra = plan.extra.size();
  const Stride stride = Stride::of(vertices, *in.options);
  float scratch[256];
  Bounds sample;
  const size_t step = std::max<size_t>(1, size_t(vertices / 4096));
  for (size_t i = 0; i < vertices; i += step) {
    RawPoint pt;
    decode_vertex(vb + i * v.stride, v, plan, swap, pt, scratch);
    if (std::isfinite(pt.x) && std::isfinite(pt.y) && std::isfinite(pt.z))
      sample.extend({pt.x, pt.y, pt.z});
  }
  PointSink sink(in, out, attrs, choose_origin(sample));
  sink.fields = plan.extra_names;
  const size_t keep = size_t(stride.keep);
  const FixedRecord fr(v, plan, swap);
  const size_t* off = fr.off;
  const Scalar* type = fr.type;
  const bool xyz_f32 = fr.xyz_f32, rgb_u8 = fr.rgb_u8;
  const size_t record_size = v.stride;
  // Cloud points [k0, k1): records stride.record(k) with their fields, or (kAll: every record,
  // no fields, the common case) records k alone.
  auto records = [&](auto all, size_t k0, size_t k1, BlockWriter& w) {
    constexpr bool kAll = decltype(all)::value;
    for (size_t k = k0; k < k1; ++k) {
      const uint8_t* r = vb + (kAll ? k : size_t(stride.record(k))) * record_size;
      RawPoint pt;
      if (xyz_f32) {
        pt.x = get_le<float>(r + off[kX]);
        pt.y = get_le<float>(r + off[kY]);
        pt.z = get_le<float>(r + off[kZ]);
      } else {
        pt.x = read_scalar(r + off[kX], type[kX], swap);
        pt.y = read_scalar(r + off[kY], type[kY], swap);
        pt.z = l.field[kZ] >= 0 ? read_scalar(r + off[kZ], type[kZ], swap) : 0.0;
      }
      if (rgb_u8) {
        pt.color = rgba(r[off[kR]], r[off[kG]], r[off[kB]]);
      } else if (attrs.color) {
        pt.color = rgba(color_channel(read_scalar(r + off[kR], type[kR], swap), type[kR]),
                        color_channel(read_scalar(r + off[kG], type[kG], swap), type[kG]),
                        color_channel(read_scalar(r + off[kB], type[kB], swap), type[kB]));
      } else {
        pt.color = rgba(255, 255, 255);
      }
      pt.intensity = l.field[kI] >= 0 ? float(read_scalar(r + off[kI], type[kI], swap)) : 0.0f;
      pt.classification = l.field[kC] >= 0 ? clamp_u8(read_scalar(r + off[kC], type[kC], swap)) : 0;
      if constexpr (kAll) {
        w(pt);
      } else {
        float values[256];
        for (size_t j = 0; j < nextra; ++j)
          values[j] = float(read_scalar(r + fr.extra_off[j], fr.extra_type[j], swap));
        emit_with_fields(w, pt, sink.field_arrays(), values, nextra);
      }
    }
  };
  // Each case a PointSink::run of its own, so that the common loop is compiled alone, free of
  // the record lookup and the fields.
  auto block = [&](auto all) {
    return [&, all](size_t blk, BlockWriter& w, std::string&) {
      const size_t k0 = blk << 16, k1 = std::min(keep, k0 + (size_t(1) << 16));
      records(all, k0, k1, w);
      return true;
    };
  };
  if (stride.all() && nextra == 0 ? !sink.run(fixed_blocks(keep), block(std::true_type{}), error)
                                  : !sink.run(fixed_blocks(keep), block(std::false_type{}), error))
    return false;
  finish(in, out, sink.bounds, attrs);
  return true;
}

/// Vertices with list properties from `b`: walked in one block, every record's size checked; a
/// vertex that runs past the end of the file ends the walk (`p`: the vertices before it).
bool read_binary_lists(const Input& in, Output& out, const Element& v, const VertexPlan& plan,
                       const uint8_t* const b, bool swap, Present& p, std::string* error) {
  const uint8_t* bend = in.data + in.size;
  const Stride stride = Stride::of(v.count, *in.options);
  float scratch[256];
  Bounds sample;
  const uint8_t* r = b;
  for (size_t i = 0; i < 16 && i < v.count; ++i) {
    const size_t s = instance_size(v, r, bend, swap);
    if (!s) break;
    RawPoint pt;
    decode_vertex(r, v, plan, swap, pt, scratch);
    if (std::isfinite(pt.x) && std::isfinite(pt.y) && std::isfinite(pt.z))
      sample.extend({pt.x, pt.y, pt.z});
    r += s;
  }
  PointSink sink(in, out, plan.attrs, choose_origin(sample));
  sink.fields = plan.extra_names;
  if (!sink.run(
          {size_t(stride.keep)},
          [&](size_t, BlockWriter& w, std::string&) {
            const uint8_t* q = b;
            uint64_t next = stride.record(0);
            for (uint64_t i = 0; i < v.count; ++i) {
              const size_t s = instance_size(v, q, bend, swap);
              if (!s) {
                p.vertices = i;
                p.cut = "the vertex data ends early";
                return true;
              }
              if (i == next) {
                next = stride.record(stride.before(i + 1));
                RawPoint pt;
                decode_vertex(q, v, plan, swap, pt, scratch);
                emit_with_fields(w, pt, sink.field_arrays(), scratch, plan.extra.size());
              }
              q += s;
            }
            return true;
          },
          error))
    return false;
  finish(in, out, sink.bounds, plan.attrs);
  return true;
}

/// Reads the ascii line [s, e) of vertex `v` into a point and its fields.
inline bool parse_vertex_line(const char* s, const char* e, const Element& v,
                              const VertexPlan& plan, RawPoint& pt, float* values) {
  double val[256];
  for (size_t k = 0; k < v.props.size(); ++k) {
    const Prop& pr = v.props[k];
    while (s < e && is_sep(*s)) ++s;
    double x;
    const char* t = parse_double(s, e, x);
    if (!t) return false;
    s = t;
    if (pr.list) {
      if (!(x >= 0.0) || x > 1e9) return false;
      for (size_t c = 0; c < size_t(x); ++c) {
        while (s < e && is_sep(*s)) ++s;
        double y;
        const char* u = parse_double(s, e, y);
        if (!u) return false;
        s = u;
      }
      x = 0.0;
    }
    val[k] = x;
  }
  make_point(val, plan.l, v, pt);
  for (size_t j = 0; j < plan.extra.size(); ++j) values[j] = float(val[plan.extra[j]]);
  return true;
}

/// The ascii body: one element instance per non-blank line, the vertices in parallel chunks. A
/// file that ends before its vertex lines do gives the lines present (`p`), but for a last line
/// without its newline (it may have lost digits): the same holds for a last line that does not
/// parse.
bool read_ascii(const Input& in, Output& out, const PlyHeader& h, const VertexPlan& plan,
                Present& p, std::string* error) {
  const char* text = reinterpret_cast<const char*>(in.data);
  const char* end = text + in.size;
  const char* q = h.data;
  auto skip_lines = [&](uint64_t n) {
    while (n > 0 && q < end) {
      const char* nl = static_cast<const char*>(std::memchr(q, '\n', size_t(end - q)));
      const char* le = nl ? nl : end;
      if (!is_blank(q, le)) --n;
      q = nl ? nl + 1 : end;
    }
    return n;
  };
  const Element& v = h.elems[h.vertex];
  const char* vb = end;
  for (size_t i = 0; i < h.vertex && p.cut.empty(); ++i)
    if (skip_lines(h.elems[i].count) != 0)
      p.cut = "the file ends in element '" + h.elems[i].name + "', before the vertices";
  if (p.cut.empty()) {
    vb = q;
    p.vertices = v.count - skip_lines(v.count);
    if (p.vertices < v.count) p.cut = "the vertex lines end early";
  }
  const char* ve = p.cut.empty() ? q : end;
  if (const char* last = ve == end ? unterminated_last_line(vb, ve) : nullptr) {
    RawPoint pt;
    std::vector<float> values(plan.extra.size());
    if (!p.cut.empty() || !parse_vertex_line(last, ve, v, plan, pt, values.data())) {
      ve = last;
      p.vertices--;
      if (p.cut.empty()) p.cut = "the last vertex line ends mid-line";
    }
  }
  return read_text_rows(
      in, out, plan.attrs, plan.extra_names, text, size_t(vb - text), size_t(ve - text),
      [&](const char* s, const char* e, RawPoint& pt, float* values) {
        return parse_vertex_line(s, e, v, plan, pt, values);
      },
      [](size_t line, const char* s, const char* le) {
        return "PLY vertex line " + std::to_string(line) + ": cannot parse '" +
               std::string(s, std::min<size_t>(size_t(le - s), 60)) + "'";
      },
      error);
}

}  // namespace

bool read_ply(const Input& in, Output& out, std::string* error) {
  PlyHeader h;
  if (!parse_ply_header(in, h, error)) return false;
  const Element& v = h.elems[h.vertex];
  VertexPlan plan;
  if (!plan_vertex(in, v, plan, error)) return false;
  static const char* kEnc[] = {"ascii", "binary_little_endian", "binary_big_endian"};
  out.info->version = std::string(kEnc[h.enc]) + " 1.0";
  Present p;
  bool ok = false;
  if (h.enc == kAscii) {
    ok = read_ascii(in, out, h, plan, p, error);
  } else {
    const bool swap = (h.enc == kBig);  // the machines we build for are little-endian
    const uint8_t* b = reinterpret_cast<const uint8_t*>(h.data);
    p = skip_to_vertices(in, h, swap, b);
    // A file cut before its vertices reads none: no vertex is walked, whatever its properties.
    ok = v.fixed || !p.cut.empty() ? read_binary_fixed(in, out, v, p.vertices, plan, b, swap, error)
                                   : read_binary_lists(in, out, v, plan, b, swap, p, error);
  }
  if (ok && !p.cut.empty()) warn_cut_short(in, out, p.vertices, v.count, p.cut);
  return ok;
}

}  // namespace pr::io
