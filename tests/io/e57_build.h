// A small E57 writer for the engine tests: the logical bytes are laid out (a section header,
// data packets cut at uneven places so that values straddle packets, the XML), then cut into
// 1024-byte pages with their checksums.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "../fuzz/e57_pages.h"

namespace pr::test {

inline uint64_t phys(uint64_t logical) {
  return logical / 1020 * 1024 + logical % 1020;
}

/// Appends `bits` bits of v to a least-significant-bit-first stream.
struct BitWriter {
  std::vector<uint8_t> bytes;
  uint64_t nbits = 0;
  void put(uint64_t v, unsigned bits) {
    for (unsigned b = 0; b < bits; ++b, ++nbits) {
      if (nbits % 8 == 0) bytes.push_back(0);
      if ((v >> b) & 1) bytes.back() |= uint8_t(1u << (nbits % 8));
    }
  }
  void put_double(double d) {
    uint64_t u;
    std::memcpy(&u, &d, 8);
    put(u, 64);
  }
};

struct TestScan {
  std::string prototype_xml;  ///< the children of <prototype>
  std::string extra_xml;      ///< pose, limits, ...
  std::vector<BitWriter> streams;
  uint64_t records = 0;
  int packets = 1;  ///< the streams cut into this many data packets at uneven places
  std::string codecs_xml;
};

template <class T>
inline void put_le(std::string& s, size_t at, T v) {
  std::memcpy(&s[at], &v, sizeof v);
}

/// The whole file. `xml_hook` may edit the XML text before it is laid out.
inline std::string build_e57(std::vector<TestScan> scans,
                             std::string (*xml_hook)(std::string) = nullptr) {
  std::string lg(48, '\0');  // logical bytes; the header first
  std::vector<uint64_t> offsets;
  for (TestScan& s : scans) {
    while (lg.size() % 4) lg.push_back('\0');
    const uint64_t sec = lg.size();
    offsets.push_back(phys(sec));
    lg.append(32, '\0');
    const size_t ns = s.streams.size();
    // Enough packets to stay under 64 KiB each, cut at uneven places so that values straddle
    // packets.
    size_t total = 0;
    for (const BitWriter& w : s.streams) total += w.bytes.size();
    const size_t np = std::max<size_t>(size_t(s.packets), total / 40000 + 1);
    auto cut = [&](size_t n, size_t k) {
      if (k == 0) return size_t(0);
      if (k >= np) return n;
      return std::min(n, n * k / np + (k * 7919) % 13);
    };
    for (size_t p = 0; p < np; ++p) {
      std::string pk(6 + 2 * ns, '\0');
      pk[0] = 1;
      put_le<uint16_t>(pk, 4, uint16_t(ns));
      for (size_t k = 0; k < ns; ++k) {
        const size_t n = s.streams[k].bytes.size();
        const size_t a = cut(n, p), b = std::max(a, cut(n, p + 1));
        put_le<uint16_t>(pk, 6 + 2 * k, uint16_t(b - a));
        pk.append(reinterpret_cast<const char*>(s.streams[k].bytes.data()) + a, b - a);
      }
      while (pk.size() % 4) pk.push_back('\0');
      put_le<uint16_t>(pk, 2, uint16_t(pk.size() - 1));
      lg += pk;
    }
    std::string h(32, '\0');
    h[0] = 1;
    put_le<uint64_t>(h, 8, lg.size() - sec);
    put_le<uint64_t>(h, 16, phys(sec + 32));
    lg.replace(sec, 32, h);
  }
  std::string xml =
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<e57Root type=\"Structure\" "
      "xmlns=\"http://www.astm.org/COMMIT/E57/2010-e57-v1.0\">\n<data3D type=\"Vector\">\n";
  for (size_t k = 0; k < scans.size(); ++k) {
    xml += "<vectorChild type=\"Structure\"><name type=\"String\"><![CDATA[scan " +
           std::to_string(k) + "]]></name>" + scans[k].extra_xml +
           "<points type=\"CompressedVector\" fileOffset=\"" + std::to_string(offsets[k]) +
           "\" recordCount=\"" + std::to_string(scans[k].records) +
           "\"><prototype type=\"Structure\">" + scans[k].prototype_xml +
           "</prototype><codecs type=\"Vector\">" + scans[k].codecs_xml +
           "</codecs></points></vectorChild>\n";
  }
  xml += "</data3D>\n<images2D type=\"Vector\"/>\n</e57Root>\n";
  if (xml_hook) xml = xml_hook(xml);
  const uint64_t xml_l = lg.size();
  lg += xml;
  while (lg.size() % 1020) lg.push_back('\0');
  std::string f;
  for (size_t p = 0; p < lg.size(); p += 1020) {
    f.append(lg, p, 1020);
    f.append(4, '\0');
  }
  std::memcpy(&f[0], "ASTM-E57", 8);
  put_le<uint32_t>(f, 8, 1);
  put_le<uint32_t>(f, 12, 0);
  put_le<uint64_t>(f, 16, f.size());
  put_le<uint64_t>(f, 24, phys(xml_l));
  put_le<uint64_t>(f, 32, xml.size());
  put_le<uint64_t>(f, 40, 1024);
  e57_fix_checksums(reinterpret_cast<uint8_t*>(f.data()), f.size());
  return f;
}

}  // namespace pr::test
