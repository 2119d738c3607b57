// ASTM E57 (E2807): terrestrial laser scans, several scans a file, each with its pose.
//
// Physical layout: the file is a sequence of pages (1024 bytes in practice) whose last 4 bytes
// hold the CRC-32C of the rest of the page, stored big-endian. Offsets in the file header and in
// the XML are physical (they count the checksums); lengths are logical (they do not), so reading
// n logical bytes from physical offset p walks page by page, skipping each page's checksum.
//
// The XML section describes the scans (`/data3D/vectorChild`): a pose (unit quaternion w,x,y,z and
// a translation: world = R p + t), limits of intensity and color, and the points, a
// CompressedVector whose `prototype` lists the fields of a record. The points' binary section holds
// data packets; each packet carries one buffer per prototype field ("bytestream"), and the buffers
// of one field, concatenated over the packets, form one continuous bit-pack stream: values packed
// least significant bit first, Integer and ScaledInteger as (raw - minimum) in
// ceil(log2(maximum - minimum + 1)) bits (none when minimum == maximum), Float as 32- or 64-bit
// IEEE words. A value may straddle packets, and each field's stream advances at its own rate, so
// record r of field f sits at bit r * bits(f) of that field's stream, wherever the packets cut it.
//
// Reading: the packet headers are walked once per scan to list where each stream's buffers lie
// (a prefix sum of their lengths per stream); then all selected scans are cut into chunks of
// records decoded in parallel: for a chunk [r0, r1) each used field's bytes are gathered from the
// packets (checksums skipped) into a buffer and unpacked, the records turned into points (spherical
// to cartesian, pose applied in double), invalid ones dropped. Fields the reader does not use are
// never touched. Every page read is checked against its CRC first.
#include <pugixml.hpp>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstring>
#include <memory>

#include "io/readers.h"

namespace pr::io {

namespace {

// ---- CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) ----

struct Crc32cTable {
  uint32_t t[8][256];
  Crc32cTable() {
    for (uint32_t i = 0; i < 256; ++i) {
      uint32_t c = i;
      for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
      t[0][i] = c;
    }
    for (uint32_t i = 0; i < 256; ++i)
      for (int s = 1; s < 8; ++s) t[s][i] = (t[s - 1][i] >> 8) ^ t[0][t[s - 1][i] & 255];
  }
};

uint32_t crc32c_portable(const uint8_t* p, size_t n) {
  static const Crc32cTable tab;
  uint32_t c = 0xFFFFFFFFu;
  // Slicing by 8: eight table lookups per 8 bytes instead of one per byte.
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    w ^= c;
    c = tab.t[7][w & 255] ^ tab.t[6][(w >> 8) & 255] ^ tab.t[5][(w >> 16) & 255] ^
        tab.t[4][(w >> 24) & 255] ^ tab.t[3][(w >> 32) & 255] ^ tab.t[2][(w >> 40) & 255] ^
        tab.t[1][(w >> 48) & 255] ^ tab.t[0][w >> 56];
    p += 8;
    n -= 8;
  }
  while (n--) c = tab.t[0][(c ^ *p++) & 255] ^ (c >> 8);
  return ~c;
}

#if defined(__x86_64__)
// SSE4.2's crc32 instruction computes exactly CRC-32C, 8 bytes at a time.
__attribute__((target("sse4.2"))) uint32_t crc32c_sse42(const uint8_t* p, size_t n) {
  uint64_t c = 0xFFFFFFFFu;
  while (n >= 8) {
    uint64_t w;
    std::memcpy(&w, p, 8);
    c = __builtin_ia32_crc32di(c, w);
    p += 8;
    n -= 8;
  }
  uint32_t c32 = uint32_t(c);
  while (n--) c32 = __builtin_ia32_crc32qi(c32, *p++);
  return ~c32;
}
#endif

uint32_t crc32c(const uint8_t* p, size_t n) {
#if defined(__x86_64__)
  static const bool hw = __builtin_cpu_supports("sse4.2");
  if (hw) return crc32c_sse42(p, n);
#endif
  return crc32c_portable(p, n);
}

template <class T>
T get_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);  // E57's binary parts are little-endian, like our targets
  return v;
}

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

// ---- the paged file ----

struct Paged {
  const uint8_t* data = nullptr;
  uint64_t size = 0;     ///< physical bytes used: whole pages
  uint64_t page = 1024;  ///< physical page size
  uint64_t lpage = 1020;
  uint64_t logical_size = 0;

