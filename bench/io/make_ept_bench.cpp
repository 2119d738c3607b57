// An EPT dataset holding exactly the points of a COPC file, so that EPT and COPC stream the same
// points in the benchmarks (docs/STREAMING.md, "EPT datasets"):
//
//   make_ept_bench IN.copc.laz OUT_DIR [--data-type binary|zstandard|laszip] [--threads N]
//                  [--hierarchy-step L] [--zstd-level K]
//
// COPC and EPT share the octree keys and both add levels up, so every COPC node becomes the EPT
// node of the same key with the same points. The nodes are read, converted and written by N
// threads, each holding one node at a time (never the whole cloud):
// - binary / zstandard: the node's LAZ chunk decoded by the project's LAZ decoder into its LAS
//   records, then EPT records of X, Y, Z (int32 in the COPC file's scale and offset: the very
//   integers of the file), Intensity, ReturnNumber, NumberOfReturns, Classification,
//   PointSourceId, GpsTime and Red, Green, Blue (point formats 7 and 8); zstandard compresses
//   them with libzstd;
// - laszip: a LAZ 1.4 file per node around the node's chunk as it lies in the COPC file (the
//   file's LASzip VLR and extra-bytes VLR, a chunk table of one chunk), so that both formats
//   decode the same compressed bytes. Its header's bounds and return counts come from the decoded
//   records.
// ept.json: bounds = the COPC root cube, boundsConforming = the LAS header's bounds (so the
// dataset's origin is the COPC file's), span = the cube's width / the root spacing, rounded (the
// root spacing EPT derives is then the COPC file's: 128 for the files --convert writes), srs the
// file's WKT. The hierarchy: ept-hierarchy/0-0-0-0.json, and with --hierarchy-step L > 0 a file
// of its own for every key at levels L, 2L, ... (-1 in the file above), as EPT pages it.
#include <zstd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include <nlohmann/json.hpp>

#include "convert_write.h"
#include "engine/io/copc.h"
#include "engine/io/copc/laz_file.h"
#include "engine/io/laz/chunk_table.h"
#include "engine/io/open_byte_source.h"
#include "engine/parallel.h"

namespace {

using namespace pr;
namespace fs = std::filesystem;
using nlohmann::json;

struct Args {
  std::string input, out_dir;
  std::string data_type = "binary";
  unsigned threads = 0;
  int hierarchy_step = 4;
  int zstd_level = 3;
};

const char* kUsage =
    "usage: make_ept_bench IN.copc.laz OUT_DIR [--data-type binary|zstandard|laszip] "
    "[--threads N] [--hierarchy-step L] [--zstd-level K]";

bool parse_args(int argc, char** argv, Args& a) {
  std::vector<std::string> pos;
  for (int i = 1; i < argc; ++i) {
    const std::string s = argv[i];
    auto value = [&](const char* name) -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", name);
        return nullptr;
      }
      return argv[++i];
    };
    if (s == "--data-type") {
      const char* v = value("--data-type");
      if (!v) return false;
      a.data_type = v;
    } else if (s == "--threads" || s == "--hierarchy-step" || s == "--zstd-level") {
      const char* v = value(s.c_str());
      if (!v) return false;
      char* end = nullptr;
      const long n = std::strtol(v, &end, 10);
      if (*end || n < 0 || n > 1000) {
        std::fprintf(stderr, "%s: '%s' is no whole number from 0 to 1000\n", s.c_str(), v);
        return false;
      }
      if (s == "--threads") a.threads = unsigned(n);
      if (s == "--hierarchy-step") a.hierarchy_step = int(n);
      if (s == "--zstd-level") a.zstd_level = int(n);
    } else if (!s.empty() && s[0] == '-') {
      std::fprintf(stderr, "unknown option %s\n%s\n", s.c_str(), kUsage);
      return false;
    } else {
      pos.push_back(s);
    }
  }
  if (pos.size() != 2) {
    std::fprintf(stderr, "%s\n", kUsage);
    return false;
  }
  if (a.data_type != "binary" && a.data_type != "zstandard" && a.data_type != "laszip") {
    std::fprintf(stderr, "--data-type: '%s' is none of binary, zstandard, laszip\n",
                 a.data_type.c_str());
    return false;
  }
  a.input = pos[0];
  a.out_dir = pos[1];
  if (a.threads == 0) a.threads = default_threads();
  return true;
}

