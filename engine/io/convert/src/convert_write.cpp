// Conversion's output files: LAS 1.4 (the records in input order), LAZ (the records in input
// order, fixed chunks of 50,000 points encoded on every thread), COPC (convert_write_copc.cpp),
// written under a temporary name next to the output and renamed into place at the end, so that a
// failure or a cancel leaves no file behind.
#include "convert_write.h"

#include <fcntl.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <thread>

#include "convert_read.h"
#include "engine/io/base/io_common.h"
#include "engine/io/formats.h"
#include "engine/io/laz/chunk_table.h"
#include "engine/io/laz/writer.h"
#include "engine/parallel.h"

namespace pr::io {

namespace {

namespace fs = std::filesystem;

template <class T>
void put(std::vector<uint8_t>& b, T v) {
  uint8_t t[sizeof(T)];
  std::memcpy(t, &v, sizeof(T));
  b.insert(b.end(), t, t + sizeof(T));
}

void put_text(std::vector<uint8_t>& b, const char* s, size_t field) {
  const size_t n = std::min(std::strlen(s), field);
  b.insert(b.end(), s, s + n);
  b.insert(b.end(), field - n, 0);
}

}  // namespace

void RecordStats::add(const uint8_t* r, uint64_t count, size_t rec) {
  points += count;
  for (uint64_t i = 0; i < count; ++i, r += rec) {
    int32_t v[3];
    std::memcpy(v, r, 12);
    for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], v[a]), hi[a] = std::max(hi[a], v[a]);
    const unsigned ret = r[14] & 15u;
    if (ret >= 1) by_return[ret - 1]++;
    double t;
    std::memcpy(&t, r + 22, 8);
    gps_min = std::min(gps_min, t);
    gps_max = std::max(gps_max, t);
  }
}

void RecordStats::merge(const RecordStats& o) {
  points += o.points;
  for (int a = 0; a < 3; ++a) lo[a] = std::min(lo[a], o.lo[a]), hi[a] = std::max(hi[a], o.hi[a]);
  for (int k = 0; k < 15; ++k) by_return[k] += o.by_return[k];
  gps_min = std::min(gps_min, o.gps_min);
  gps_max = std::max(gps_max, o.gps_max);
}

OutFile::~OutFile() {
  if (fd_ >= 0) close(fd_);
  if (!temp_.empty()) unlink(temp_.c_str());
}

bool OutFile::open(std::string* error) {
  static std::atomic<unsigned> serial{0};
  temp_ = path_ + ".part-" + std::to_string(getpid()) + "-" + std::to_string(serial++);
  fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd_ >= 0) return true;
  if (error) *error = path_ + ": cannot create: " + std::strerror(errno);
  temp_.clear();
  return false;
}

bool OutFile::write(uint64_t offset, const void* data, size_t size, std::string* error) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size) {
    const ssize_t n = pwrite(fd_, p, size, off_t(offset));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (error) *error = path_ + ": write failed: " + std::strerror(n < 0 ? errno : ENOSPC);
      return false;
    }
    p += n, size -= size_t(n), offset += uint64_t(n);
  }
  return true;
}

bool OutFile::commit(std::string* error) {
  const int fd = fd_;
  fd_ = -1;
  if (close(fd) != 0 || std::rename(temp_.c_str(), path_.c_str()) != 0) {
    if (error) *error = path_ + ": cannot write: " + std::strerror(errno);
    return false;
  }
  temp_.clear();
  return true;
}

void append_vlr(std::vector<uint8_t>& out, const char* user, uint16_t record,
                const std::vector<uint8_t>& payload, const char* description) {
  put<uint16_t>(out, 0);
  put_text(out, user, 16);
  put<uint16_t>(out, record);
  put<uint16_t>(out, uint16_t(payload.size()));
  put_text(out, description, 32);
  out.insert(out.end(), payload.begin(), payload.end());
}

void append_evlr(std::vector<uint8_t>& out, const char* user, uint16_t record,
                 const std::vector<uint8_t>& payload, const char* description) {
  put<uint16_t>(out, 0);
  put_text(out, user, 16);
  put<uint16_t>(out, record);
  put<uint64_t>(out, payload.size());
  put_text(out, description, 32);
  out.insert(out.end(), payload.begin(), payload.end());
}