  /// Logical offset of physical offset p; false when p is beyond the file or inside a checksum.
  bool to_logical(uint64_t p, uint64_t& l) const {
    if (p >= size || p % page >= lpage) return false;
    l = (p / page) * lpage + p % page;
    return true;
  }
  /// Copies n logical bytes from logical offset l; false when they run past the end.
  bool copy(uint64_t l, uint64_t n, uint8_t* dst) const {
    if (l > logical_size || n > logical_size - l) return false;
    while (n) {
      const uint64_t in_page = l % lpage;
      const uint64_t k = std::min(n, lpage - in_page);
      std::memcpy(dst, data + (l / lpage) * page + in_page, size_t(k));
      dst += k, l += k, n -= k;
    }
    return true;
  }
};

// ---- fields and scans ----

enum class Kind { kFloat, kInteger, kScaled };

struct Field {
  int stream = -1;  ///< bytestream index: the field's position in the prototype
  Kind kind = Kind::kFloat;
  unsigned bits = 0;  ///< per value in the stream; 0: constant (minimum)
  int64_t minimum = 0, maximum = 0;
  double scale = 1.0, offset = 0.0;
};

enum Role {
  kX,
  kY,
  kZ,
  kRange,
  kAzimuth,
  kElevation,
  kCartesianInvalid,
  kSphericalInvalid,
  kIntensity,
  kRed,
  kGreen,
  kBlue,
  kColorInvalid,
  kIntensityInvalid,
  kRoleCount
};

constexpr const char* kRoleNames[kRoleCount] = {"cartesianX",
                                                "cartesianY",
                                                "cartesianZ",
                                                "sphericalRange",
                                                "sphericalAzimuth",
                                                "sphericalElevation",
                                                "cartesianInvalidState",
                                                "sphericalInvalidState",
                                                "intensity",
                                                "colorRed",
                                                "colorGreen",
                                                "colorBlue",
                                                "isColorInvalid",
                                                "isIntensityInvalid"};

struct Scan {
  uint32_t index = 0;
  std::string name;
  uint64_t records = 0;
  uint64_t section = 0;  ///< physical offset of the binary section
  glm::dmat3 rotation{1.0};
  glm::dvec3 translation{0.0};
  bool spherical = false;
  bool color = false, intensity = false;
  std::array<Field, kRoleCount> field{};  ///< stream -1: absent
  double color_min[3] = {0, 0, 0}, color_max[3] = {255, 255, 255};
  uint32_t streams = 0;  ///< prototype fields (bytestreams per packet)
  // Where the streams lie: packet p's buffer of stream s starts at logical offset
  // buf[p * streams + s]; cum[s * (packets + 1) + p] stream-s bytes precede packet p.
  size_t packets = 0;
  std::vector<uint64_t> buf, cum;
  uint64_t first_chunk = 0;  ///< index of its first decode chunk among all scans' chunks
};

/// ceil(log2(maximum - minimum + 1)): bits of an integer field's values.
unsigned bits_needed(int64_t minimum, int64_t maximum) {
  const uint64_t span = uint64_t(maximum) - uint64_t(minimum);
  unsigned b = 0;
  while (b < 64 && (span >> b) != 0) ++b;
  return b;
}

std::string trim(const char* s) {
  std::string t = s;
  const size_t a = t.find_first_not_of(" \t\r\n");
  if (a == std::string::npos) return "";
  return t.substr(a, t.find_last_not_of(" \t\r\n") - a + 1);
}

bool parse_f64(const std::string& s, double& v) {
  if (s.empty()) return false;
  const char* e = parse_double(s.data(), s.data() + s.size(), v);
  return e == s.data() + s.size();
}

bool parse_i64(const std::string& s, int64_t& v) {
  const char* b = s.data();
  const char* e = b + s.size();
  if (b < e && *b == '+') ++b;
  auto r = std::from_chars(b, e, v);
  return r.ec == std::errc() && r.ptr == e && b != e;
}

/// A Float or Integer node's value (an empty element is 0); false when it is not a number.
bool node_number(const pugi::xml_node& n, double& v) {
  const std::string s = trim(n.child_value());
  if (s.empty()) {
    v = 0.0;
    return true;
  }
  return parse_f64(s, v);
}

/// The element name without a namespace prefix.
const char* local_name(const pugi::xml_node& n) {
  const char* s = n.name();
  const char* c = std::strrchr(s, ':');
  return c ? c + 1 : s;
}

pugi::xml_node child(const pugi::xml_node& n, const char* name) {
  for (pugi::xml_node c = n.first_child(); c; c = c.next_sibling())
    if (c.type() == pugi::node_element && std::strcmp(local_name(c), name) == 0) return c;
  return {};
}