/// What the conversion needs of the COPC file beyond CopcFile: its LAS header and VLRs.
struct Source {
  std::unique_ptr<CopcFile> copc;
  std::vector<uint8_t> head;  ///< the header and the VLRs (the bytes before the point data)
  io::LasHeader h;
  io::laz::Layout layout;
  std::vector<uint8_t> layout_vlr, extra_bytes_vlr;
  std::string wkt;
  Bounds header_bounds;
  bool standard_gps_time = false;
};

bool open_source(const std::string& path, Source& s, std::string& err) {
  std::unique_ptr<ByteSource> src = open_byte_source(path, &err);
  if (!src) return false;
  s.copc = CopcFile::open(std::move(src), &err);
  if (!s.copc) return false;
  ByteSource& bytes = s.copc->source();
  std::vector<uint8_t> first;
  if (!bytes.read(0, std::min<uint64_t>(375, bytes.size()), first, &err)) return false;
  if (first.size() < 100) return (err = path + ": truncated LAS header", false);
  uint32_t point_offset = 0;
  std::memcpy(&point_offset, &first[96], 4);
  if (!bytes.read(0, point_offset, s.head, &err)) return false;
  const io::Input in{s.head.data(), s.head.size(), path, nullptr, nullptr};
  if (!io::parse_las_header(in, s.h, &err) || !io::find_layout(in, s.h, s.layout, &err))
    return false;
  if (s.h.format < 6 || s.h.format > 8)
    return (err = path + ": point format " + std::to_string(s.h.format) + " is no COPC format",
            false);
  size_t len = 0;
  const uint8_t* v = io::find_vlr(in, s.h, "laszip encoded", 22204, len);
  s.layout_vlr.assign(v, v + len);
  if ((v = io::find_vlr(in, s.h, "LASF_Spec", 4, len))) s.extra_bytes_vlr.assign(v, v + len);
  if ((v = io::find_vlr(in, s.h, "LASF_Projection", 2112, len)))
    s.wkt.assign(reinterpret_cast<const char*>(v), strnlen(reinterpret_cast<const char*>(v), len));
  s.header_bounds = io::las_header_bounds(s.head.data());
  s.standard_gps_time = (s.head[6] & 1) != 0;
  return true;
}

/// Every node of the hierarchy (entries with points >= 0), every page read.
bool read_hierarchy(const CopcFile& copc, std::vector<CopcEntry>& nodes, std::string& err) {
  std::vector<CopcPage> pages{copc.root_page()};
  std::vector<CopcEntry> entries;
  std::vector<std::string> warnings;
  while (!pages.empty()) {
    const CopcPage page = pages.back();
    pages.pop_back();
    if (!copc.read_page(page, entries, &warnings, &err)) return false;
    for (const CopcEntry& e : entries) {
      if (e.is_page())
        pages.push_back(CopcPage{e.offset, uint64_t(e.byte_size)});
      else
        nodes.push_back(e);
    }
  }
  if (!warnings.empty()) return (err = warnings[0], false);
  return true;
}

std::string key_text(const CopcKey& k) {
  return std::to_string(k.level) + "-" + std::to_string(k.x) + "-" + std::to_string(k.y) + "-" +
         std::to_string(k.z);
}

bool write_file(const fs::path& p, const void* data, size_t size, std::string& err) {
  std::ofstream f(p, std::ios::binary | std::ios::trunc);
  if (!f || !f.write(static_cast<const char*>(data), std::streamsize(size)) || !f.flush())
    return (err = p.string() + ": cannot write the file", false);
  return true;
}

/// The EPT record: X Y Z int32, Intensity u16, ReturnNumber u8, NumberOfReturns u8,
/// Classification u8, PointSourceId u16, GpsTime f64, then Red Green Blue u16 with color.
constexpr size_t kRecordBase = 27;

