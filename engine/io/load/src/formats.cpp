// The table of formats and detection by content: signatures first, then the name, then text.
#include "engine/io/formats.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <vector>

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

bool ply_signature(const uint8_t* d, size_t n) {
  return n >= 4 && std::memcmp(d, "ply", 3) == 0 &&
         (d[3] == '\n' || d[3] == '\r' || d[3] == ' ' || d[3] == '\t');
}

bool las_signature(const uint8_t* d, size_t n) {
  return n >= 4 && std::memcmp(d, "LASF", 4) == 0 && !io::las_is_compressed(d, n);
}

bool laz_signature(const uint8_t* d, size_t n) {
  return n >= 4 && std::memcmp(d, "LASF", 4) == 0 && io::las_is_compressed(d, n);
}

bool e57_signature(const uint8_t* d, size_t n) {
  return n >= 8 && std::memcmp(d, "ASTM-E57", 8) == 0;
}

/// PCD headers start with comment lines and then VERSION/FIELDS keywords.
bool pcd_signature(const uint8_t* d, size_t n) {
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

bool read_pts(const io::Input& in, io::Output& out, std::string* error) {
  return io::read_text(in, out, true, error);
}

bool read_xyz(const io::Input& in, io::Output& out, std::string* error) {
  return io::read_text(in, out, false, error);
}

constexpr const char* kPlyExt[] = {".ply"};
constexpr const char* kLasExt[] = {".las"};
constexpr const char* kLazExt[] = {".laz"};
constexpr const char* kCopcExt[] = {".copc.laz"};
constexpr const char* kPcdExt[] = {".pcd"};
constexpr const char* kE57Ext[] = {".e57"};
constexpr const char* kPtsExt[] = {".pts"};
constexpr const char* kXyzExt[] = {".xyz", ".txt", ".csv"};
constexpr const char* kVpcExt[] = {".vpc"};

constexpr const char* kNotLas = "not a LAS file: it does not start with 'LASF'";

// Signatures are disjoint, so their order does not matter; LAZ's row comes before COPC's, which
// shares its reader, so that the reader's name is LAZ. Among the text formats, those that
// recognise their text (PTS: a lone count on the first line) come before XYZ, which takes any.
const FormatEntry kFormats[] = {
    {"PLY", kPlyExt, FileFormat::kPly, ply_signature, io::read_ply, ConvertOutput::kNone, false,
     "not a PLY file: it does not start with 'ply'"},
    {"LAS", kLasExt, FileFormat::kLas, las_signature, io::read_las, ConvertOutput::kLas, false,
     kNotLas},
    {"LAZ", kLazExt, FileFormat::kLaz, laz_signature, io::read_laz, ConvertOutput::kLaz, false,
     kNotLas},
    {"COPC", kCopcExt, FileFormat::kLaz, laz_signature, io::read_laz, ConvertOutput::kCopc, true,
     kNotLas},
    {"PCD", kPcdExt, FileFormat::kPcd, pcd_signature, io::read_pcd, ConvertOutput::kNone, false,
     "not a PCD file: the header (VERSION, FIELDS, ... DATA) is missing"},
    {"E57", kE57Ext, FileFormat::kE57, e57_signature, io::read_e57, ConvertOutput::kNone, false,
     "not an E57 file: no 'ASTM-E57' signature"},
    {"PTS", kPtsExt, FileFormat::kPts, nullptr, read_pts, ConvertOutput::kNone, false, nullptr},
    {"XYZ", kXyzExt, FileFormat::kXyz, nullptr, read_xyz, ConvertOutput::kNone, false, nullptr},
    {"VPC", kVpcExt, FileFormat::kUnknown, nullptr, nullptr, ConvertOutput::kNone, true,
     "a virtual point cloud (.vpc) lists files to stream; it is not read whole"},
};

/// Whether `path` ends in `ext` (lower case) with a name before it, whatever the case.
bool ends_with_ci(const std::string& path, const char* ext) {
  const size_t k = std::strlen(ext);
  if (path.size() <= k) return false;
  const size_t at = path.size() - k;
  if (path[at - 1] == '/') return false;
  for (size_t i = 0; i < k; ++i)
    if (std::tolower(static_cast<unsigned char>(path[at + i])) != ext[i]) return false;
  return true;
}

/// The text format `d` holds by its first lines, the named one first (PTS named .pts).
FileFormat text_format(const uint8_t* d, size_t n, const FormatEntry* named) {
  if (named && named->format == FileFormat::kPts) return FileFormat::kPts;
  return first_line_is_count(d, n) ? FileFormat::kPts : FileFormat::kXyz;
}

}  // namespace

