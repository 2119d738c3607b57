// --info: what each file holds, as text or one JSON object per file (one per line).
#include "info.h"

#include <cmath>
#include <cstdio>
#include <string>

#include "engine/frame_stats.h"
#include "engine/io/io.h"
#include "startup.h"

namespace pr {

namespace {

std::string json_escape(const std::string& s) {
  std::string o;
  for (unsigned char c : s) {
    switch (c) {
      case '"':
        o += "\\\"";
        break;
      case '\\':
        o += "\\\\";
        break;
      case '\n':
        o += "\\n";
        break;
      case '\r':
        o += "\\r";
        break;
      case '\t':
        o += "\\t";
        break;
      default:
        if (c < 0x20) {
          char b[8];
          std::snprintf(b, sizeof b, "\\u%04x", c);
          o += b;
        } else {
          o += char(c);
        }
    }
  }
  return o;
}

std::string json_num(double v) {
  if (!std::isfinite(v)) return "null";
  char b[40];
  std::snprintf(b, sizeof b, "%.17g", v);
  return b;
}

std::string json_vec(const glm::dvec3& v) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "[" + std::string&&.
  std::string s = "[";
  s += json_num(v.x);
  s += ", ";
  s += json_num(v.y);
  s += ", ";
  s += json_num(v.z);
  s += "]";
  return s;
}

std::string json_scans(const std::vector<ScanInfo>& scans) {
  std::string s = "[";
  for (size_t k = 0; k < scans.size(); ++k) {
    const ScanInfo& sc = scans[k];
    if (k) s += ", ";
    s += "{\"name\": \"" + json_escape(sc.name) + "\", \"records\": " + std::to_string(sc.records) +
         ", \"points\": " + std::to_string(sc.points) +
         ", \"read\": " + (sc.read ? "true" : "false") + "}";
  }
  return s + "]";
}

// COPC: the octree's root cube, spacing, and per level its nodes, points and whether it was read.
std::string json_copc(const CopcInfo& c) {
  std::string s = "{\"center\": " + json_vec(c.center) + ", \"halfsize\": " + json_num(c.halfsize) +
                  ", \"spacing\": " + json_num(c.spacing) + ", \"levels\": [";
  for (size_t l = 0; l < c.levels.size(); ++l) {
    if (l) s += ", ";
    s += "{\"nodes\": " + std::to_string(c.levels[l].nodes) +
         ", \"points\": " + std::to_string(c.levels[l].points) +
         ", \"read\": " + (c.levels[l].read ? "true" : "false") + "}";
  }
  return s + "]}";
}

}  // namespace

int run_info(const Options& o) {
  int rc = 0;
  const LoadOptions lo = load_options(o);
  for (const auto& path : o.files) {
    PointCloud cloud;
    FileInfo info;
    std::string err;
    Stopwatch sw;
    const bool ok = load_point_cloud(path, cloud, &info, &err, nullptr, &lo);
    info.file = path;
    if (info.seconds == 0.0) info.seconds = sw.ms() * 1e-3;
    if (!ok) rc = 1;
    if (o.json) {
      if (!ok) {
        std::printf("{\"file\": \"%s\", \"error\": \"%s\"}\n", json_escape(path).c_str(),
                    json_escape(err).c_str());
        continue;
      }
      std::printf(
          "{\"file\": \"%s\", \"format\": \"%s\", \"version\": \"%s\", \"points\": %llu, "
          "\"bounds_min\": %s, \"bounds_max\": %s, \"origin\": %s, \"has_color\": %s, "
          "\"has_intensity\": %s, \"has_classification\": %s, \"seconds\": %s%s%s}\n",
          json_escape(path).c_str(), json_escape(info.format).c_str(),
          json_escape(info.version).c_str(), (unsigned long long)info.points,
          json_vec(info.bounds.min).c_str(), json_vec(info.bounds.max).c_str(),
          json_vec(info.origin).c_str(), info.has_color ? "true" : "false",
          info.has_intensity ? "true" : "false", info.has_classification ? "true" : "false",
          json_num(info.seconds).c_str(),
          info.scans.empty() ? "" : (", \"scans\": " + json_scans(info.scans)).c_str(),
          info.copc.present ? (", \"copc\": " + json_copc(info.copc)).c_str() : "");
    } else {
      if (!ok) {
        std::fprintf(stderr, "pointraster: %s\n", err.c_str());
        continue;
      }
      std::printf("%s\n  format      %s %s\n  points      %llu\n", path.c_str(),
                  info.format.c_str(), info.version.c_str(), (unsigned long long)info.points);
      std::printf("  bounds min  %.6f %.6f %.6f\n  bounds max  %.6f %.6f %.6f\n", info.bounds.min.x,
                  info.bounds.min.y, info.bounds.min.z, info.bounds.max.x, info.bounds.max.y,
                  info.bounds.max.z);
      std::printf("  origin      %.6f %.6f %.6f\n", info.origin.x, info.origin.y, info.origin.z);
      std::printf("  attributes  %s%s%s\n", info.has_color ? "color " : "",
                  info.has_intensity ? "intensity " : "",
                  info.has_classification ? "classification" : "");
      if (!info.scans.empty()) std::printf("  scans       %zu\n", info.scans.size());
      for (size_t k = 0; k < info.scans.size(); ++k) {
        const ScanInfo& sc = info.scans[k];
        std::printf("    %-3zu %llu points", k, (unsigned long long)sc.points);
        if (sc.points != sc.records)
          std::printf(" of %llu records%s", (unsigned long long)sc.records,
                      sc.read ? "" : " (not read)");
        std::printf("%s%s\n", sc.name.empty() ? "" : "  ", sc.name.c_str());
      }
      if (info.copc.present) {
        const CopcInfo& c = info.copc;
        uint64_t nodes = 0;
        for (const CopcLevel& l : c.levels) nodes += l.nodes;
        std::printf(
            "  copc        %zu levels, %llu nodes, spacing %g, root centre %.6f %.6f %.6f "
            "halfsize %g\n",
            c.levels.size(), (unsigned long long)nodes, c.spacing, c.center.x, c.center.y,
            c.center.z, c.halfsize);
        for (size_t l = 0; l < c.levels.size(); ++l)
          std::printf("    level %-3zu %u nodes, %llu points%s\n", l, c.levels[l].nodes,
                      (unsigned long long)c.levels[l].points,
                      c.levels[l].read ? "" : " (not read)");
      }
      std::printf("  load time   %.3f s\n", info.seconds);
    }
  }
  return rc;
}

}  // namespace pr