json schema_of(const Source& s) {
  json schema = json::array();
  const char* axes[3] = {"X", "Y", "Z"};
  for (int a = 0; a < 3; ++a)
    schema.push_back({{"name", axes[a]},
                      {"type", "signed"},
                      {"size", 4},
                      {"scale", s.h.scale[a]},
                      {"offset", s.h.origin[a]}});
  auto dim = [&](const char* name, const char* type, int size) {
    schema.push_back({{"name", name}, {"type", type}, {"size", size}});
  };
  dim("Intensity", "unsigned", 2);
  dim("ReturnNumber", "unsigned", 1);
  dim("NumberOfReturns", "unsigned", 1);
  dim("Classification", "unsigned", 1);
  dim("PointSourceId", "unsigned", 2);
  dim("GpsTime", "float", 8);
  if (io::kLasRgbOffset[s.h.format]) {
    dim("Red", "unsigned", 2);
    dim("Green", "unsigned", 2);
    dim("Blue", "unsigned", 2);
  }
  return schema;
}

/// LAS records (point formats 6-8) as EPT records of schema_of(), appended to `out`.
void las_to_ept(const uint8_t* r, bool color, std::vector<uint8_t>& out) {
  uint8_t e[kRecordBase + 6];
  std::memcpy(e, r, 12);           // X Y Z: the same integers in the same scale and offset
  std::memcpy(e + 12, r + 12, 2);  // intensity
  e[14] = r[14] & 15u;             // return number
  e[15] = uint8_t(r[14] >> 4);     // number of returns
  e[16] = r[16];                   // classification
  std::memcpy(e + 17, r + 20, 2);  // point source id
  std::memcpy(e + 19, r + 22, 8);  // GPS time
  if (color) std::memcpy(e + 27, r + 30, 6);
  out.insert(out.end(), e, e + (color ? kRecordBase + 6 : kRecordBase));
}

/// A LAZ 1.4 file of one node: the COPC chunk `chunk` as it is, its records (`records`, decoded)
/// counted into the header.
std::vector<uint8_t> laz_node_file(const Source& s, const std::vector<uint8_t>& chunk,
                                   const std::vector<uint8_t>& records, uint64_t count) {
  io::RecordSpec spec;
  spec.point_format = s.h.format;
  spec.record_length = s.h.record_length;
  spec.extra_bytes = uint16_t(s.h.record_length - (s.h.format == 6   ? 30
                                                   : s.h.format == 7 ? 36
                                                                     : 38));
  spec.scale = glm::dvec3(s.h.scale[0], s.h.scale[1], s.h.scale[2]);
  spec.offset = glm::dvec3(s.h.origin[0], s.h.origin[1], s.h.origin[2]);
  spec.standard_gps_time = s.standard_gps_time;
  spec.extra_bytes_vlr = s.extra_bytes_vlr;
  io::RecordStats st;
  st.add(records.data(), count, s.h.record_length);
  std::vector<uint8_t> vlrs;
  io::HeaderLayout lay;
  lay.compressed = true;
  io::append_vlr(vlrs, "laszip encoded", 22204, s.layout_vlr, "LASzip compression");
  lay.vlrs = 1;
  io::append_spec_vlrs(vlrs, spec, lay.vlrs);
  lay.point_offset = uint32_t(375 + vlrs.size());
  std::vector<uint8_t> file = io::las_header(spec, st, lay);
  file.insert(file.end(), vlrs.begin(), vlrs.end());
  // The chunk table's offset, the chunk, the table (one chunk: its points and bytes).
  const int64_t table_at = int64_t(lay.point_offset) + 8 + int64_t(chunk.size());
  const uint8_t* t = reinterpret_cast<const uint8_t*>(&table_at);
  file.insert(file.end(), t, t + 8);
  file.insert(file.end(), chunk.begin(), chunk.end());
  const std::vector<uint8_t> table =
      io::laz_chunk_table({count}, {uint64_t(chunk.size())}, s.layout.chunk_size == 0xFFFFFFFFu);
  file.insert(file.end(), table.begin(), table.end());
  return file;
}

