// ASTM E57 (E2807) files, the physical and descriptive layers: the file header, the pages with
// their checksums, logical offsets, and the scans as the XML section describes them. The points'
// binary sections (packets, bit-pack streams) are read in e57.cpp.
//
// Physical layout: the file is a sequence of pages (1024 bytes in practice) whose last 4 bytes
// hold the CRC-32C of the rest of the page, stored big-endian. Offsets in the file header and in
// the XML are physical (they count the checksums); lengths are logical (they do not), so reading
// n logical bytes from physical offset p walks page by page, skipping each page's checksum.
//
// The XML section describes the scans (`/data3D/vectorChild`): a pose (unit quaternion w,x,y,z and
// a translation: world = R p + t), limits of intensity and color, and the points, a
// CompressedVector whose `prototype` lists the fields of a record: Integer and ScaledInteger
// fields take ceil(log2(maximum - minimum + 1)) bits a value (none when minimum == maximum),
// Float fields 32 or 64.
#pragma once

#include <glm/glm.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/io/base/io_common.h"

namespace pr::io::e57 {

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
  /// Checks pages [p0, p1) against their CRC-32C; false with `why` naming the first bad page.
  bool check_pages(uint64_t p0, uint64_t p1, std::string& why) const;
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

/// An E57 file opened: its version, its pages and the scans its XML section describes.
struct File {
  uint32_t major = 0, minor = 0;
  Paged paged;
  std::vector<Scan> scans;
};

/// Checks the file header and the pages of the XML section, then parses the scans' descriptions
/// into f; false with `why` (one line) on any problem. The points' sections are not touched.
bool open_file(const uint8_t* data, uint64_t size, File& f, std::string& why);

}  // namespace pr::io::e57
