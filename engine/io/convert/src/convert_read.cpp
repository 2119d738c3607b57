// The inputs of a conversion as LAS 1.4 records (point formats 6, 7, 8). LAS and LAZ (COPC
// included) are read out of core: memory-mapped, their records translated block by block (LAS:
// 65536 records; LAZ: one chunk) by whichever thread asks, each block's pages handed back to the
// kernel once read, so that a file larger than memory converts. The other formats (PLY, PCD,
// PTS, XYZ/CSV, E57 with its poses, EPT datasets by their ept.json) are loaded whole with
// load_point_cloud, one at a time, and their points turned into records.
//
// Records of formats 0-5 become format 6-8 records as untwine and PDAL write them: the 3-bit
// return fields widen to 4 bits, the 5-bit class and its synthetic / key-point / withheld flags
// move to their own bytes, the scan angle rank (whole degrees) becomes the scan angle in units of
// 0.006 degrees, GPS time, RGB and NIR move to their 1.4 offsets.
#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "convert_read.h"
#include "engine/io/base/mapped_file.h"
#include "engine/io/copc/laz_file.h"
#include "engine/io/ept.h"
#include "engine/io/formats.h"
#include "engine/io/load.h"
#include "engine/parallel.h"

namespace pr::io {

namespace {

namespace fs = std::filesystem;

const LoadOptions kEverything;

/// How an input's extra bytes reach the output's records.
enum class Extras { kNone, kRaw, kFloat };

/// One input file.
struct InputFile {
  std::string path;
  bool las = false, laz = false;  // read record by record; else loaded whole
  MappedFile map;
  LasHeader h;
  LazFile lz;
  uint64_t points = 0;
  uint64_t blocks = 0;
  Bounds bounds;
  bool color = false, nir = false, standard_gps = false;
  std::vector<uint8_t> extra_vlr;     // LAS: the LASF_Spec record 4 payload
  std::vector<LasExtraField> extras;  // LAS: the scalar extra fields
  std::vector<std::string> fields;    // the named fields (LAS extra fields, PLY/PCD properties)
  std::string wkt;
  // The output's view of this input (set once the spec is chosen).
  bool same_quantum = false;  // LAS: the integers carry over unchanged
  std::vector<int> field_of;  // output float field j: this input's field index, or -1
  IntensityMap intensity;     // a loaded cloud's intensities to 16 bits
  // A loaded cloud while its blocks are read (and the first one from opening on).
  std::mutex mu;
  std::shared_ptr<PointCloud> cloud;
  uint64_t blocks_taken = 0;
  std::vector<uint8_t> skip;  // COPC: 1 for a chunk ConvertOptions::keep_box rules out

