// The E57 physical layer and scan descriptions: CRC-32C (SSE4.2 or slicing by 8), the file
// header, page checks, and the XML section parsed (pugixml) into one Scan per data3D entry, its
// pose as a rotation matrix, its prototype's fields by role, its color limits.
#include "e57_file.h"

#include <pugixml.hpp>

#include <atomic>
#include <cmath>
#include <cstdio>

#include "engine/io/base/io_common.h"
#include "text_rows.h"

namespace pr::io::e57 {

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

std::string hex32(uint32_t v) {
  char b[16];
  std::snprintf(b, sizeof b, "0x%08x", v);
  return b;
}

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

/// The scan's pose (a unit quaternion and a translation) as a rotation matrix and translation;
/// false with `why`.
bool parse_pose(const pugi::xml_node& pose, const std::string& where, Scan& scan,
                std::string& why) {
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
  return true;
}

/// The prototype's fields: each one's bytestream (its position) and coding, by role; then which
/// coordinates (cartesian or spherical) and attributes the scan has. False with `why`.
bool parse_prototype(const pugi::xml_node& proto, const std::string& where, Scan& scan,
                     std::string& why) {
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
  return true;
}

/// Colors scale from their limits to 0..255: colorLimits (`lim`) when given, else the fields' own
/// integer range.
void color_limits(const pugi::xml_node& lim, Scan& scan) {
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

/// The scan's description from its data3D entry; false with `why`.
bool parse_scan(const pugi::xml_node& s, Scan& scan, std::string& why) {
  const std::string where = "scan " + std::to_string(scan.index);
  scan.name = trim(child(s, "name").child_value());
  if (const pugi::xml_node pose = child(s, "pose"))
    if (!parse_pose(pose, where, scan, why)) return false;
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
  if (!parse_prototype(proto, where, scan, why)) return false;
  if (scan.color) color_limits(child(s, "colorLimits"), scan);
  return true;
}

}  // namespace

bool Paged::check_pages(uint64_t p0, uint64_t p1, std::string& why) const {
  std::atomic<uint64_t> bad{UINT64_MAX};
  parallel_for(
      size_t(p1 - p0),
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i) {
          const uint8_t* pg = data + (p0 + i) * page;
          const uint32_t c = crc32c(pg, size_t(lpage));
          const uint8_t* s = pg + lpage;
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
  const uint8_t* s = data + b * page + lpage;
  why = "page " + std::to_string(b) + " (bytes " + std::to_string(b * page) + "-" +
        std::to_string((b + 1) * page - 1) + ") fails its CRC-32C checksum (stored " +
        hex32(uint32_t(s[0]) << 24 | uint32_t(s[1]) << 16 | uint32_t(s[2]) << 8 | s[3]) +
        ", computed " + hex32(crc32c(data + b * page, size_t(lpage))) + ")";
  return false;
}

namespace {

/// The file header (signature, version, length, page size) into f.major, f.minor and f.paged;
/// false with `why`.
bool read_file_header(const uint8_t* d, uint64_t size, File& f, uint64_t& xml_off,
                      uint64_t& xml_len, std::string& why) {
  if (size < 48) {
    why = "truncated E57 header (" + std::to_string(size) + " bytes, need 48)";
    return false;
  }
  if (std::memcmp(d, "ASTM-E57", 8) != 0) {
    why = "no 'ASTM-E57' signature";
    return false;
  }
  const uint32_t major = get_le<uint32_t>(d + 8), minor = get_le<uint32_t>(d + 12);
  const uint64_t phys_len = get_le<uint64_t>(d + 16), page = get_le<uint64_t>(d + 40);
  xml_off = get_le<uint64_t>(d + 24);
  xml_len = get_le<uint64_t>(d + 32);
  if (major != 1) {
    why = "unsupported E57 version " + std::to_string(major) + "." + std::to_string(minor);
    return false;
  }
  if (page < 64 || page > (uint64_t(1) << 20) || page % 4 != 0) {
    why = "bad E57 page size " + std::to_string(page);
    return false;
  }
  if (phys_len > size) {
    why = "truncated: the header says " + std::to_string(phys_len) + " bytes, the file holds " +
          std::to_string(size);
    return false;
  }
  if (phys_len % page != 0 || phys_len < page) {
    why = "truncated page: the file length " + std::to_string(phys_len) +
          " is not a whole number of " + std::to_string(page) + "-byte pages";
    return false;
  }
  f.major = major;
  f.minor = minor;
  Paged& file = f.paged;
  file.data = d;
  file.size = phys_len;
  file.page = page;
  file.lpage = page - 4;
  file.logical_size = (phys_len / page) * file.lpage;
  return true;
}

/// The XML section's text, its pages checked; false with `why`.
bool read_xml(const Paged& file, uint64_t xml_off, uint64_t xml_len, std::string& xml,
              std::string& why) {
  uint64_t xml_l;
  if (!file.to_logical(xml_off, xml_l) || xml_len == 0 || xml_len > file.logical_size - xml_l) {
    why = "the XML section (offset " + std::to_string(xml_off) + ", " + std::to_string(xml_len) +
          " bytes) lies outside the file";
    return false;
  }
  const uint64_t p0 = xml_off / file.page, p1 = (xml_l + xml_len - 1) / file.lpage + 1;
  if (!file.check_pages(p0, std::min(p1, file.size / file.page), why)) return false;
  xml.assign(size_t(xml_len), '\0');
  file.copy(xml_l, xml_len, reinterpret_cast<uint8_t*>(xml.data()));
  return true;
}

}  // namespace

bool open_file(const uint8_t* d, uint64_t size, File& f, std::string& why) {
  uint64_t xml_off = 0, xml_len = 0;
  if (!read_file_header(d, size, f, xml_off, xml_len, why)) return false;
  // Checksums: a page is trusted only after its CRC-32C matches.
  if (!f.paged.check_pages(0, 1, why)) return false;
  std::string xml;
  if (!read_xml(f.paged, xml_off, xml_len, xml, why)) return false;
  pugi::xml_document doc;
  const pugi::xml_parse_result pr = doc.load_buffer(xml.data(), xml.size(), pugi::parse_default);
  if (!pr) {
    why = std::string("bad XML section: ") + pr.description() + " at byte " +
          std::to_string(pr.offset);
    return false;
  }
  const pugi::xml_node root = child(doc, "e57Root");
  if (!root) {
    why = "bad XML section: no e57Root element";
    return false;
  }
  std::vector<Scan>& scans = f.scans;
  if (const pugi::xml_node data3d = child(root, "data3D")) {
    for (pugi::xml_node s = data3d.first_child(); s; s = s.next_sibling()) {
      if (s.type() != pugi::node_element) continue;
      Scan scan;
      scan.index = uint32_t(scans.size());
      if (!parse_scan(s, scan, why)) return false;
      scans.push_back(std::move(scan));
    }
  }
  // No scan (data3D empty or absent: a file of images only) is a file without points.
  return true;
}

}  // namespace pr::io::e57