bool number_attr(const pugi::xml_node& n, const char* name, double dflt, double& v) {
  const pugi::xml_attribute a = n.attribute(name);
  if (!a) {
    v = dflt;
    return true;
  }
  return parse_f64(trim(a.value()), v);
}

bool int_attr(const pugi::xml_node& n, const char* name, int64_t dflt, int64_t& v) {
  const pugi::xml_attribute a = n.attribute(name);
  if (!a) {
    v = dflt;
    return true;
  }
  return parse_i64(trim(a.value()), v);
}

/// Reads a prototype field's type into f; false with `why` for types a bit-pack stream of
/// numbers cannot hold or malformed attributes.
bool parse_field(const pugi::xml_node& n, Field& f, std::string& why) {
  const std::string type = n.attribute("type").value();
  const std::string name = local_name(n);
  if (type == "Float") {
    f.kind = Kind::kFloat;
    const std::string prec = n.attribute("precision").value();
    if (prec.empty() || prec == "double") {
      f.bits = 64;
    } else if (prec == "single") {
      f.bits = 32;
    } else {
      why = "field " + name + " has precision '" + prec + "' (not single or double)";
      return false;
    }
    return true;
  }
  if (type == "Integer" || type == "ScaledInteger") {
    f.kind = type == "Integer" ? Kind::kInteger : Kind::kScaled;
    if (!int_attr(n, "minimum", INT64_MIN, f.minimum) ||
        !int_attr(n, "maximum", INT64_MAX, f.maximum) || f.maximum < f.minimum) {
      why = "field " + name + " has a bad minimum/maximum";
      return false;
    }
    if (f.kind == Kind::kScaled &&
        (!number_attr(n, "scale", 1.0, f.scale) || !number_attr(n, "offset", 0.0, f.offset) ||
         !std::isfinite(f.scale) || !std::isfinite(f.offset) || f.scale == 0.0)) {
      why = "field " + name + " has a bad scale/offset";
      return false;
    }
    f.bits = bits_needed(f.minimum, f.maximum);
    return true;
  }
  why = "field " + name + " has type '" + type + "', which a point record cannot hold";
  return false;
}