/// Converts one node and writes its data file; `written` gets its bytes.
bool write_node(const Source& s, const Args& a, const CopcEntry& node, uint64_t& written,
                std::string& err) {
  written = 0;
  if (node.point_count == 0) return true;
  std::vector<uint8_t> chunk, records, out;
  const std::string name = "node " + key_text(node.key);
  if (!s.copc->source().read(node.offset, uint64_t(node.byte_size), chunk, &err))
    return (err = name + ": " + err, false);
  const uint64_t count = uint64_t(node.point_count);
  io::laz::ChunkReader reader(s.layout, io::kLazNotKept);
  if (!reader.start(chunk.data(), chunk.size(), count, &err))
    return (err = name + ": " + err, false);
  const size_t rec = s.h.record_length;
  records.resize(size_t(count) * rec);
  for (uint64_t i = 0; i < count; ++i) reader.next(&records[size_t(i) * rec]);
  if (reader.overrun()) return (err = name + ": truncated or corrupt compressed data", false);
  std::string ext = ".bin";
  if (a.data_type == "laszip") {
    out = laz_node_file(s, chunk, records, count);
    ext = ".laz";
  } else {
    const bool color = io::kLasRgbOffset[s.h.format] != 0;
    out.reserve(size_t(count) * (kRecordBase + 6));
    for (uint64_t i = 0; i < count; ++i) las_to_ept(&records[size_t(i) * rec], color, out);
    if (a.data_type == "zstandard") {
      std::vector<uint8_t> z(ZSTD_compressBound(out.size()));
      const size_t n = ZSTD_compress(z.data(), z.size(), out.data(), out.size(), a.zstd_level);
      if (ZSTD_isError(n)) return (err = name + ": Zstandard: " + ZSTD_getErrorName(n), false);
      z.resize(n);
      out.swap(z);
      ext = ".zst";
    }
  }
  written = out.size();
  return write_file(fs::path(a.out_dir) / "ept-data" / (key_text(node.key) + ext), out.data(),
                    out.size(), err);
}

