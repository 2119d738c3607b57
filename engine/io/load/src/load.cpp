// Opening files: memory mapping, format detection by content, dispatch to the readers.
#include "engine/io/load.h"

#include <chrono>
#include <cstring>

#include "engine/io/base/mapped_file.h"
#include "engine/io/copc/laz_file.h"
#include "engine/io/formats/las.h"
#include "engine/io/formats/readers.h"

namespace pr {

namespace {

bool starts_with_ci(const uint8_t* d, size_t n, const char* s) {
  const size_t k = std::strlen(s);
  if (n < k) return false;
  for (size_t i = 0; i < k; ++i)
    if (std::tolower(d[i]) != std::tolower(static_cast<unsigned char>(s[i]))) return false;
  return true;
}

std::string extension(const std::string& name) {
  const size_t slash = name.find_last_of('/');
  const size_t dot = name.find_last_of('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash)) return "";
  return io::lower(name.substr(dot + 1));
}

/// PCD headers start with comment lines and then VERSION/FIELDS keywords.
bool looks_like_pcd(const uint8_t* d, size_t n) {
  size_t p = 0;
  for (int line = 0; line < 64 && p < n; ++line) {
    while (p < n && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n')) ++p;
    if (p >= n) return false;
    if (d[p] == '#') {
      while (p < n && d[p] != '\n') ++p;
      continue;
    }
    return starts_with_ci(d + p, n - p, "VERSION") || starts_with_ci(d + p, n - p, "FIELDS");
  }
  return false;
}

/// Text: no NUL bytes and mostly printable characters in the first 4 KiB.
bool looks_like_text(const uint8_t* d, size_t n) {
  const size_t k = std::min<size_t>(n, 4096);
  size_t bad = 0;
  for (size_t i = 0; i < k; ++i) {
    if (d[i] == 0) return false;
    if (d[i] < 0x20 && d[i] != '\n' && d[i] != '\r' && d[i] != '\t') ++bad;
  }
  return bad * 100 <= k;
}

/// PTS starts with a line holding one integer, the count of the first block.
bool first_line_is_count(const uint8_t* d, size_t n) {
  size_t p = 0;
  while (p < n && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r' || d[p] == '\n')) ++p;
  size_t digits = 0;
  while (p < n && d[p] >= '0' && d[p] <= '9') ++p, ++digits;
  while (p < n && (d[p] == ' ' || d[p] == '\t' || d[p] == '\r')) ++p;
  return digits > 0 && (p == n || d[p] == '\n');
}

}  // namespace

const char* format_name(FileFormat f) {
  switch (f) {
    case FileFormat::kPly:
      return "PLY";
    case FileFormat::kLas:
      return "LAS";
    case FileFormat::kLaz:
      return "LAZ";
    case FileFormat::kPcd:
      return "PCD";
    case FileFormat::kPts:
      return "PTS";
    case FileFormat::kXyz:
      return "XYZ";
    case FileFormat::kE57:
      return "E57";
    case FileFormat::kUnknown:
      break;
  }
  return "unknown";
}

FileFormat detect_format(const void* data, size_t size, const std::string& name) {
  const auto* d = static_cast<const uint8_t*>(data);
  if (size >= 4 && std::memcmp(d, "ply", 3) == 0 &&
      (d[3] == '\n' || d[3] == '\r' || d[3] == ' ' || d[3] == '\t'))
    return FileFormat::kPly;
  if (size >= 4 && std::memcmp(d, "LASF", 4) == 0)
    return io::las_is_compressed(d, size) ? FileFormat::kLaz : FileFormat::kLas;
  if (size >= 8 && std::memcmp(d, "ASTM-E57", 8) == 0) return FileFormat::kE57;
  if (looks_like_pcd(d, size)) return FileFormat::kPcd;
  const std::string ext = extension(name);
  // A file named as a format with a header of its own but without that header is broken, not text.
  if (ext == "ply" || ext == "las" || ext == "laz" || ext == "pcd" || ext == "e57")
    return FileFormat::kUnknown;
  if (!looks_like_text(d, size)) return FileFormat::kUnknown;
  if (ext == "pts" || first_line_is_count(d, size)) return FileFormat::kPts;
  return FileFormat::kXyz;
}

bool parse_point_cloud(const void* data, size_t size, const std::string& name, FileFormat format,
                       PointCloud& out, FileInfo* info, std::string* error, LoadProgress* progress,
                       const LoadOptions* options) {
  const auto t0 = std::chrono::steady_clock::now();
  out = PointCloud{};
  FileInfo local;
  FileInfo& fi = info ? *info : local;
  fi = FileInfo{};
  fi.file = name;
  static const LoadOptions kEverything;
  io::Input in{static_cast<const uint8_t*>(data), size, name, progress,
               options ? options : &kEverything};
  io::Output o{&out, &fi};
  if (size == 0) return io::fail(in, error, "the file is empty");
  if (format == FileFormat::kUnknown) format = detect_format(data, size, name);
  bool ok = false;
  switch (format) {
    case FileFormat::kPly:
      ok = io::read_ply(in, o, error);
      break;
    case FileFormat::kLas:
      ok = io::read_las(in, o, error);
      break;
    case FileFormat::kPcd:
      ok = io::read_pcd(in, o, error);
      break;
    case FileFormat::kPts:
      ok = io::read_text(in, o, true, error);
      break;
    case FileFormat::kXyz:
      ok = io::read_text(in, o, false, error);
      break;
    case FileFormat::kLaz:
      ok = io::read_laz(in, o, error);
      break;
    case FileFormat::kE57:
      ok = io::read_e57(in, o, error);
      break;
    case FileFormat::kUnknown: {
      const std::string ext = extension(name);
      if (ext == "pcd")
        return io::fail(in, error,
                        "not a PCD file: the header (VERSION, FIELDS, ... DATA) is missing");
      if (ext == "ply") return io::fail(in, error, "not a PLY file: it does not start with 'ply'");
      if (ext == "las" || ext == "laz")
        return io::fail(in, error, "not a LAS file: it does not start with 'LASF'");
      if (ext == "e57") return io::fail(in, error, "not an E57 file: no 'ASTM-E57' signature");
      return io::fail(in, error,
                      "unknown file format (not PLY, LAS, PCD, E57, PTS or XYZ/TXT/CSV text)");
    }
  }
  if (!ok) {
    out = PointCloud{};
    return false;
  }
  // A LAS file may hold no points (its header says so, or it ends before the first record): it
  // loads as an empty cloud with its header's bounds, as PDAL and laspy read it. Every other
  // format without a point is refused.
  if (out.empty() && format != FileFormat::kLas) {
    out = PointCloud{};
    return io::fail(in, error, "the file holds no points");
  }
  fi.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

bool load_point_cloud(const std::string& path, PointCloud& out, FileInfo* info, std::string* error,
                      LoadProgress* progress, const LoadOptions* options) {
  const auto t0 = std::chrono::steady_clock::now();
  out = PointCloud{};
  io::MappedFile m;
  if (!m.open(path, error)) return false;
  m.will_need();
  const bool ok = parse_point_cloud(m.data(), m.size(), path, FileFormat::kUnknown, out, info,
                                    error, progress, options);
  if (ok && info)
    info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return ok;
}

}  // namespace pr