/// The scan's description from its data3D entry; false with `why`.
bool parse_scan(const pugi::xml_node& s, Scan& scan, std::string& why) {
  const std::string where = "scan " + std::to_string(scan.index);
  scan.name = trim(child(s, "name").child_value());
  if (const pugi::xml_node pose = child(s, "pose")) {
    double q[4] = {1, 0, 0, 0}, t[3] = {0, 0, 0};
    const char* qn[4] = {"w", "x", "y", "z"};
    if (const pugi::xml_node r = child(pose, "rotation"))
      for (int k = 0; k < 4; ++k)
        if (const pugi::xml_node c = child(r, qn[k]); c && !node_number(c, q[k])) {
          why = where + ": bad pose rotation";
          return false;
        }
    if (const pugi::xml_node tr = child(pose, "translation"))
      for (int k = 0; k < 3; ++k)
        if (const pugi::xml_node c = child(tr, qn[k + 1]); c && !node_number(c, t[k])) {
          why = where + ": bad pose translation";
          return false;
        }
    const double norm = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
    if (!(norm > 0.0) || !std::isfinite(norm) ||
        !(std::isfinite(t[0]) && std::isfinite(t[1]) && std::isfinite(t[2]))) {
      why = where + ": bad pose (the rotation is not a quaternion or the translation not finite)";
      return false;
    }
    const double w = q[0] / norm, x = q[1] / norm, y = q[2] / norm, z = q[3] / norm;
    // The rotation matrix of a unit quaternion (glm is column-major: m[column][row]).
    glm::dmat3 m;
    m[0][0] = 1 - 2 * (y * y + z * z), m[1][0] = 2 * (x * y - w * z), m[2][0] = 2 * (x * z + w * y);
    m[0][1] = 2 * (x * y + w * z), m[1][1] = 1 - 2 * (x * x + z * z), m[2][1] = 2 * (y * z - w * x);
    m[0][2] = 2 * (x * z - w * y), m[1][2] = 2 * (y * z + w * x), m[2][2] = 1 - 2 * (x * x + y * y);
    scan.rotation = m;
    scan.translation = glm::dvec3(t[0], t[1], t[2]);
  }
  const pugi::xml_node pts = child(s, "points");
  if (!pts || std::strcmp(pts.attribute("type").value(), "CompressedVector") != 0) {
    why = where + " has no points (CompressedVector)";
    return false;
  }
  int64_t records = 0, offset = 0;
  if (!int_attr(pts, "recordCount", -1, records) || records < 0 ||
      !int_attr(pts, "fileOffset", -1, offset) || offset < 0) {
    why = where + ": points have a bad recordCount or fileOffset";
    return false;
  }
  scan.records = uint64_t(records);
  scan.section = uint64_t(offset);
  if (const pugi::xml_node codecs = child(pts, "codecs"))
    for (pugi::xml_node c = codecs.first_child(); c; c = c.next_sibling())
      if (c.type() == pugi::node_element) {
        why = where + " uses a codec other than bit-pack, which this reader does not decode";
        return false;
      }
  const pugi::xml_node proto = child(pts, "prototype");
  if (!proto) {
    why = where + " has no prototype";
    return false;
  }
  int stream = 0;
  for (pugi::xml_node c = proto.first_child(); c; c = c.next_sibling()) {
    if (c.type() != pugi::node_element) continue;
    const int k = stream++;
    for (int r = 0; r < kRoleCount; ++r) {
      if (std::strcmp(c.name(), kRoleNames[r]) != 0) continue;
      Field f;
      std::string fwhy;
      if (!parse_field(c, f, fwhy)) {
        why = where + ": " + fwhy;
        return false;
      }
      f.stream = k;
      scan.field[size_t(r)] = f;
    }
  }
  scan.streams = uint32_t(stream);
  auto has = [&](Role r) { return scan.field[r].stream >= 0; };
  if (has(kX) && has(kY) && has(kZ)) {
    scan.spherical = false;
  } else if (has(kRange) && has(kAzimuth) && has(kElevation)) {
    scan.spherical = true;
  } else {
    why = where + " has neither cartesianX/Y/Z nor sphericalRange/Azimuth/Elevation";
    return false;
  }
  scan.color = has(kRed) && has(kGreen) && has(kBlue);
  scan.intensity = has(kIntensity);
  if (scan.color) {
    // Colors scale from their limits to 0..255: colorLimits when given, else the fields' own
    // integer range.
    const pugi::xml_node lim = child(s, "colorLimits");
    const char* lo[3] = {"colorRedMinimum", "colorGreenMinimum", "colorBlueMinimum"};
    const char* hi[3] = {"colorRedMaximum", "colorGreenMaximum", "colorBlueMaximum"};
    for (int k = 0; k < 3; ++k) {
      const Field& f = scan.field[size_t(kRed + k)];
      double a = f.kind == Kind::kFloat ? 0.0 : double(f.minimum);
      double b = f.kind == Kind::kFloat ? 255.0 : double(f.maximum);
      if (f.kind == Kind::kScaled) a = a * f.scale + f.offset, b = b * f.scale + f.offset;
      const pugi::xml_node cl = lim ? child(lim, lo[k]) : pugi::xml_node();
      const pugi::xml_node ch = lim ? child(lim, hi[k]) : pugi::xml_node();
      double la, lb;
      if (cl && ch && node_number(cl, la) && node_number(ch, lb) && lb > la) a = la, b = lb;
      if (!(b > a) || !std::isfinite(a) || !std::isfinite(b)) a = 0.0, b = 255.0;
      scan.color_min[k] = a, scan.color_max[k] = b;
    }
  }
  return true;
}

// ---- decoding ----

/// Reads `bits` (1..64) bits at bit `pos` of buf (which has 16 readable bytes past the data).
inline uint64_t bits_at(const uint8_t* buf, uint64_t pos, unsigned bits) {
  const uint8_t* p = buf + (pos >> 3);
  const unsigned s = unsigned(pos & 7);
  uint64_t v = get_le<uint64_t>(p) >> s;
  if (s + bits > 64) v |= get_le<uint64_t>(p + 8) << (64 - s);
  return bits == 64 ? v : v & ((uint64_t(1) << bits) - 1);
}

class Decoder {
 public:
  Decoder(const Paged& file, const Scan& scan) : file_(file), scan_(scan) {}

  /// Copies bytes [a, b) of stream s into bytes_ (plus 16 zero bytes); false when the packets end
  /// before b.
  bool gather(int s, uint64_t a, uint64_t b) {
    const size_t np = scan_.packets;
    const uint64_t* cum = scan_.cum.data() + size_t(s) * (np + 1);
    if (b > cum[np]) return false;
    bytes_.resize(size_t(b - a) + 16);
    std::memset(bytes_.data() + (b - a), 0, 16);
    // The packet holding byte a: the last p with cum[p] <= a.
    size_t p = size_t(std::upper_bound(cum, cum + np + 1, a) - cum) - 1;
    uint8_t* dst = bytes_.data();
    while (a < b) {
      while (p < np && cum[p + 1] <= a) ++p;
      if (p >= np) return false;
      const uint64_t k = std::min(b, cum[p + 1]) - a;
      if (!file_.copy(scan_.buf[p * scan_.streams + size_t(s)] + (a - cum[p]), k, dst))
        return false;
      dst += k, a += k;
    }
    return true;
  }

