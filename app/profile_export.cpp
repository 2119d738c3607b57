// A profile's points written out (profile_export.h).
#include "profile_export.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <memory>

#include "measure_export.h"

namespace pr {

namespace {

bool ends_with(std::string s, const std::string& suffix) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

/// The CSV header of the columns the cloud has.
std::string csv_header(const PointCloud& c) {
  std::string h = "x,y,z,distance,offset,red,green,blue";
  if (c.has_intensity()) h += ",intensity";
  if (!c.classification.empty()) h += ",classification";
  if (!c.returns.empty()) h += ",return_number,number_of_returns";
  if (!c.point_source.empty()) h += ",point_source_id";
  if (!c.gps_time.empty()) h += ",gps_time";
  for (const ScalarField& f : c.fields) h += "," + f.name;
  return h + "\n";
}

/// Appends `,v`.
void column(std::string& row, const std::string& v) {
  row += ',';
  row += v;
}

/// Row k: the world position and the station as the shortest decimals that read back as the
/// same doubles, then the attributes.
std::string csv_row(const PointCloud& source, const ProfileCloud& p, size_t k) {
  const PointCloud& c = p.cloud;
  const glm::dvec3 w = profile_source_world(source, p, k);
  const uint32_t rgb = c.file_colors.empty() ? c.colors[k] : c.file_colors[k];
  std::string r = format_number(w.x);
  for (const double v : {w.y, w.z, p.station[k], p.offset[k]}) column(r, format_number(v));
  for (const uint32_t shift : {0u, 8u, 16u}) column(r, std::to_string((rgb >> shift) & 255u));
  if (c.has_intensity()) column(r, format_number(double(c.intensity[k])));
  if (!c.classification.empty()) column(r, std::to_string(c.classification[k]));
  if (!c.returns.empty()) {
    column(r, std::to_string(return_number(c.returns[k])));
    column(r, std::to_string(return_count(c.returns[k])));
  }
  if (!c.point_source.empty()) column(r, std::to_string(c.point_source[k]));
  if (!c.gps_time.empty()) column(r, format_number(c.gps_time[k]));
  for (const ScalarField& f : c.fields) column(r, format_number(double(f.values[k])));
  r += '\n';
  return r;
}

bool write_csv(const std::string& path, const PointCloud& source, const ProfileCloud& p,
               std::string* error, ConvertProgress* progress) {
  // Written beside the target and renamed at the end: a failed or cancelled export leaves nothing.
  const std::string tmp = path + ".part";
  bool ok = true;
  {
    std::unique_ptr<std::FILE, FileCloser> f(std::fopen(tmp.c_str(), "wb"));
    if (!f) {
      if (error) *error = path + ": cannot be written";
      return false;
    }
    const std::string head = csv_header(p.cloud);
    ok = std::fwrite(head.data(), 1, head.size(), f.get()) == head.size();
    for (size_t k = 0; ok && k < p.source.size(); ++k) {
      if (progress && (k & 4095) == 0) progress->done = k;
      if (progress && (k & 4095) == 0 && progress->cancel.load()) {
        if (error) *error = path + ": cancelled";
        ok = false;
        break;
      }
      const std::string row = csv_row(source, p, k);
      ok = std::fwrite(row.data(), 1, row.size(), f.get()) == row.size();
      if (!ok && error) *error = path + ": cannot be written (disk full?)";
    }
    if (ok && std::fflush(f.get()) != 0) {
      if (error) *error = path + ": cannot be written (disk full?)";
      ok = false;
    }
  }
  std::error_code ec;
  if (ok) std::filesystem::rename(tmp, path, ec);
  if (ok && ec) {
    if (error) *error = path + ": cannot be written: " + ec.message();
    ok = false;
  }
  if (!ok) std::filesystem::remove(tmp, ec);
  return ok;
}

}  // namespace

ProfileFormat profile_export_format(const std::string& path) {
  if (ends_with(path, ".copc.laz")) return ProfileFormat::kNone;
  if (ends_with(path, ".las") || ends_with(path, ".laz")) return ProfileFormat::kLas;
  if (ends_with(path, ".csv")) return ProfileFormat::kCsv;
  return ProfileFormat::kNone;
}

bool write_profile(const std::string& path, const PointCloud& source, const ProfileCloud& p,
                   std::string* error, ConvertProgress* progress) {
  switch (profile_export_format(path)) {
    case ProfileFormat::kCsv:
      if (progress) progress->total = p.source.size();
      return write_csv(path, source, p, error, progress);
    case ProfileFormat::kLas: {
      const PointCloud out = profile_export_cloud(source, p);
      return save_point_cloud(out, path, ConvertOptions{}, progress, nullptr, error);
    }
    case ProfileFormat::kNone:
      break;
  }
  if (error) *error = path + ": ends in neither .las, .laz nor .csv";
  return false;
}

}  // namespace pr