  Input input() const { return Input{map.data(), map.size(), path, nullptr, &kEverything}; }
};

bool fail_to(std::string* error, const std::string& message) {
  *error = message;
  return false;
}

/// A file a folder's conversion reads: one the table of formats has a reader for.
bool is_cloud_file(const fs::path& p) {
  const FormatEntry* f = find_format_by_path(p.string());
  return f && f->read;
}

/// The payload of an extended VLR (LAS 1.4) with `user` and `record`, or empty.
std::string find_evlr(const Input& in, const LasHeader& h, const char* user, uint16_t record) {
  if (h.minor < 4 || h.header_size < 247) return {};
  uint64_t p = get_le<uint64_t>(in.data + 235);
  const uint32_t n = get_le<uint32_t>(in.data + 243);
  for (uint32_t i = 0; i < n && p >= h.offset && p + 60 <= in.size; ++i) {
    const uint64_t len = get_le<uint64_t>(in.data + p + 20);
    if (len > in.size - p - 60) break;
    const uint8_t* u = in.data + p + 2;
    if (std::strncmp(reinterpret_cast<const char*>(u), user, 16) == 0 &&
        get_le<uint16_t>(in.data + p + 18) == record)
      return std::string(reinterpret_cast<const char*>(in.data + p + 60), size_t(len));
    p += 60 + len;
  }
  return {};
}

/// The input's raw records of block `b` (LAS: records b * 65536 ...; LAZ: chunk b) into `raw`.
bool raw_block(const InputFile& f, uint64_t b, std::vector<uint8_t>& raw, std::string* error) {
  const size_t rec = f.h.record_length;
  if (f.las) {
    const uint64_t first = b << 16, n = std::min<uint64_t>(f.points - first, uint64_t(1) << 16);
    const uint8_t* p = f.map.data() + f.h.offset + first * rec;
    raw.assign(p, p + n * rec);
    f.map.release(p, n * rec);
    return true;
  }
  const LazChunk& c = f.lz.chunks[size_t(b)];
  raw.resize(size_t(c.points) * rec);
  laz::ChunkReader reader(f.lz.layout);
  std::string why;
  if (!reader.start(f.map.data() + c.begin, c.size, c.points, &why)) {
    *error = f.path + ": LAZ chunk " + std::to_string(b) + ": " + why;
    return false;
  }
  for (uint64_t i = 0; i < c.points; ++i) reader.next(raw.data() + i * rec);
  if (reader.overrun()) {
    *error = f.path + ": LAZ chunk " + std::to_string(b) + ": truncated or corrupt compressed data";
    return false;
  }
  f.map.release(f.map.data() + c.begin, c.size);
  return true;
}

/// True when `p` lies inside `b` but for half a step of the header's scale (LAS writers compute
/// the header's bounds from the records' integers).
bool inside(const Bounds& b, const glm::dvec3& p, const LasHeader& h) {
  if (b.empty) return false;
  for (int a = 0; a < 3; ++a) {
    const double tol = 0.5 * std::abs(h.scale[a]) + 1e-9 * std::abs(p[a]);
    if (!(p[a] >= b.min[a] - tol && p[a] <= b.max[a] + tol)) return false;
  }
  return true;
}

/// The bounds of an input from its records, blocks on several threads: a plain LAS file always
/// (reading the X, Y, Z of a memory map costs little), a LAZ file whose header's bounds do not
/// hold its chunks' first points (stored raw at each chunk's start, so checked without decoding).
bool scan_bounds(InputFile& f, unsigned threads, std::string* error) {
  if (f.laz) {
    bool hold = !f.bounds.empty;
    for (size_t c = 0; c < f.lz.chunks.size() && hold; ++c) {
      const LazChunk& k = f.lz.chunks[c];
      if (k.points && k.size >= f.h.record_length)
        hold = inside(f.bounds, las_position(f.map.data() + k.begin, f.h), f.h);
    }
    if (hold) return true;
  }
  Bounds all;
  std::mutex mu;
  std::string err;
  const size_t rec = f.h.record_length;
  parallel_for(
      size_t(f.blocks),
      [&](size_t b0, size_t b1) {
        std::vector<uint8_t> raw;
        Bounds part;
        std::string e;
        for (size_t b = b0; b < b1 && e.empty(); ++b) {
          if (f.las) {
            const uint64_t first = uint64_t(b) << 16;
            const uint64_t n = std::min<uint64_t>(f.points - first, uint64_t(1) << 16);
            const uint8_t* p = f.map.data() + f.h.offset + first * rec;
            // The records' integers' extremes, then those two positions: x * scale + offset
            // rounds monotonically, so their bounds are the bounds of every position.
            int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX};
            int32_t hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
            for (uint64_t i = 0; i < n; ++i) {
              int32_t v[3];
              std::memcpy(v, p + i * rec, sizeof v);
              for (int a = 0; a < 3; ++a) {
                lo[a] = std::min(lo[a], v[a]);
                hi[a] = std::max(hi[a], v[a]);
              }
            }
            if (n) {
              uint8_t corner[2][12];
              std::memcpy(corner[0], lo, 12);
              std::memcpy(corner[1], hi, 12);
              part.extend(las_position(corner[0], f.h));
              part.extend(las_position(corner[1], f.h));
            }
            f.map.release(p, n * rec);  // read again when the records go out: RSS stays bounded
          } else if (raw_block(f, b, raw, &e)) {
            for (size_t at = 0; at < raw.size(); at += rec)
              part.extend(las_position(&raw[at], f.h));
          }
        }
        std::lock_guard<std::mutex> lock(mu);
        if (!part.empty) all.extend(part);
        if (err.empty()) err = e;
      },
      threads, 1);
  if (!err.empty()) return fail_to(error, err);
  f.bounds = all;
  return true;
}

bool open_las_file(InputFile& f, bool compressed, unsigned threads,
                   std::vector<std::string>& messages, std::string* error) {
  f.las = !compressed;
  f.laz = compressed;
  const Input in = f.input();
  if (compressed) {
    if (!open_laz(in, f.lz, error)) return false;
    find_stream_cut(in, f.lz);
    f.h = f.lz.h;
    f.points = f.lz.points;
    f.blocks = f.lz.chunks.size();
    if (!f.lz.cut.empty())
      messages.push_back(cut_short_warning(f.path, f.points, f.h.count, f.lz.cut));
  } else {
    if (!parse_las_header(in, f.h, error)) return false;
    f.points = std::min<uint64_t>(f.h.count, (in.size - f.h.offset) / f.h.record_length);
    if (f.points < f.h.count)
      messages.push_back(
          cut_short_warning(f.path, f.points, f.h.count, "the point data ends early"));
    f.blocks = (f.points + 0xFFFF) >> 16;
  }
  const uint8_t fmt = f.h.format;
  f.color = kLasRgbOffset[fmt] != 0;
  f.nir = fmt == 8 || fmt == 10;
  f.standard_gps = get_le<uint16_t>(in.data + 6) & 1;
  if (fmt == 4 || fmt == 5 || fmt == 9 || fmt == 10)
    messages.push_back(f.path + ": its wave packets are not carried (point format " +
                       std::to_string(int(fmt)) + ")");
  size_t len = 0;
  if (const uint8_t* v = find_vlr(in, f.h, "LASF_Spec", 4, len)) f.extra_vlr.assign(v, v + len);
  f.extras = las_extra_fields(in, f.h);
  for (const LasExtraField& e : f.extras) f.fields.push_back(e.name);
  if (const uint8_t* v = find_vlr(in, f.h, "LASF_Projection", 2112, len))
    f.wkt.assign(reinterpret_cast<const char*>(v), len);
  else
    f.wkt = find_evlr(in, f.h, "LASF_Projection", 2112);
  while (!f.wkt.empty() && f.wkt.back() == '\0') f.wkt.pop_back();
  if (f.wkt.empty() && find_vlr(in, f.h, "LASF_Projection", 34735, len))
    messages.push_back(f.path +
                       ": its coordinate system (GeoTIFF keys) is not carried: LAS 1.4 point "
                       "formats 6-8 take WKT");
  f.bounds = las_header_bounds(in.data);
  return f.points == 0 || scan_bounds(f, threads, error);
}

bool open_cloud_file(InputFile& f, bool keep, std::vector<std::string>& messages,
                     std::string* error) {
  auto cloud = std::make_shared<PointCloud>();
  FileInfo info;
  if (!load_point_cloud(f.path, *cloud, &info, error)) return false;
  messages.insert(messages.end(), info.warnings.begin(), info.warnings.end());  // a file cut short
  f.points = cloud->size();
  f.blocks = (f.points + 0xFFFF) >> 16;
  // The records are quantized from origin + float position: their bounds and the file's.
  f.bounds = cloud->world_bounds();
  f.bounds.extend(info.bounds);
  f.color = info.has_color;
  for (const ScalarField& s : cloud->fields) f.fields.push_back(s.name);
  f.intensity = intensity_map(*cloud, f.path, messages);
  if (keep) f.cloud = std::move(cloud);
  return true;
}

bool open_input(InputFile& f, bool keep_cloud, unsigned threads, std::vector<std::string>& messages,
                std::string* error) {
  std::error_code ec;
  if (!fs::is_regular_file(f.path, ec)) {
    *error = f.path + (fs::exists(f.path, ec) ? ": not a regular file" : ": no such file");
    return false;
  }
  if (!f.map.open(f.path, error)) return false;
  const FileFormat fmt = detect_format(f.map.data(), f.map.size(), f.path);
  if (fmt == FileFormat::kLas || fmt == FileFormat::kLaz)
    return open_las_file(f, fmt == FileFormat::kLaz, threads, messages, error);
  f.map.close();  // loaded by load_point_cloud, which maps the file itself
  return open_cloud_file(f, keep_cloud, messages, error);
}

/// The output's fields from the inputs': point format, extra bytes, scale and offset, WKT, GPS
/// time type; each input's view of them.
class SpecChooser {
 public:
  SpecChooser(std::vector<std::unique_ptr<InputFile>>& files, RecordSpec& spec, Extras& mode)
      : files_(files), s_(spec), mode_(mode) {}

