// Test helper for the comparison against independent readers (tests/io/compare_readers.py):
//   io_sample read FILE N [DEPTH]  prints {"points", "origin", "bounds_min", "bounds_max",
//                                  "sample": [[index, x, y, z, r, g, b, intensity,
//                                  classification, returns, point source, GPS time], ...],
//                                  "fields": [[name, [value, ...]], ...]} with N points evenly
//                                  spaced through the cloud (world coordinates) and their named
//                                  fields (ScalarField) in the cloud's order;
//                                  DEPTH: LoadOptions::max_depth (COPC levels 0 to DEPTH)
//   io_sample records FILE OUT     writes the decompressed point records of the LAZ file FILE
//                                  to OUT (the bytes after a LAS file's header and VLRs)
//   io_sample write KIND N FILE    writes N generated points with the project's writers; KIND is
//                                  las0..las10, ply-ascii, ply-le, ply-be, pcd-ascii, pcd-binary
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "engine/io/io.h"

namespace {

int read_cmd(const std::string& path, size_t n, int max_depth) {
  pr::PointCloud c;
  pr::FileInfo info;
  std::string err;
  pr::LoadOptions o;
  o.max_depth = max_depth;
  if (!pr::load_point_cloud(path, c, &info, &err, nullptr, &o)) {
    std::printf("{\"error\": \"%s\"}\n", err.c_str());
    return 1;
  }
  std::printf("{\"points\": %zu, \"format\": \"%s\", \"origin\": [%.17g, %.17g, %.17g], ", c.size(),
              info.format.c_str(), c.origin.x, c.origin.y, c.origin.z);
  std::printf("\"bounds_min\": [%.17g, %.17g, %.17g], \"bounds_max\": [%.17g, %.17g, %.17g], ",
              info.bounds.min.x, info.bounds.min.y, info.bounds.min.z, info.bounds.max.x,
              info.bounds.max.y, info.bounds.max.z);
  std::printf("\"has_color\": %s, \"sample\": [", info.has_color ? "true" : "false");
  const size_t k = std::min(n, c.size());
  auto index = [&](size_t j) { return k <= 1 ? size_t(0) : j * (c.size() - 1) / (k - 1); };
  for (size_t j = 0; j < k; ++j) {
    const size_t i = index(j);
    const pr::Float3 p = c.positions[i];
    const uint32_t col = c.colors[i];
    // The attributes a cloud lacks print as 0.
    std::printf("%s[%zu, %.17g, %.17g, %.17g, %u, %u, %u, %.9g, %u, %u, %u, %.17g]", j ? ", " : "",
                i, c.origin.x + double(p.x), c.origin.y + double(p.y), c.origin.z + double(p.z),
                col & 255u, (col >> 8) & 255u, (col >> 16) & 255u,
                c.has_intensity() ? double(c.intensity[i]) : 0.0,
                c.classification.empty() ? 0u : unsigned(c.classification[i]),
                c.returns.empty() ? 0u : unsigned(c.returns[i]),
                c.point_source.empty() ? 0u : unsigned(c.point_source[i]),
                c.gps_time.empty() ? 0.0 : c.gps_time[i]);
  }
  // The named fields at the same points: {"name": [value, ...], ...} in the cloud's order.
  std::printf("], \"fields\": [");
  for (size_t f = 0; f < c.fields.size(); ++f) {
    std::printf("%s[\"", f ? ", " : "");
    for (const char ch : c.fields[f].name)
      if (ch == '"' || ch == '\\')
        std::printf("\\%c", ch);
      else if (static_cast<unsigned char>(ch) >= 0x20)
        std::putchar(ch);
    std::printf("\", [");
    for (size_t j = 0; j < k; ++j) {
      const double v = double(c.fields[f].values[index(j)]);
      std::printf("%s", j ? ", " : "");
      // Python's json reads NaN and Infinity, not printf's nan and inf.
      if (std::isnan(v))
        std::printf("NaN");
      else if (std::isinf(v))
        std::printf("%sInfinity", v < 0 ? "-" : "");
      else
        std::printf("%.9g", v);
    }
    std::printf("]]");
  }
  std::printf("]}\n");
  return 0;
}

int records_cmd(const std::string& path, const std::string& out) {
  std::vector<uint8_t> records;
  size_t rec = 0;
  std::string err;
  if (!pr::decompress_laz(path, records, &rec, &err)) {
    std::fprintf(stderr, "io_sample: %s\n", err.c_str());
    return 1;
  }
  std::FILE* f = std::fopen(out.c_str(), "wb");
  if (!f || std::fwrite(records.data(), 1, records.size(), f) != records.size()) {
    std::fprintf(stderr, "io_sample: cannot write %s\n", out.c_str());
    if (f) std::fclose(f);
    return 1;
  }
  std::fclose(f);
  std::printf("{\"records\": %zu, \"record_length\": %zu}\n", rec ? records.size() / rec : 0, rec);
  return 0;
}

int write_cmd(const std::string& kind, size_t n, const std::string& path) {
  pr::PointCloud c;
  // UTM-size coordinates for LAS and double PLY/PCD; local ones otherwise
  const bool big = kind.rfind("las", 0) == 0 || kind.ends_with("-utm");
  c.origin = big ? glm::dvec3(512345.0, 5412345.0, 250.0) : glm::dvec3(0.0);
  c.resize(n);
  c.intensity.resize(n);
  c.classification.resize(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-2000.0f, 2000.0f);
  for (size_t i = 0; i < n; ++i) {
    // millimetre grid: LAS (scale 0.001) and text store it exactly
    c.positions[i] = {std::round(u(rng)) / 1000.0f * 997.0f, std::round(u(rng)) / 1000.0f * 991.0f,
                      std::round(u(rng) * 0.1f) / 10.0f};
    const uint32_t h = uint32_t(i * 2654435761u);
    c.colors[i] = pr::rgba(uint8_t(h), uint8_t(h >> 8), uint8_t(h >> 16));
    c.intensity[i] = float(h % 65536);
    c.classification[i] = uint8_t(h % 32);
  }
  std::string err;
  bool ok = false;
  if (kind.rfind("las", 0) == 0) {
    ok = pr::save_las(path, c, std::atoi(kind.c_str() + 3), &err);
  } else if (kind.rfind("ply-ascii", 0) == 0) {
    ok = pr::save_ply(path, c, pr::PlyEncoding::kAscii, &err);
  } else if (kind.rfind("ply-le", 0) == 0) {
    ok = pr::save_ply(path, c, pr::PlyEncoding::kBinaryLittleEndian, &err);
  } else if (kind.rfind("ply-be", 0) == 0) {
    ok = pr::save_ply(path, c, pr::PlyEncoding::kBinaryBigEndian, &err);
  } else if (kind.rfind("pcd-ascii", 0) == 0) {
    ok = pr::save_pcd(path, c, false, &err);
  } else if (kind.rfind("pcd-binary", 0) == 0) {
    ok = pr::save_pcd(path, c, true, &err);
  } else {
    err = "unknown kind " + kind;
  }
  if (!ok) std::fprintf(stderr, "io_sample: %s\n", err.c_str());
  return ok ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  if ((argc == 4 || argc == 5) && std::string(argv[1]) == "read")
    return read_cmd(argv[2], std::strtoull(argv[3], nullptr, 10),
                    argc == 5 ? std::atoi(argv[4]) : -1);
  if (argc == 4 && std::string(argv[1]) == "records") return records_cmd(argv[2], argv[3]);
  if (argc == 5 && std::string(argv[1]) == "write")
    return write_cmd(argv[2], std::strtoull(argv[3], nullptr, 10), argv[4]);
  std::fprintf(
      stderr,
      "usage: io_sample read FILE N | io_sample records FILE OUT | io_sample write KIND N FILE\n");
  return 2;
}