std::span<const FormatEntry> formats() {
  return kFormats;
}

const FormatEntry* find_format_by_path(const std::string& path) {
  const FormatEntry* best = nullptr;
  size_t best_length = 0;
  for (const FormatEntry& f : kFormats)
    for (const char* ext : f.extensions)
      if (std::strlen(ext) > best_length && ends_with_ci(path, ext)) {
        best = &f;
        best_length = std::strlen(ext);
      }
  return best;
}

const FormatEntry* find_format(FileFormat format) {
  if (format == FileFormat::kUnknown) return nullptr;
  for (const FormatEntry& f : kFormats)
    if (f.format == format) return &f;
  return nullptr;
}

const char* format_name(FileFormat f) {
  const FormatEntry* e = find_format(f);
  return e ? e->name : "unknown";
}

FileFormat detect_format(const void* data, size_t size) {
  const auto* d = static_cast<const uint8_t*>(data);
  for (const FormatEntry& f : kFormats)
    if (f.signature && f.signature(d, size)) return f.format;
  return FileFormat::kUnknown;
}

FileFormat detect_format(const void* data, size_t size, const std::string& name) {
  const FileFormat by_content = detect_format(data, size);
  if (by_content != FileFormat::kUnknown) return by_content;
  // A file named as a format with a signature of its own, but without it, is broken, not text;
  // a survey is never read whole.
  const FormatEntry* named = find_format_by_path(name);
  if (named && (named->signature || !named->read)) return FileFormat::kUnknown;
  const auto* d = static_cast<const uint8_t*>(data);
  if (!looks_like_text(d, size)) return FileFormat::kUnknown;
  return text_format(d, size, named);
}

std::string unknown_format_message(const std::string& name) {
  const FormatEntry* named = find_format_by_path(name);
  if (named && named->refusal) return named->refusal;
  std::string list;
  std::vector<const FormatEntry*> readable;
  for (const FormatEntry& f : kFormats)
    if (f.read && find_format(f.format) == &f) readable.push_back(&f);
  for (size_t i = 0; i < readable.size(); ++i) {
    if (i) list += i + 1 == readable.size() ? " or " : ", ";
    list += readable[i]->name;
    // A format of several extensions names them all: XYZ/TXT/CSV.
    for (size_t k = 1; k < readable[i]->extensions.size(); ++k) {
      std::string ext = readable[i]->extensions[k] + 1;
      for (char& c : ext) c = char(std::toupper(static_cast<unsigned char>(c)));
      list += "/" + ext;
    }
  }
  return "unknown file format (not " + list + ")";
}

bool is_point_cloud_file(const std::string& name) {
  return find_format_by_path(name) != nullptr;
}

bool is_tile_file(const std::string& name) {
  const FormatEntry* f = find_format_by_path(name);
  return f && f->streams && f->read;
}

std::string convert_suffixes() {
  std::vector<const FormatEntry*> written;
  for (const FormatEntry& f : kFormats)
    if (f.write != ConvertOutput::kNone) written.push_back(&f);
  // The richest output first: COPC, LAZ, LAS.
  std::sort(written.begin(), written.end(),
            [](const FormatEntry* a, const FormatEntry* b) { return a->write > b->write; });
  std::string s;
  for (const FormatEntry* f : written) {
    if (!s.empty()) s += ", ";
    const std::string ext = f->extensions[0];
    s += ext;
    // The name when the extension does not say it: ".copc.laz (COPC)".
    std::string said = ext.substr(1);
    for (char& c : said) c = char(std::toupper(static_cast<unsigned char>(c)));
    if (said != f->name) s += std::string(" (") + f->name + ")";
  }
  return s;
}

}  // namespace pr