  void choose() {
    bool nir = false, color = false;
    for (const auto& f : files_) {
      nir = nir || f->nir;
      color = color || f->color;
      s_.points += f->points;
      if (!f->bounds.empty) s_.bounds.extend(f->bounds);
    }
    s_.point_format = nir ? 8 : color ? 7 : 6;
    extra_bytes();
    finish_record_length(s_);
    quantum();
    for (auto& f : files_)
      f->same_quantum = (f->las || f->laz) &&
                        glm::dvec3(f->h.scale[0], f->h.scale[1], f->h.scale[2]) == s_.scale &&
                        glm::dvec3(f->h.origin[0], f->h.origin[1], f->h.origin[2]) == s_.offset;
    wkt_and_gps();
    snap_bounds(s_);
  }

 private:
  static uint16_t extra_count(const InputFile& f) {
    return uint16_t(f.h.record_length - kLasFormatSize[f.h.format]);
  }

  /// The LAS inputs' extra bytes as they are when every input is LAS and they agree (count and
  /// VLR); else every named field of every input as a float.
  void extra_bytes() {
    bool agree = true, any = false;
    const InputFile& first = *files_.front();
    for (const auto& f : files_) {
      const bool las = f->las || f->laz;
      agree =
          agree && las && extra_count(*f) == extra_count(first) && f->extra_vlr == first.extra_vlr;
      any = any || (las && extra_count(*f) > 0);
    }
    if (agree && any) {
      mode_ = Extras::kRaw;
      s_.extra_bytes = extra_count(first);
      s_.extra_bytes_vlr = first.extra_vlr;
      return;
    }
    std::vector<std::string> names;
    for (const auto& f : files_)
      for (const std::string& n : f->fields)
        if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
    if (any)
      s_.messages.push_back(
          "the inputs' extra bytes differ: their scalar fields are written as floats");
    if (names.empty()) return;
    mode_ = Extras::kFloat;
    s_.extra_bytes = uint16_t(4 * names.size());
    s_.extra_bytes_vlr = float_fields_vlr(names);
    for (auto& f : files_)
      for (const std::string& n : names) {
        const auto it = std::find(f->fields.begin(), f->fields.end(), n);
        f->field_of.push_back(it == f->fields.end() ? -1 : int(it - f->fields.begin()));
      }
  }