  /// Values of field f for records [r0, r0 + n) into out.
  bool values(const Field& f, uint64_t r0, size_t n, double* out) {
    if (f.bits == 0) {
      const double v =
          f.kind == Kind::kScaled ? double(f.minimum) * f.scale + f.offset : double(f.minimum);
      std::fill(out, out + n, v);
      return true;
    }
    const uint64_t bit0 = r0 * f.bits, bit1 = (r0 + n) * f.bits;
    if (!gather(f.stream, bit0 >> 3, (bit1 + 7) >> 3)) return false;
    const uint8_t* b = bytes_.data();
    if (f.kind == Kind::kFloat) {
      if (f.bits == 32) {
        for (size_t i = 0; i < n; ++i) out[i] = double(get_le<float>(b + 4 * i));
      } else {
        for (size_t i = 0; i < n; ++i) out[i] = get_le<double>(b + 8 * i);
      }
      return true;
    }
    const uint64_t s = bit0 & 7;
    const uint64_t mn = uint64_t(f.minimum);
    const double scale = f.kind == Kind::kScaled ? f.scale : 1.0;
    const double offset = f.kind == Kind::kScaled ? f.offset : 0.0;
    if (f.bits == 8 && s == 0) {
      for (size_t i = 0; i < n; ++i) out[i] = double(int64_t(mn + b[i])) * scale + offset;
      return true;
    }
    for (size_t i = 0; i < n; ++i) {
      const uint64_t raw = mn + bits_at(b, s + i * f.bits, f.bits);
      out[i] = double(int64_t(raw)) * scale + offset;
    }
    return true;
  }

 private:
  const Paged& file_;
  const Scan& scan_;
  std::vector<uint8_t> bytes_;
};

constexpr size_t kChunk = size_t(1) << 16;  // records a parallel task decodes
constexpr size_t kBatch = 1024;             // records unpacked at a time (cache-sized columns)

/// Decodes records [r0, r0 + n) of a scan and calls emit(RawPoint) for each valid one, in world
/// coordinates (pose applied). False when the streams end early.
template <class Emit>
bool decode_records(const Paged& file, const Scan& scan, uint64_t r0, size_t n, Emit&& emit) {
  Decoder dec(file, scan);
  // The roles read: the coordinates of the scan's own system and the attributes present.
  int roles[kRoleCount], nroles = 0;
  for (int r = 0; r < kRoleCount; ++r) {
    if (scan.field[size_t(r)].stream < 0) continue;
    if (scan.spherical ? (r <= kZ || r == kCartesianInvalid)
                       : ((r >= kRange && r <= kElevation) || r == kSphericalInvalid))
      continue;
    roles[nroles++] = r;
  }
  std::vector<double> cols(size_t(nroles) * kBatch);
  const double* col[kRoleCount] = {};
  const glm::dmat3& m = scan.rotation;
  const glm::dvec3& t = scan.translation;
  double cs[3], ci[3];
  for (int k = 0; k < 3; ++k) {
    cs[k] = 255.0 / (scan.color_max[k] - scan.color_min[k]);
    ci[k] = scan.color_min[k];
  }
  for (size_t b0 = 0; b0 < n; b0 += kBatch) {
    const size_t bn = std::min(kBatch, n - b0);
    for (int j = 0; j < nroles; ++j) {
      double* o = cols.data() + size_t(j) * kBatch;
      if (!dec.values(scan.field[size_t(roles[j])], r0 + b0, bn, o)) return false;
      col[roles[j]] = o;
    }
    const double* invalid = scan.spherical ? col[kSphericalInvalid] : col[kCartesianInvalid];
    for (size_t i = 0; i < bn; ++i) {
      if (invalid && invalid[i] != 0.0) continue;
      double x, y, z;
      if (scan.spherical) {
        const double rg = col[kRange][i], az = col[kAzimuth][i], el = col[kElevation][i];
        const double rc = rg * std::cos(el);
        x = rc * std::cos(az), y = rc * std::sin(az), z = rg * std::sin(el);
      } else {
        x = col[kX][i], y = col[kY][i], z = col[kZ][i];
      }
      RawPoint p;
      p.x = m[0][0] * x + m[1][0] * y + m[2][0] * z + t.x;
      p.y = m[0][1] * x + m[1][1] * y + m[2][1] * z + t.y;
      p.z = m[0][2] * x + m[1][2] * y + m[2][2] * z + t.z;
      p.color = rgba(255, 255, 255);
      if (scan.color && !(col[kColorInvalid] && col[kColorInvalid][i] != 0.0))
        p.color = rgba(clamp_u8((col[kRed][i] - ci[0]) * cs[0]),
                       clamp_u8((col[kGreen][i] - ci[1]) * cs[1]),
                       clamp_u8((col[kBlue][i] - ci[2]) * cs[2]));
      p.intensity = 0.0f;
      if (scan.intensity && !(col[kIntensityInvalid] && col[kIntensityInvalid][i] != 0.0))
        p.intensity = float(col[kIntensity][i]);
      p.classification = 0;
      emit(p);
    }
  }
  return true;
}

}  // namespace

