// Opening files: memory mapping, the format by content (formats.cpp), the reader the table of
// formats names.
#include "engine/io/load.h"

#include <chrono>
#include <cstring>

#include "engine/io/base/io_common.h"
#include "engine/io/base/mapped_file.h"
#include "engine/io/formats.h"

namespace pr {

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
  const FormatEntry* f = find_format(format);
  if (!f || !f->read) return io::fail(in, error, unknown_format_message(name));
  const bool ok = f->read(in, o, error);
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
  fi.format = f->name;
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