  /// Scale and offset: the LAS inputs' when they agree and hold every input's bounds.
  void quantum() {
    const InputFile* las = nullptr;
    bool agree = true, all_las = true;
    for (const auto& f : files_) {
      if (!(f->las || f->laz)) {
        all_las = false;
        continue;
      }
      if (!las) {
        las = f.get();
        continue;
      }
      for (int a = 0; a < 3; ++a)
        agree = agree && f->h.scale[a] == las->h.scale[a] && f->h.origin[a] == las->h.origin[a];
    }
    size_t las_inputs = 0;
    for (const auto& f : files_) las_inputs += f->las || f->laz;
    if (las && agree) {
      for (int a = 0; a < 3; ++a) s_.scale[a] = las->h.scale[a], s_.offset[a] = las->h.origin[a];
      if (quantum_holds(s_.bounds, s_)) {
        s_.scale_from_input = true;
        char b[256];
        std::snprintf(
            b, sizeof b,
            "scale (%g, %g, %g) and offset (%.17g, %.17g, %.17g) kept from the LAS input%s",
            s_.scale.x, s_.scale.y, s_.scale.z, s_.offset.x, s_.offset.y, s_.offset.z,
            las_inputs > 1 ? "s" : "");
        s_.messages.push_back(b);
        return;
      }
    }
    choose_scale_offset(
        s_.bounds,
        !las      ? "no LAS input"
        : !agree  ? "the LAS inputs' scales or offsets differ"
        : all_las ? "the inputs' scale and offset cannot hold the merged extent in 32 bits"
                  : "the LAS inputs' scale and offset cannot hold the other inputs' extent",
        s_);
  }