bool read_e57(const Input& in, Output& out, std::string* error) {
  const uint8_t* d = in.data;
  if (in.size < 48)
    return fail(in, error, "truncated E57 header (" + std::to_string(in.size) + " bytes, need 48)");
  if (std::memcmp(d, "ASTM-E57", 8) != 0) return fail(in, error, "no 'ASTM-E57' signature");
  const uint32_t major = get_le<uint32_t>(d + 8), minor = get_le<uint32_t>(d + 12);
  const uint64_t phys_len = get_le<uint64_t>(d + 16), xml_off = get_le<uint64_t>(d + 24),
                 xml_len = get_le<uint64_t>(d + 32), page = get_le<uint64_t>(d + 40);
  if (major != 1)
    return fail(in, error,
                "unsupported E57 version " + std::to_string(major) + "." + std::to_string(minor));
  if (page < 64 || page > (uint64_t(1) << 20) || page % 4 != 0)
    return fail(in, error, "bad E57 page size " + std::to_string(page));
  if (phys_len > in.size)
    return fail(in, error,
                "truncated: the header says " + std::to_string(phys_len) +
                    " bytes, the file holds " + std::to_string(in.size));
  if (phys_len % page != 0 || phys_len < page)
    return fail(in, error,
                "truncated page: the file length " + std::to_string(phys_len) +
                    " is not a whole number of " + std::to_string(page) + "-byte pages");
  Paged file;
  file.data = d;
  file.size = phys_len;
  file.page = page;
  file.lpage = page - 4;
  file.logical_size = (phys_len / page) * file.lpage;

  // Checksums: a page is trusted only after its CRC-32C matches.
  const uint64_t npages = phys_len / page;
  auto check_pages = [&](uint64_t p0, uint64_t p1, std::string& why) {
    std::atomic<uint64_t> bad{UINT64_MAX};
    parallel_for(
        size_t(p1 - p0),
        [&](size_t i0, size_t i1) {
          for (size_t i = i0; i < i1; ++i) {
            const uint8_t* pg = d + (p0 + i) * page;
            const uint32_t c = crc32c(pg, size_t(file.lpage));
            const uint8_t* s = pg + file.lpage;
            const uint32_t stored =
                uint32_t(s[0]) << 24 | uint32_t(s[1]) << 16 | uint32_t(s[2]) << 8 | uint32_t(s[3]);
            if (c != stored) {
              uint64_t cur = bad.load();
              while (p0 + i < cur && !bad.compare_exchange_weak(cur, p0 + i)) {
              }
            }
          }
        },
        0, 1024);
    if (bad.load() == UINT64_MAX) return true;
    const uint64_t b = bad.load();
    const uint8_t* s = d + b * page + file.lpage;
    why = "page " + std::to_string(b) + " (bytes " + std::to_string(b * page) + "-" +
          std::to_string((b + 1) * page - 1) + ") fails its CRC-32C checksum (stored " +
          hex32(uint32_t(s[0]) << 24 | uint32_t(s[1]) << 16 | uint32_t(s[2]) << 8 | s[3]) +
          ", computed " + hex32(crc32c(d + b * page, size_t(file.lpage))) + ")";
    return false;
  };
  std::string why;
  if (!check_pages(0, 1, why)) return fail(in, error, why);

  // ---- the XML section ----
  uint64_t xml_l;
  if (!file.to_logical(xml_off, xml_l) || xml_len == 0 || xml_len > file.logical_size - xml_l)
    return fail(in, error,
                "the XML section (offset " + std::to_string(xml_off) + ", " +
                    std::to_string(xml_len) + " bytes) lies outside the file");
  {
    const uint64_t p0 = xml_off / page, p1 = (xml_l + xml_len - 1) / file.lpage + 1;
    if (!check_pages(p0, std::min(p1, npages), why)) return fail(in, error, why);
  }
  std::string xml(size_t(xml_len), '\0');
  file.copy(xml_l, xml_len, reinterpret_cast<uint8_t*>(xml.data()));
  pugi::xml_document doc;
  const pugi::xml_parse_result pr = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default);
  if (!pr)
    return fail(in, error,
                std::string("bad XML section: ") + pr.description() + " at byte " +
                    std::to_string(pr.offset));
  const pugi::xml_node root = child(doc, "e57Root");
  if (!root) return fail(in, error, "bad XML section: no e57Root element");
  std::vector<Scan> scans;
  if (const pugi::xml_node data3d = child(root, "data3D")) {
    for (pugi::xml_node s = data3d.first_child(); s; s = s.next_sibling()) {
      if (s.type() != pugi::node_element) continue;
      Scan scan;
      scan.index = uint32_t(scans.size());
      if (!parse_scan(s, scan, why)) return fail(in, error, why);
      scans.push_back(std::move(scan));
    }
  }
  if (scans.empty()) return fail(in, error, "the file holds no scans (data3D is empty)");

  // ---- which scans ----
  std::vector<uint32_t> chosen;
  if (in.options->scans.empty()) {
    for (uint32_t k = 0; k < scans.size(); ++k) chosen.push_back(k);
  } else {
    for (const uint32_t k : in.options->scans) {
      if (k >= scans.size())
        return fail(in, error,
                    "no scan " + std::to_string(k) + " (the file holds " +
                        std::to_string(scans.size()) + " scans, 0 to " +
                        std::to_string(scans.size() - 1) + ")");
      if (std::find(chosen.begin(), chosen.end(), k) == chosen.end()) chosen.push_back(k);
    }
  }

  // ---- each chosen scan's binary section: checksums, then its packets ----
  for (const uint32_t k : chosen) {
    Scan& s = scans[k];
    const std::string where = "scan " + std::to_string(k);
    if (s.records == 0) continue;
    uint64_t sec_l;
    uint8_t h[32];
    if (!file.to_logical(s.section, sec_l) || !file.copy(sec_l, 32, h))
      return fail(in, error,
                  where + ": the points' section (offset " + std::to_string(s.section) +
                      ") lies outside the file");
    {
      const uint64_t p0 = s.section / page;
      if (!check_pages(p0, std::min(p0 + 2, npages), why)) return fail(in, error, why);
      file.copy(sec_l, 32, h);
    }
    if (h[0] != 1)
      return fail(in, error, where + ": the points' section is not a compressed vector section");
    const uint64_t sec_len = get_le<uint64_t>(h + 8), data_off = get_le<uint64_t>(h + 16);
    uint64_t data_l;
    if (sec_len < 32 || sec_len > file.logical_size - sec_l || !file.to_logical(data_off, data_l) ||
        data_l < sec_l + 32 || data_l >= sec_l + sec_len)
      return fail(in, error, where + ": the points' section lies outside the file");
    const uint64_t end_l = sec_l + sec_len;
    if (!check_pages(s.section / page, std::min((end_l - 1) / file.lpage + 1, npages), why))
      return fail(in, error, why);
    // The bytes each used stream needs for all records.
    std::vector<uint64_t> need(s.streams, 0);
    uint64_t record_bits = 0;
    for (const Field& f : s.field)
      if (f.stream >= 0) need[size_t(f.stream)] = (s.records * f.bits + 7) / 8;
    for (const Field& f : s.field) record_bits += f.stream >= 0 ? f.bits : 0;
    // Counts the file's bytes cannot back are refused before anything is allocated: a record
    // takes at least one bit of the section (a byte when all its fields are constant).
    const uint64_t max_records = record_bits ? sec_len * 8 / record_bits : sec_len;
    if (s.records > max_records)
      return fail(in, error,
                  where + " declares " + std::to_string(s.records) +
                      " records but its section holds at most " + std::to_string(max_records));
    std::vector<uint64_t> have(s.streams, 0), blen;
    std::vector<uint64_t> lens(s.streams);
    std::vector<uint8_t> tmp(size_t(s.streams) * 2);
    auto satisfied = [&] {
      for (uint32_t i = 0; i < s.streams; ++i)
        if (have[i] < need[i]) return false;
      return true;
    };
    uint64_t pos = data_l;
    while (pos < end_l && !satisfied()) {
      uint8_t ph[6];
      if (end_l - pos < 4 || !file.copy(pos, 4, ph))
        return fail(in, error, where + ": a packet header runs past its section");
      const uint64_t plen = uint64_t(get_le<uint16_t>(ph + 2)) + 1;
      if (plen > end_l - pos)
        return fail(
            in, error,
            where + ": a packet of " + std::to_string(plen) + " bytes runs past its section");
      if (ph[0] == 1) {
        if (plen < 6 || !file.copy(pos, 6, ph))
          return fail(in, error, where + ": a data packet is shorter than its header");
        const uint32_t count = get_le<uint16_t>(ph + 4);
        if (count != s.streams)
          return fail(in, error,
                      where + ": a data packet holds " + std::to_string(count) +
                          " bytestreams, the prototype " + std::to_string(s.streams));
        if (6 + 2 * uint64_t(count) > plen || !file.copy(pos + 6, 2 * uint64_t(count), tmp.data()))
          return fail(in, error, where + ": a data packet's bytestream lengths overrun it");
        uint64_t at = pos + 6 + 2 * uint64_t(count), total = 6 + 2 * uint64_t(count);
        for (uint32_t i = 0; i < count; ++i) total += lens[i] = get_le<uint16_t>(&tmp[2 * i]);
        if (total > plen)
          return fail(in, error,
                      where + ": a data packet's bytestreams (" + std::to_string(total) +
                          " bytes) overrun its length " + std::to_string(plen));
        for (uint32_t i = 0; i < count; ++i) {
          s.buf.push_back(at);
          blen.push_back(lens[i]);
          at += lens[i];
          have[i] += lens[i];
        }
        ++s.packets;
      } else if (ph[0] != 0 && ph[0] != 2) {
        return fail(in, error, where + ": unknown packet type " + std::to_string(ph[0]));
      }
      pos += plen;
    }
    if (!satisfied())
      return fail(in, error,
                  where + ": its data packets hold fewer than the " + std::to_string(s.records) +
                      " records it declares");
    s.cum.assign(size_t(s.streams) * (s.packets + 1), 0);
    for (uint32_t i = 0; i < s.streams; ++i) {
      uint64_t* c = s.cum.data() + size_t(i) * (s.packets + 1);
      for (size_t p = 0; p < s.packets; ++p) c[p + 1] = c[p] + blen[p * s.streams + i];
    }
  }

  // ---- decode: every chosen scan cut into chunks of records, all chunks in parallel ----
  struct Chunk {
    uint32_t scan;
    uint64_t r0;
    size_t n;
  };
  std::vector<Chunk> chunks;
  std::vector<size_t> caps;
  Attributes attrs;
  for (const uint32_t k : chosen) {
    const Scan& s = scans[k];
    attrs.color |= s.color;
    attrs.intensity |= s.intensity;
    for (uint64_t r = 0; r < s.records; r += kChunk) {
      const size_t n = size_t(std::min<uint64_t>(kChunk, s.records - r));
      chunks.push_back({k, r, n});
      caps.push_back(n);
    }
  }
  // The origin from a sample: 64 runs of 16 records spread through each chosen scan.
  Bounds sample;
  {
    for (const uint32_t k : chosen) {
      const Scan& s = scans[k];
      for (uint64_t j = 0; j < 64 && s.records; ++j) {
        const uint64_t r = s.records * j / 64;
        const size_t n = size_t(std::min<uint64_t>(16, s.records - r));
        if (!decode_records(file, s, r, n, [&](const RawPoint& p) {
              if (std::isfinite(p.x) && std::isfinite(p.y) && std::isfinite(p.z))
                sample.extend({p.x, p.y, p.z});
            }))
          return fail(in, error, "scan " + std::to_string(k) + ": its data packets end early");
      }
    }
  }
  std::vector<std::atomic<uint64_t>> kept(scans.size());
  PointSink sink(in, out, attrs, choose_origin(sample));
  if (!sink.run(
          caps,
          [&](size_t b, BlockWriter& w, std::string& err) {
            const Chunk& c = chunks[b];
            if (!decode_records(file, scans[c.scan], c.r0, c.n, w)) {
              err = "scan " + std::to_string(c.scan) + ": its data packets end early";
              return false;
            }
            kept[c.scan].fetch_add(w.n);
            return true;
          },
          error))
    return false;
  FileInfo& fi = *out.info;
  fi.format = "E57";
  fi.version = std::to_string(major) + "." + std::to_string(minor);
  fi.scans.clear();
  for (const Scan& s : scans) {
    ScanInfo si;
    si.name = s.name;
    si.records = s.records;
    si.read = std::find(chosen.begin(), chosen.end(), s.index) != chosen.end();
    si.points = kept[s.index].load();
    fi.scans.push_back(std::move(si));
  }
  finish(in, out, sink.bounds, attrs);
  return true;
}

}  // namespace pr::io
