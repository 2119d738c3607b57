// Opening files: memory mapping, the format by content (formats.cpp), the reader the table of
// formats names.
#include "engine/io/load.h"

#include <chrono>
#include <cstring>

#include "engine/io/base/io_common.h"
#include "engine/io/base/mapped_file.h"
#include "engine/io/ept.h"
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
  // An empty file named as text (or read as text) is a text file without points: a headerless
  // format has nothing to miss. Every other format needs at least its header.
  const FormatEntry* named =
      format == FileFormat::kUnknown ? find_format_by_path(name) : find_format(format);
  if (size == 0 && (!named || !named->read || named->signature))
    return io::fail(in, error, "the file is empty");
  if (format == FileFormat::kUnknown) format = detect_format(data, size, name);
  const FormatEntry* f = find_format(format);
  if (!f || !f->read) return io::fail(in, error, unknown_format_message(name));
  // A file without points (its header declares none, or text without a line of numbers) is a
  // valid file: it loads as an empty cloud with its FileInfo, as PDAL and laspy read one.
  const bool ok = f->read(in, o, error);
  if (!ok) {
    out = PointCloud{};
    return false;
  }
  fi.format = f->name;
  fi.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return true;
}

namespace {

/// An EPT dataset on disk read whole: every node of its hierarchy (LoadOptions do not thin it);
/// nodes that fail are skipped, each a warning.
bool load_ept(const std::string& ept_json, PointCloud& out, FileInfo* info, std::string* error) {
  std::unique_ptr<EptDataset> d = EptDataset::open(ept_json, read_local_file, error);
  if (!d) return false;
  FileInfo fi = d->info();
  if (!d->read_all(out, &fi.warnings, error)) return false;
  fi.points = out.size();
  if (info) *info = fi;
  return true;
}

}  // namespace

bool load_point_cloud(const std::string& path, PointCloud& out, FileInfo* info, std::string* error,
                      LoadProgress* progress, const LoadOptions* options) {
  const auto t0 = std::chrono::steady_clock::now();
  out = PointCloud{};
  if (const std::string ept = ept_json_of(path);
      !ept.empty() && ept.find("://") == std::string::npos) {
    const bool ok = load_ept(ept, out, info, error);
    if (ok && info)
      info->seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return ok;
  }
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