  void wkt_and_gps() {
    bool all_standard = true, any_las = false, differ = false;
    for (const auto& f : files_) {
      if (!(f->las || f->laz)) continue;
      any_las = true;
      all_standard = all_standard && f->standard_gps;
      if (s_.wkt.empty())
        s_.wkt = f->wkt;
      else if (!f->wkt.empty() && f->wkt != s_.wkt)
        differ = true;
    }
    s_.standard_gps_time = any_las && all_standard;
    if (differ)
      s_.messages.push_back(
          "the inputs' coordinate systems (WKT) differ: the first one's is written");
  }

  std::vector<std::unique_ptr<InputFile>>& files_;
  RecordSpec& s_;
  Extras& mode_;
};

/// A LAS record of input `f` as a record of `s` at `o` (record_length bytes, zeroed); false when
/// its position lies outside the spec's bounds (the octree's cube is built around them), which
/// only a LAZ file whose header's bounds hold the first point of every chunk but not every point
/// can give.
bool translate(const InputFile& f, const RecordSpec& s, Extras mode, const uint8_t* r, uint8_t* o) {
  const uint8_t fmt = f.h.format;
  int32_t xyz[3];
  if (f.same_quantum)
    std::memcpy(xyz, r, 12);
  else if (!quantize(las_position(r, f.h), s, xyz))
    return false;
  std::memcpy(o, xyz, 12);
  // The bounds lie on the output's grid (snap_bounds()): the record's own position is inside.
  for (int a = 0; a < 3; ++a) {
    const double v = double(xyz[a]) * s.scale[a] + s.offset[a];
    const double tol = 1e-9 * (std::abs(v) + 1.0);
    if (!(v >= s.bounds.min[a] - tol && v <= s.bounds.max[a] + tol)) return false;
  }
  std::memcpy(o + 12, r + 12, 2);  // intensity
  if (fmt >= 6) {
    std::memcpy(o + 14, r + 14, 16);  // returns, flags, class, user data, scan angle, source, GPS
  } else {
    const uint8_t b14 = r[14], b15 = r[15];
    o[14] = uint8_t((b14 & 7) | (((b14 >> 3) & 7) << 4));
    // Synthetic, key-point, withheld (bits 5-7) to bits 0-2; scan direction and edge stay 6, 7.
    o[15] = uint8_t(((b15 >> 5) & 7) | (b14 & 0xC0));
    o[16] = uint8_t(b15 & 0x1F);
    o[17] = r[17];
    put_le<int16_t>(o + 18, int16_t(std::lround(double(int8_t(r[16])) / 0.006)));
    std::memcpy(o + 20, r + 18, 2);
    if (kLasGpsOffset[fmt]) std::memcpy(o + 22, r + kLasGpsOffset[fmt], 8);
  }
  const uint16_t rgb = kLasRgbOffset[fmt];
  if (s.point_format >= 7 && rgb) std::memcpy(o + 30, r + rgb, 6);
  if (s.point_format == 8 && f.nir) std::memcpy(o + 36, r + rgb + 6, 2);
  const size_t at = kRecordFormatSize[s.point_format - 6];
  if (mode == Extras::kRaw) {
    std::memcpy(o + at, r + kLasFormatSize[fmt], s.extra_bytes);
  } else if (mode == Extras::kFloat) {
    for (size_t j = 0; j < f.field_of.size(); ++j)
      put_le<float>(o + at + 4 * j,
                    f.field_of[j] < 0 ? 0.0f : f.extras[size_t(f.field_of[j])].value(r));
  }
  return true;
}

class FileRecordSource final : public RecordSource {
 public:
  FileRecordSource(std::vector<std::unique_ptr<InputFile>> files, RecordSpec spec, Extras mode)
      : files_(std::move(files)), spec_(std::move(spec)), mode_(mode) {
    first_block_.push_back(0);
    for (const auto& f : files_) first_block_.push_back(first_block_.back() + f->blocks);
  }