/// Writes every node from `threads` threads, each taking the next node when it is done.
bool write_nodes(const Source& s, const Args& a, const std::vector<CopcEntry>& nodes,
                 uint64_t& bytes, std::string& err) {
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> total{0};
  std::atomic<bool> failed{false};
  std::mutex m;
  auto work = [&] {
    for (size_t i; !failed.load() && (i = next.fetch_add(1)) < nodes.size();) {
      uint64_t w = 0;
      std::string e;
      if (!write_node(s, a, nodes[i], w, e)) {
        std::lock_guard<std::mutex> lock(m);
        if (!failed.exchange(true)) err = e;
        return;
      }
      total += w;
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < a.threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  bytes = total.load();
  return !failed.load();
}

/// The hierarchy files: a node goes into the file of its ancestor at the level above or at it
/// that is a multiple of `step` (0: every node in 0-0-0-0.json); a file's key is -1 in the file
/// above and holds its own count in its own file.
bool write_hierarchy(const Args& a, const std::vector<CopcEntry>& nodes, uint64_t& bytes,
                     size_t& files_written, std::string& err) {
  using Key = std::tuple<int32_t, int32_t, int32_t, int32_t>;
  auto up = [](const CopcKey& k, int level) {
    const int s = k.level - level;
    return CopcKey{level, k.x >> s, k.y >> s, k.z >> s};
  };
  auto file_level = [&](int level) {
    return a.hierarchy_step > 0 ? level / a.hierarchy_step * a.hierarchy_step : 0;
  };
  std::map<Key, std::pair<CopcKey, json>> files;
  auto file_of = [&](const CopcKey& k) -> json& {
    auto& f = files[Key{k.level, k.x, k.y, k.z}];
    f.first = k;
    return f.second;
  };
  for (const CopcEntry& e : nodes)
    file_of(up(e.key, file_level(e.key.level)))[key_text(e.key)] = e.point_count;
  // Every file below the root: its own key in it (0 when the COPC hierarchy has no such node) and
  // -1 in the file above, which may itself be new.
  std::vector<CopcKey> todo;
  for (const auto& [k, f] : files) todo.push_back(f.first);
  while (!todo.empty()) {
    const CopcKey k = todo.back();
    todo.pop_back();
    if (k.level == 0) continue;
    json& own = file_of(k);
    if (!own.contains(key_text(k))) own[key_text(k)] = 0;
    const CopcKey parent = up(k, file_level(k.level - 1));
    const bool fresh = !files.count(Key{parent.level, parent.x, parent.y, parent.z});
    file_of(parent)[key_text(k)] = -1;
    if (fresh) todo.push_back(parent);
  }
  if (files.empty()) file_of(CopcKey{});
  bytes = 0;
  for (const auto& [k, f] : files) {
    const std::string text = f.second.dump();
    bytes += text.size();
    if (!write_file(fs::path(a.out_dir) / "ept-hierarchy" / (key_text(f.first) + ".json"),
                    text.data(), text.size(), err))
      return false;
  }
  files_written = files.size();
  return true;
}

json box(const glm::dvec3& lo, const glm::dvec3& hi) {
  return json::array({lo.x, lo.y, lo.z, hi.x, hi.y, hi.z});
}

bool write_ept_json(const Source& s, const Args& a, uint64_t points, std::string& err) {
  const CopcInfo& c = s.copc->info().copc;
  const glm::dvec3 half(c.halfsize);
  json doc;
  doc["version"] = "1.1.0";
  doc["bounds"] = box(c.center - half, c.center + half);
  doc["boundsConforming"] = box(s.header_bounds.min, s.header_bounds.max);
  doc["points"] = points;
  doc["schema"] = schema_of(s);
  doc["dataType"] = a.data_type;
  doc["hierarchyType"] = "json";
  // EPT's root spacing is the cube's width / span: the span that gives the COPC root spacing.
  doc["span"] = uint64_t(std::max(1.0, std::round(2.0 * c.halfsize / c.spacing)));
  doc["srs"] = s.wkt.empty() ? json::object() : json{{"wkt", s.wkt}};
  const std::string text = doc.dump(2) + "\n";
  return write_file(fs::path(a.out_dir) / "ept.json", text.data(), text.size(), err);
}

int run(const Args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  Source s;
  std::string err;
  std::vector<CopcEntry> nodes;
  if (!open_source(a.input, s, err) || !read_hierarchy(*s.copc, nodes, err)) {
    std::fprintf(stderr, "make_ept_bench: %s\n", err.c_str());
    return 1;
  }
  uint64_t points = 0;
  for (const CopcEntry& e : nodes) points += uint64_t(e.point_count);
  if (points != s.h.count)
    std::fprintf(stderr,
                 "make_ept_bench: warning: the hierarchy holds %llu points, the header "
                 "says %llu\n",
                 (unsigned long long)points, (unsigned long long)s.h.count);
  // The nodes' files are written afresh: stale ones of an earlier run are removed.
  const fs::path out(a.out_dir);
  std::error_code ec;
  fs::remove_all(out / "ept-data", ec);
  fs::remove_all(out / "ept-hierarchy", ec);
  fs::create_directories(out / "ept-data", ec);
  fs::create_directories(out / "ept-hierarchy", ec);
  if (ec) {
    std::fprintf(stderr, "make_ept_bench: %s: %s\n", a.out_dir.c_str(), ec.message().c_str());
    return 1;
  }
  // The largest nodes first, so that no thread is left with a large one at the end.
  std::sort(nodes.begin(), nodes.end(),
            [](const CopcEntry& x, const CopcEntry& y) { return x.point_count > y.point_count; });
  uint64_t data_bytes = 0, hierarchy_bytes = 0;
  size_t hierarchy_files = 0;
  if (!write_nodes(s, a, nodes, data_bytes, err) ||
      !write_hierarchy(a, nodes, hierarchy_bytes, hierarchy_files, err) ||
      !write_ept_json(s, a, points, err)) {
    std::fprintf(stderr, "make_ept_bench: %s\n", err.c_str());
    return 1;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf(
      "%s -> %s: %s, %llu points, %zu nodes, %llu bytes of node data, %zu hierarchy files (%llu "
      "bytes), %.2f s on %u threads (%.1f Mpoints/s)\n",
      a.input.c_str(), a.out_dir.c_str(), a.data_type.c_str(), (unsigned long long)points,
      nodes.size(), (unsigned long long)data_bytes, hierarchy_files,
      (unsigned long long)hierarchy_bytes, secs, a.threads, double(points) / secs * 1e-6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse_args(argc, argv, a)) return 2;
  return run(a);
}
