// --info: what each file holds, as text or one JSON object per file (one per line).
#include "info.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "engine/frame_stats.h"
#include "engine/io/copc.h"
#include "engine/io/ept_source.h"
#include "engine/io/formats.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/survey.h"
#include "startup.h"
#include "streaming.h"

namespace pr {

namespace {

// ordered_json: the keys in the order they are set, as the readers' comparisons print them.
using Json = nlohmann::ordered_json;

/// A coordinate or size: a whole number without a fraction (636594, not 636594.0, as printf's
/// %.17g wrote them and the readers' comparisons expect); others as the shortest decimal that
/// reads back as the same double; a non-finite number as null.
Json json_number(double v) {
  constexpr double kExactInt = 9007199254740992.0;  // 2^53: every integer below is a double
  if (v == std::floor(v) && std::fabs(v) < kExactInt) return int64_t(v);
  return v;
}

Json json_vec(const glm::dvec3& v) {
  return Json::array({json_number(v.x), json_number(v.y), json_number(v.z)});
}

Json json_scans(const std::vector<ScanInfo>& scans) {
  Json a = Json::array();
  for (const ScanInfo& sc : scans)
    a.push_back(
        {{"name", sc.name}, {"records", sc.records}, {"points", sc.points}, {"read", sc.read}});
  return a;
}

// COPC: the octree's root cube, spacing, and per level its nodes, points and whether it was read.
Json json_copc(const CopcInfo& c) {
  Json levels = Json::array();
  for (const CopcLevel& l : c.levels)
    levels.push_back({{"nodes", l.nodes}, {"points", l.points}, {"read", l.read}});
  Json j = {{"center", json_vec(c.center)},
            {"halfsize", json_number(c.halfsize)},
            {"spacing", json_number(c.spacing)},
            {"levels", levels}};
  if (c.unread_pages) j["unread_pages"] = c.unread_pages;
  return j;
}

Json json_info(const FileInfo& info) {
  Json j = {{"file", info.file},
            {"format", info.format},
            {"version", info.version},
            {"points", info.points},
            {"bounds_min", json_vec(info.bounds.min)},
            {"bounds_max", json_vec(info.bounds.max)},
            {"origin", json_vec(info.origin)},
            {"has_color", info.has_color},
            {"has_intensity", info.has_intensity},
            {"has_classification", info.has_classification},
            {"seconds", json_number(info.seconds)}};
  if (!info.scans.empty()) j["scans"] = json_scans(info.scans);
  if (info.copc.present) j["copc"] = json_copc(info.copc);
  if (!info.warnings.empty()) j["warnings"] = info.warnings;
  return j;
}

/// printf onto the end of `out`.
[[gnu::format(printf, 2, 3)]] void appendf(std::string& out, const char* format, ...) {
  char buf[512];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  if (n < 0) return;
  if (size_t(n) < sizeof buf) {
    out.append(buf, size_t(n));
    return;
  }
  std::string big(size_t(n) + 1, '\0');
  va_start(args, format);
  std::vsnprintf(big.data(), big.size(), format, args);
  va_end(args);
  out.append(big.data(), size_t(n));
}

void scans_text(std::string& s, const std::vector<ScanInfo>& scans) {
  if (!scans.empty()) appendf(s, "  scans       %zu\n", scans.size());
  for (size_t k = 0; k < scans.size(); ++k) {
    const ScanInfo& sc = scans[k];
    appendf(s, "    %-3zu %llu points", k, (unsigned long long)sc.points);
    if (sc.points != sc.records)
      appendf(s, " of %llu records%s", (unsigned long long)sc.records,
              sc.read ? "" : " (not read)");
    appendf(s, "%s%s\n", sc.name.empty() ? "" : "  ", sc.name.c_str());
  }
}

void copc_text(std::string& s, const CopcInfo& c) {
  uint64_t nodes = 0;
  for (const CopcLevel& l : c.levels) nodes += l.nodes;
  appendf(s,
          "  copc        %zu levels, %llu nodes, spacing %g, root centre %.6f %.6f %.6f "
          "halfsize %g\n",
          c.levels.size(), (unsigned long long)nodes, c.spacing, c.center.x, c.center.y, c.center.z,
          c.halfsize);
  if (c.unread_pages)
    appendf(s, "    (the root hierarchy page: %u child pages not read)\n", c.unread_pages);
  // Level l's point spacing: the root's halved at each level (the COPC info VLR's definition).
  for (size_t l = 0; l < c.levels.size(); ++l)
    appendf(s, "    level %-3zu %u nodes, %llu points, spacing %g%s\n", l, c.levels[l].nodes,
            (unsigned long long)c.levels[l].points, std::ldexp(c.spacing, -int(l)),
            c.levels[l].read ? "" : " (not read)");
}

}  // namespace

namespace {

/// A COPC file from its header and hierarchy alone (engine/io/copc.h), never its points: every
/// hierarchy page of a local file, the root page of a URL (each page is a request). Null `file`:
/// the source is no COPC file (a plain LAZ file), which the caller reads whole.
FileReport describe_copc_file(const std::string& path, const CopcFile& file,
                              const LoadOptions& options) {
  FileReport r;
  Stopwatch sw;
  r.ok = file.describe(options, !is_url(path), r.info, &r.error);
  r.info.file = path;
  r.info.seconds = sw.ms() * 1e-3;
  return r;
}

/// A survey (the table's formats that list files to stream and are never read whole: .vpc; a
/// folder of COPC files): the tiles it lists, their declared points and bounds; no tile is opened,
/// except with `headers` (a folder, which declares nothing): each tile's header for its points,
/// bounds and attributes.
FileReport describe_survey(const std::string& path, const std::string& format,
                           const HttpOptions* http, bool headers = false) {
  FileReport r;
  r.info.file = path;
  Stopwatch sw;
  std::vector<SurveyTile> tiles;
  if (!list_survey({path}, tiles, &r.error, http)) return r;
  r.ok = true;
  r.info.format = format;
  r.info.version = std::to_string(tiles.size()) + (tiles.size() == 1 ? " tile" : " tiles");
  for (const SurveyTile& t : tiles) {
    r.info.points += t.points;
    r.info.bounds.extend(t.bounds);
    if (!headers) continue;
    std::unique_ptr<ByteSource> source = open_byte_source(t.href, &r.error, http);
    std::unique_ptr<CopcFile> copc = source ? CopcFile::open(std::move(source), &r.error) : nullptr;
    if (!copc) {
      r.ok = false;
      return r;
    }
    const FileInfo& fi = copc->info();
    r.info.points += fi.points;
    r.info.bounds.extend(fi.bounds);
    r.info.has_color |= fi.has_color;
    r.info.has_intensity |= fi.has_intensity;
    r.info.has_classification |= fi.has_classification;
  }
  r.info.seconds = sw.ms() * 1e-3;
  return r;
}

/// An EPT dataset (its ept.json, its folder, a URL) from its ept.json alone: format "EPT", the
/// version, dataType, span and SRS, points, bounds, attributes; no hierarchy file, no node.
FileReport describe_ept(const std::string& path, const HttpOptions* http) {
  FileReport r;
  r.info.file = path;
  Stopwatch sw;
  std::unique_ptr<EptDataset> d = open_ept(path, http, &r.error);
  if (!d) return r;
  r.ok = true;
  r.info = d->info();
  r.info.file = path;
  r.info.seconds = sw.ms() * 1e-3;
  return r;
}

}  // namespace

FileReport describe_file(const std::string& path, const LoadOptions& options,
                         const HttpOptions* http) {
  if (!ept_json_of(path).empty()) return describe_ept(path, http);
  const FormatEntry* format = find_format_by_path(path);
  if (format && format->survey()) return describe_survey(path, format->name, http);
  // A folder without ept.json: its COPC files, listed as a survey (or why there are none).
  if (std::error_code ec; !is_url(path) && std::filesystem::is_directory(path, ec))
    return describe_survey(path, "folder of COPC files", http, true);
  // A COPC file or URL is described from its header and hierarchy; a URL can be nothing else.
  if (is_url(path) || (format && format->format == FileFormat::kLaz)) {
    FileReport r;
    r.info.file = path;
    std::unique_ptr<ByteSource> source = open_byte_source(path, &r.error, http);
    std::unique_ptr<CopcFile> copc = source ? CopcFile::open(std::move(source), &r.error) : nullptr;
    if (copc) return describe_copc_file(path, *copc, options);
    if (is_url(path)) return r;
  }
  FileReport r;
  PointCloud cloud;
  Stopwatch sw;
  r.ok = load_point_cloud(path, cloud, &r.info, &r.error, nullptr, &options);
  r.info.file = path;
  if (r.info.seconds == 0.0) r.info.seconds = sw.ms() * 1e-3;
  return r;
}

std::string info_json(const FileReport& report) {
  const Json j = report.ok ? json_info(report.info)
                           : Json{{"file", report.info.file}, {"error", report.error}};
  // Bytes that are not UTF-8 (a path in another encoding) are written as U+FFFD.
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string info_text(const FileInfo& info) {
  std::string s;
  appendf(s, "%s\n  format      %s %s\n  points      %llu\n", info.file.c_str(),
          info.format.c_str(), info.version.c_str(), (unsigned long long)info.points);
  appendf(s, "  bounds min  %.6f %.6f %.6f\n  bounds max  %.6f %.6f %.6f\n", info.bounds.min.x,
          info.bounds.min.y, info.bounds.min.z, info.bounds.max.x, info.bounds.max.y,
          info.bounds.max.z);
  appendf(s, "  origin      %.6f %.6f %.6f\n", info.origin.x, info.origin.y, info.origin.z);
  appendf(s, "  attributes  %s%s%s\n", info.has_color ? "color " : "",
          info.has_intensity ? "intensity " : "", info.has_classification ? "classification" : "");
  scans_text(s, info.scans);
  if (info.copc.present) copc_text(s, info.copc);
  for (const std::string& w : info.warnings) appendf(s, "  warning     %s\n", w.c_str());
  appendf(s, "  load time   %.3f s\n", info.seconds);
  return s;
}

int run_info(const Options& o) {
  int rc = 0;
  const LoadOptions lo = load_options(o);
  const HttpOptions http = http_options(o);
  for (const auto& path : o.files) {
    const FileReport r = describe_file(path, lo, &http);
    if (!r.ok) rc = 1;
    if (o.json)
      std::printf("%s\n", info_json(r).c_str());
    else if (r.ok)
      std::fputs(info_text(r.info).c_str(), stdout);
    else
      std::fprintf(stderr, "pointraster: %s\n", r.error.c_str());
  }
  return rc;
}

}  // namespace pr