  const RecordSpec& spec() const override { return spec_; }

  bool next(std::vector<uint8_t>& out) override {
    thread_local std::vector<uint8_t> raw;
    for (;;) {
      if (failed_.load()) return false;
      const uint64_t g = next_.fetch_add(1);
      if (g >= first_block_.back()) return false;
      const size_t i = size_t(std::upper_bound(first_block_.begin(), first_block_.end(), g) -
                              first_block_.begin() - 1);
      InputFile& f = *files_[i];
      const uint64_t b = g - first_block_[i];
      std::string err;
      out.clear();
      if (f.laz && !f.skip.empty() && f.skip[size_t(b)]) continue;
      if (f.las || f.laz) {
        if (!raw_block(f, b, raw, &err)) return fail(err);
        const size_t in_rec = f.h.record_length, n = raw.size() / in_rec;
        out.assign(n * spec_.record_length, 0);
        for (size_t k = 0; k < n; ++k)
          if (!translate(f, spec_, mode_, raw.data() + k * in_rec,
                         out.data() + k * spec_.record_length))
            return fail(f.path + ": a point lies outside the bounds its header declares (block " +
                        std::to_string(b) + ")");
      } else {
        const std::shared_ptr<PointCloud> c = take_cloud(f, &err);
        if (!c) return fail(err);
        const size_t begin = size_t(b << 16), end = std::min(c->size(), begin + (size_t(1) << 16));
        cloud_records(*c, begin, end, spec_, f.color, f.intensity, f.field_of, out);
      }
      if (!out.empty()) return true;
    }
  }

  std::string error() const override {
    std::lock_guard<std::mutex> lock(error_mu_);
    return error_;
  }

  bool direct(DirectRecords* out) const override {
    DirectRecords d;
    for (const auto& f : files_) {
      if (!f->las || !f->same_quantum || f->h.format != spec_.point_format ||
          f->h.record_length != spec_.record_length || mode_ == Extras::kFloat)
        return false;
      d.add(f->map.data() + f->h.offset, f->points);
    }
    *out = std::move(d);
    return true;
  }

 private:
  bool fail(const std::string& e) {
    std::lock_guard<std::mutex> lock(error_mu_);
    if (error_.empty()) error_ = e;
    failed_ = true;
    return false;
  }