namespace {

std::vector<uint8_t> wkt_payload(const RecordSpec& spec) {
  std::vector<uint8_t> v(spec.wkt.begin(), spec.wkt.end());
  v.push_back(0);
  return v;
}

}  // namespace

void append_spec_vlrs(std::vector<uint8_t>& out, const RecordSpec& spec, uint32_t& count) {
  if (!spec.wkt.empty() && spec.wkt.size() < 65535) {
    append_vlr(out, "LASF_Projection", 2112, wkt_payload(spec), "OGC coordinate system WKT");
    ++count;
  }
  if (!spec.extra_bytes_vlr.empty()) {
    append_vlr(out, "LASF_Spec", 4, spec.extra_bytes_vlr, "extra bytes");
    ++count;
  }
}

bool append_wkt_evlr(std::vector<uint8_t>& out, const RecordSpec& spec) {
  if (spec.wkt.size() < 65535) return false;
  append_evlr(out, "LASF_Projection", 2112, wkt_payload(spec), "OGC coordinate system WKT");
  return true;
}

std::vector<uint8_t> las_header(const RecordSpec& spec, const RecordStats& st,
                                const HeaderLayout& lay) {
  std::vector<uint8_t> h(375, 0);
  std::memcpy(h.data(), "LASF", 4);
  // Bit 4: the coordinate system is WKT (required of formats 6-10); bit 0: standard GPS time.
  put_le<uint16_t>(&h[6], uint16_t(16 | (spec.standard_gps_time ? 1 : 0)));
  h[24] = 1, h[25] = 4;
  std::memcpy(&h[26], "pointraster", 11);
  std::memcpy(&h[58], "pointraster conversion", 22);
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  put_le<uint16_t>(&h[90], uint16_t(tm.tm_yday + 1));
  put_le<uint16_t>(&h[92], uint16_t(tm.tm_year + 1900));
  put_le<uint16_t>(&h[94], 375);
  put_le<uint32_t>(&h[96], lay.point_offset);
  put_le<uint32_t>(&h[100], lay.vlrs);
  // LASzip marks compressed records with bit 7 of the format byte.
  h[104] = uint8_t(spec.point_format | (lay.compressed ? 0x80 : 0));
  put_le<uint16_t>(&h[105], spec.record_length);
  // Formats 6-10 leave the legacy counts (107, 111) at zero.
  for (int a = 0; a < 3; ++a) {
    put_le<double>(&h[131 + 8 * a], spec.scale[a]);
    put_le<double>(&h[155 + 8 * a], spec.offset[a]);
    const bool any = st.points > 0;
    double lo = any ? double(st.lo[a]) * spec.scale[a] + spec.offset[a] : 0.0;
    double hi = any ? double(st.hi[a]) * spec.scale[a] + spec.offset[a] : 0.0;
    if (lay.bounds && !lay.bounds->empty) lo = lay.bounds->min[a], hi = lay.bounds->max[a];
    put_le<double>(&h[179 + 16 * a], hi);
    put_le<double>(&h[187 + 16 * a], lo);
  }
  put_le<uint64_t>(&h[235], lay.evlrs ? lay.evlr_start : 0);
  put_le<uint32_t>(&h[243], lay.evlrs);
  put_le<uint64_t>(&h[247], st.points);
  for (int k = 0; k < 15; ++k) put_le<uint64_t>(&h[255 + 8 * k], st.by_return[k]);
  return h;
}

std::vector<uint8_t> laz_chunk_table(const std::vector<uint64_t>& points,
                                     const std::vector<uint64_t>& bytes, bool variable) {
  std::vector<uint8_t> table(8);  // version 0, the number of chunks
  put_le<uint32_t>(&table[4], uint32_t(bytes.size()));
  const std::vector<uint8_t> coded = laz::encode_chunk_table(points, bytes, variable);
  table.insert(table.end(), coded.begin(), coded.end());
  return table;
}

}  // namespace pr::io