  /// The cloud of a loaded input: loaded by the first block's reader, dropped once the last block
  /// is taken (the blocks being read keep it until they are done).
  static std::shared_ptr<PointCloud> take_cloud(InputFile& f, std::string* error) {
    std::lock_guard<std::mutex> lock(f.mu);
    if (!f.cloud) {
      auto c = std::make_shared<PointCloud>();
      if (!load_point_cloud(f.path, *c, nullptr, error)) return nullptr;
      if (c->size() != f.points) {
        *error = f.path + ": the file changed while it was converted";
        return nullptr;
      }
      f.cloud = std::move(c);
    }
    std::shared_ptr<PointCloud> c = f.cloud;
    if (++f.blocks_taken == f.blocks) f.cloud.reset();
    return c;
  }

  std::vector<std::unique_ptr<InputFile>> files_;
  RecordSpec spec_;
  Extras mode_;
  std::vector<uint64_t> first_block_;
  std::atomic<uint64_t> next_{0};
  std::atomic<bool> failed_{false};
  mutable std::mutex error_mu_;
  std::string error_;
};

}  // namespace

bool expand_inputs(const std::vector<std::string>& inputs, std::vector<std::string>& files,
                   std::string* error) {
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!fs::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    // A folder holding ept.json is an EPT dataset, read whole by load_point_cloud().
    if (const std::string ept = ept_json_of(in); !ept.empty()) {
      files.push_back(ept);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : fs::directory_iterator(in, ec))
      if (e.is_regular_file(ec) && is_cloud_file(e.path())) found.push_back(e.path().string());
    if (ec || found.empty()) {
      *error = in + ": " +
               (ec ? "cannot list the folder: " + ec.message()
                   : std::string("the folder holds no point-cloud files"));
      return false;
    }
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  if (files.empty()) *error = "no input files";
  return !files.empty();
}

namespace {

/// Marks the chunks of the COPC inputs that `keep_box` rules out (their nodes' cubes padded by a
/// step of the input's and of the output's scale, for the records' rounding) and takes their
/// points out of spec.points.
void rule_out_chunks(std::vector<std::unique_ptr<InputFile>>& files, const KeepBox& keep_box,
                     RecordSpec& spec) {
  for (const auto& f : files) {
    if (!f->laz) continue;
    const glm::dvec3 pad =
        glm::abs(glm::dvec3(f->h.scale[0], f->h.scale[1], f->h.scale[2])) + glm::abs(spec.scale);
    if (!copc_chunks_ruled_out(f->map.data(), f->map.size(), f->path, f->lz.chunks, pad, keep_box,
                               f->skip))
      continue;
    for (size_t c = 0; c < f->skip.size(); ++c)
      if (f->skip[c]) spec.skipped_points += f->lz.chunks[c].points;
  }
  spec.points -= std::min(spec.points, spec.skipped_points);
}

}  // namespace

std::unique_ptr<RecordSource> open_record_source(const std::vector<std::string>& inputs,
                                                 unsigned threads, std::string* error,
                                                 const KeepBox& keep_box) {
  if (threads == 0) threads = default_threads();
  std::string local;
  std::string* err = error ? error : &local;
  std::vector<std::string> paths;
  if (!expand_inputs(inputs, paths, err)) return nullptr;
  std::vector<std::unique_ptr<InputFile>> files, empty;
  std::vector<std::string> messages;
  bool kept = false;
  for (const std::string& p : paths) {
    auto f = std::make_unique<InputFile>();
    f->path = p;
    if (!open_input(*f, !kept, threads, messages, err)) return nullptr;
    kept = kept || f->cloud;
    (f->points == 0 ? empty : files).push_back(std::move(f));
  }
  // Inputs without points are passed by, unless no input has any: then they choose the fields of
  // an output without points (a valid file that every reader opens).
  if (files.empty())
    files = std::move(empty);
  else
    for (const auto& f : empty) messages.push_back(f->path + ": holds no points; skipped");
  RecordSpec spec;
  Extras mode = Extras::kNone;
  spec.messages = std::move(messages);
  SpecChooser(files, spec, mode).choose();
  if (keep_box) rule_out_chunks(files, keep_box, spec);
  return std::make_unique<FileRecordSource>(std::move(files), std::move(spec), mode);
}

}  // namespace pr::io