namespace pr::io {

namespace {

/// Points per chunk of a plain LAZ output (LASzip's default).
constexpr uint32_t kLazChunk = 50000;

bool fail_with(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

bool cancelled(const ConvertProgress* p) {
  return p && p->cancel.load(std::memory_order_relaxed);
}

/// The output's kind from its suffix (the table of formats' write column), and its folder, which
/// must exist.
bool check_output(const std::string& output, ConvertOutput& kind, fs::path& dir,
                  std::string* error) {
  const FormatEntry* format = find_format_by_path(output);
  if (!format || format->write == ConvertOutput::kNone)
    return fail_with(error, output + ": unknown output format (the name must end in " +
                                convert_suffixes() + ")");
  kind = format->write;
  dir = fs::path(output).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    return fail_with(error, output + ": the folder " + dir.string() + " does not exist");
  return true;
}

uint64_t free_bytes(const fs::path& dir, uint64_t& device) {
  struct statvfs s {};
  if (statvfs(dir.c_str(), &s) != 0) return UINT64_MAX;
  device = s.f_fsid;
  return uint64_t(s.f_bavail) * uint64_t(s.f_frsize);
}

/// Refuses a conversion whose output (LAS: its size; LAZ, COPC: a quarter of the records, what
/// LAZ rarely exceeds) and, for COPC, its buckets on disk (the records once) do not fit.
bool check_disk(const std::string& output, ConvertOutput kind, const fs::path& dir,
                const std::string& temp_dir, const RecordSpec& spec, std::string* error) {
  const uint64_t records = spec.points * spec.record_length;
  const uint64_t out_bytes = 4096 + (kind == ConvertOutput::kLas ? records : records / 4);
  uint64_t out_dev = 0, temp_dev = 1;
  const uint64_t out_free = free_bytes(dir, out_dev);
  uint64_t need_out = out_bytes;
  if (kind == ConvertOutput::kCopc) {
    const fs::path tdir = temp_dir.empty() ? dir : fs::path(temp_dir);
    const uint64_t temp_free = free_bytes(tdir, temp_dev);
    if (temp_dev == out_dev)
      need_out += records;
    else if (records > temp_free)
      return fail_with(error, output + ": not enough free disk space for the temporary files in " +
                                  tdir.string() + ": about " + std::to_string(records >> 20) +
                                  " MB needed, " + std::to_string(temp_free >> 20) + " MB free");
  }
  if (need_out > out_free)
    return fail_with(error, output + ": not enough free disk space in " + dir.string() +
                                ": about " + std::to_string(need_out >> 20) + " MB needed, " +
                                std::to_string(out_free >> 20) + " MB free");
  return true;
}

void count_progress(ConvertProgress* p, uint64_t n) {
  if (p) p->done.fetch_add(n, std::memory_order_relaxed);
}

/// LAS 1.4: the header, the VLRs, the records in input order.
bool write_las(RecordSource& src, OutFile& out, ConvertProgress* progress, ConvertResult& r,
               std::string* error) {
  const RecordSpec& spec = src.spec();
  std::vector<uint8_t> vlrs;
  HeaderLayout lay;
  append_spec_vlrs(vlrs, spec, lay.vlrs);
  lay.point_offset = uint32_t(375 + vlrs.size());
  RecordStats st;
  uint64_t pos = lay.point_offset;
  std::vector<uint8_t> block;
  while (src.next(block)) {
    if (cancelled(progress)) return fail_with(error, out.path() + ": cancelled");
    const uint64_t n = block.size() / spec.record_length;
    st.add(block.data(), n, spec.record_length);
    if (!out.write(pos, block.data(), block.size(), error)) return false;
    pos += block.size();
    count_progress(progress, n);
  }
  if (!src.error().empty()) return fail_with(error, src.error());
  r.points = st.points;
  std::vector<uint8_t> evlrs;
  if (append_wkt_evlr(evlrs, spec)) lay.evlr_start = pos, lay.evlrs = 1;
  const std::vector<uint8_t> h = las_header(spec, st, lay);
  return out.write(pos, evlrs.data(), evlrs.size(), error) &&
         out.write(0, h.data(), h.size(), error) &&
         out.write(h.size(), vlrs.data(), vlrs.size(), error);
}

/// Up to `chunks` chunks of kLazChunk records from `src` into `batch`, carrying the rest of a
/// block in `block` from `at`. False once the source is done and nothing was taken.
size_t fill_batch(RecordSource& src, size_t rec, std::vector<std::vector<uint8_t>>& batch,
                  std::vector<uint8_t>& block, size_t& at, bool& more) {
  size_t nb = 0;
  while (nb < batch.size() && more) {
    std::vector<uint8_t>& c = batch[nb];
    c.clear();
    while (c.size() < kLazChunk * rec) {
      if (at == block.size()) {
        if (!src.next(block)) {
          more = false;
          break;
        }
        at = 0;
      }
      const size_t take = std::min(block.size() - at, kLazChunk * rec - c.size());
      c.insert(c.end(), block.begin() + ptrdiff_t(at), block.begin() + ptrdiff_t(at + take));
      at += take;
    }
    if (!c.empty()) ++nb;
  }
  return nb;
}

/// The chunks of a LAZ output: a batch of one a thread encoded in parallel while the next batch
/// is read on a thread of its own (reading a LAZ input decodes it), then written in input order.
struct LazChunks {
  RecordSource& src;
  OutFile& out;
  const laz::Layout& layout;
  unsigned threads;
  ConvertProgress* progress;
  uint64_t pos;
  std::vector<uint64_t> points, bytes;
  RecordStats st;

  bool run(std::string* error) {
    const size_t rec = layout.record_length;
    std::vector<std::vector<uint8_t>> batch[2] = {std::vector<std::vector<uint8_t>>(threads),
                                                  std::vector<std::vector<uint8_t>>(threads)};
    std::vector<std::vector<uint8_t>> coded(threads);
    std::vector<RecordStats> stats(threads);
    std::vector<uint8_t> block;
    size_t at = 0;
    bool more = true;
    size_t nb[2] = {fill_batch(src, rec, batch[0], block, at, more), 0};
    for (int cur = 0; nb[cur] > 0; cur ^= 1) {
      if (cancelled(progress)) return fail_with(error, out.path() + ": cancelled");
      const int next = cur ^ 1;
      nb[next] = 0;
      std::thread reader;
      if (more)
        reader =
            std::thread([&] { nb[next] = fill_batch(src, rec, batch[next], block, at, more); });
      parallel_for(
          nb[cur],
          [&](size_t i0, size_t i1) {
            for (size_t i = i0; i < i1; ++i) {
              const std::vector<uint8_t>& b = batch[cur][i];
              coded[i].clear();
              laz::write_chunk(layout, b.data(), b.size() / rec, coded[i]);
              stats[i] = RecordStats();
              stats[i].add(b.data(), b.size() / rec, rec);
            }
          },
          threads, 1);
      if (reader.joinable()) reader.join();
      for (size_t i = 0; i < nb[cur]; ++i) {
        if (!out.write(pos, coded[i].data(), coded[i].size(), error)) return false;
        pos += coded[i].size();
        points.push_back(stats[i].points);
        bytes.push_back(coded[i].size());
        st.merge(stats[i]);
        count_progress(progress, stats[i].points);
      }
    }
    return true;
  }
};

/// LAZ: fixed chunks of kLazChunk records in input order, then the chunk table.
bool write_laz(RecordSource& src, OutFile& out, unsigned threads, ConvertProgress* progress,
               ConvertResult& r, std::string* error) {
  const RecordSpec& spec = src.spec();
  const laz::Layout layout = laz::make_layout(spec.point_format, spec.extra_bytes, kLazChunk);
  std::vector<uint8_t> vlrs;
  HeaderLayout lay;
  lay.compressed = true;
  append_vlr(vlrs, "laszip encoded", 22204, laz::layout_vlr(layout), "LASzip compression");
  lay.vlrs = 1;
  append_spec_vlrs(vlrs, spec, lay.vlrs);
  lay.point_offset = uint32_t(375 + vlrs.size());
  // The chunk table's offset comes first, then the chunks.
  LazChunks chunks{src, out, layout, threads, progress, lay.point_offset + 8, {}, {}, {}};
  if (!chunks.run(error)) return false;
  if (!src.error().empty()) return fail_with(error, src.error());
  const RecordStats& st = chunks.st;
  const uint64_t pos = chunks.pos;
  r.points = st.points;
  const int64_t table_at = int64_t(pos);
  std::vector<uint8_t> tail = laz_chunk_table(chunks.points, chunks.bytes, false);
  const uint64_t evlr_at = pos + tail.size();
  if (append_wkt_evlr(tail, spec)) lay.evlr_start = evlr_at, lay.evlrs = 1;
  const std::vector<uint8_t> h = las_header(spec, st, lay);
  return out.write(pos, tail.data(), tail.size(), error) &&
         out.write(lay.point_offset, &table_at, 8, error) &&
         out.write(0, h.data(), h.size(), error) &&
         out.write(h.size(), vlrs.data(), vlrs.size(), error);
}

/// Writes `src` into `output`; what is common to conversion and saving a cloud.
bool write_output(RecordSource& source, const std::string& output, ConvertOutput kind,
                  const fs::path& dir, const ConvertOptions& options, ConvertProgress* progress,
                  ConvertResult* result, std::string* error) {
  // A clip (ConvertOptions::keep): the records it keeps, filtered as they are read.
  const std::unique_ptr<RecordSource> filtered =
      options.keep ? filtered_record_source(source, options.keep) : nullptr;
  RecordSource& src = filtered ? *filtered : source;
  const RecordSpec& spec = src.spec();
  if (!check_disk(output, kind, dir, options.temp_dir, spec, error)) return false;
  ConvertResult r;
  r.point_format = spec.point_format;
  r.extra_bytes = spec.extra_bytes;
  r.scale = spec.scale;
  r.offset = spec.offset;
  r.scale_from_input = spec.scale_from_input;
  r.messages = spec.messages;
  r.points_skipped = spec.skipped_points;
  const unsigned threads = options.threads ? options.threads : default_threads();
  OutFile out(output);
  if (!out.open(error)) return false;
  if (progress) {
    progress->stage = ConvertProgress::kWrite;
    progress->done = 0;
    progress->total = spec.points;
  }
  bool ok = false;
  if (kind == ConvertOutput::kCopc) {
    BuildOptions build;
    build.temp_dir = options.temp_dir.empty() ? dir.string() : options.temp_dir;
    build.memory_bytes = options.memory_bytes;
    if (build.memory_bytes == 0) {
      const uint64_t machine = physical_memory();
      build.memory_bytes = machine ? machine / 2 : 1ull << 30;
    }
    build.threads = threads;
    build.progress = progress;
    ok = write_copc(src, out, build, r, error);
  } else {
    ok = kind == ConvertOutput::kLas ? write_las(src, out, progress, r, error)
                                     : write_laz(src, out, threads, progress, r, error);
  }
  if (ok && cancelled(progress)) ok = fail_with(error, output + ": cancelled");
  if (!ok || !out.commit(error)) return false;
  std::error_code ec;
  r.bytes = fs::file_size(output, ec);
  if (progress) progress->stage = ConvertProgress::kDone;
  if (result) *result = std::move(r);
  return true;
}

}  // namespace

}  // namespace pr::io

namespace pr {

const char* convert_stage_name(int stage) {
  switch (stage) {
    case ConvertProgress::kScan:
      return "scanning";
    case ConvertProgress::kBin:
      return "binning";
    case ConvertProgress::kBuild:
      return "building";
    case ConvertProgress::kWrite:
      return "writing";
    case ConvertProgress::kDone:
      return "done";
    default:
      return "unknown";
  }
}

bool convert_point_clouds(const std::vector<std::string>& inputs, const std::string& output,
                          const ConvertOptions& options, ConvertProgress* progress,
                          ConvertResult* result, std::string* error) {
  ConvertOutput kind;
  std::filesystem::path dir;
  if (!io::check_output(output, kind, dir, error)) return false;
  if (progress) progress->stage = ConvertProgress::kScan;
  // A folder converted into a file inside it does not read that file's earlier version.
  std::vector<std::string> files;
  for (const std::string& in : inputs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(in, ec)) {
      files.push_back(in);
      continue;
    }
    std::vector<std::string> found;
    if (!io::expand_inputs({in}, found, error)) return false;
    for (const std::string& f : found)
      if (!std::filesystem::equivalent(f, output, ec)) files.push_back(f);
  }
  const auto src =
      io::open_record_source(files, options.threads, error,
                             options.keep ? options.keep_box : decltype(options.keep_box){});
  if (!src) return false;
  return io::write_output(*src, output, kind, dir, options, progress, result, error);
}

bool save_point_cloud(const PointCloud& cloud, const std::string& output,
                      const ConvertOptions& options, ConvertProgress* progress,
                      ConvertResult* result, std::string* error) {
  ConvertOutput kind;
  std::filesystem::path dir;
  if (!io::check_output(output, kind, dir, error)) return false;
  if (cloud.empty()) {
    if (error) *error = output + ": the cloud holds no points";
    return false;
  }
  const auto src = io::cloud_record_source(cloud);
  return io::write_output(*src, output, kind, dir, options, progress, result, error);
}

}  // namespace pr
