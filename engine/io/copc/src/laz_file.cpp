// LAZ: LAS whose points LASzip compressed. The LASzip VLR (user "laszip encoded", record 22204)
// lists the items of a point record and how they are coded; the points are chunks, each one
// decodable on its own, found through the chunk table at the end of the point data (itself
// arithmetic-coded: per chunk its byte size and, for variable chunks as COPC writes, its point
// count). Chunks are decoded in parallel straight from the memory map into the cloud's arrays.
// COPC files (the `copc` info VLR, user "copc" record 1, and its hierarchy EVLR, record 1000) are
// LAZ files whose variable chunks are the nodes of an octree: the hierarchy's pages give each
// node's level, byte range and point count, so any node decodes on its own from the memory map and
// a load may stop at a depth or point budget. LASzip 1.x's unchunked compressor wrote one stream
// for all points, right at the offset to the point data, without a chunk table: it is decoded as
// one chunk, on one thread, reporting progress and checking cancel as it goes.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "copc_page.h"
#include "engine/io/base/stride.h"
#include "engine/io/copc/laz_file.h"
#include "engine/io/laz/chunk_table.h"

namespace pr::io {

const uint8_t* find_vlr(const Input& in, const LasHeader& h, const char* user, uint16_t record,
                        size_t& len) {
  const uint8_t* d = in.data;
  const size_t user_len = std::strlen(user);
  size_t p = h.header_size;
  for (uint32_t i = 0; i < h.vlr_count && p + 54 <= h.offset; ++i) {
    len = get_le<uint16_t>(d + p + 20);
    if (p + 54 + len > h.offset) break;
    if (std::memcmp(d + p + 2, user, user_len) == 0 && d[p + 2 + user_len] == 0 &&
        get_le<uint16_t>(d + p + 18) == record)
      return d + p + 54;
    p += 54 + len;
  }
  return nullptr;
}

bool find_layout(const Input& in, const LasHeader& h, laz::Layout& lo, std::string* error) {
  size_t len = 0;
  const uint8_t* v = find_vlr(in, h, "laszip encoded", 22204, len);
  if (!v) return fail(in, error, "compressed points (LAZ) without a LASzip VLR");
  std::string why;
  if (!laz::parse_layout(v, len, lo, &why) || !laz::supported(lo, &why))
    return fail(in, error, why);
  return true;
}

std::string laz_version(const LasHeader& h, const laz::Layout& lo, size_t chunks, bool copc) {
  const bool variable = lo.chunk_size == 0xFFFFFFFFu;
  return std::to_string(h.major) + "." + std::to_string(h.minor) + " format " +
         std::to_string(h.format) + ", LASzip " + std::to_string(lo.version_major) + "." +
         std::to_string(lo.version_minor) + "r" + std::to_string(lo.version_revision) +
         (lo.compressor == 1
              ? std::string(" point-wise, unchunked")
              : (lo.compressor == 3 ? " layered, " : " point-wise, ") +
                    (variable && chunks == 0
                         ? std::string("variable chunks")
                         : std::to_string(chunks) + " chunks" +
                               (variable ? std::string(" (variable)")
                                         : " of " + std::to_string(lo.chunk_size)))) +
         (copc ? ", COPC" : "");
}

void parse_copc_info(const uint8_t* v, CopcInfo& copc, uint64_t& root_offset, uint64_t& root_size) {
  copc.present = true;
  copc.center = {get_le<double>(v), get_le<double>(v + 8), get_le<double>(v + 16)};
  copc.halfsize = get_le<double>(v + 24);
  copc.spacing = get_le<double>(v + 32);
  root_offset = get_le<uint64_t>(v + 40);
  root_size = get_le<uint64_t>(v + 48);
}

Bounds copc_bounds(const Bounds& header_bounds, const CopcInfo& copc) {
  // Bounds hold when they are finite and within 1e12 of 0 (no survey's coordinates come near: a
  // damaged header's would put every float position at infinity).
  auto holds = [](const Bounds& b) {
    for (int a = 0; a < 3; ++a)
      if (!(std::abs(b.min[a]) <= 1e12 && std::abs(b.max[a]) <= 1e12)) return false;
    return !b.empty;
  };
  if (holds(header_bounds)) return header_bounds;
  Bounds cube;
  const double h = copc.halfsize;
  if (std::isfinite(h) && h >= 0.0) {
    cube.extend(copc.center - glm::dvec3(h));
    cube.extend(copc.center + glm::dvec3(h));
  }
  return holds(cube) ? cube : Bounds{};
}

glm::dvec3 copc_origin(const Bounds& header_bounds, const CopcInfo& copc) {
  return choose_origin(copc_bounds(header_bounds, copc));
}

namespace {

using Chunk = LazChunk;

/// "chunk 3 of 4" (1-based, as a person counts; `of` 0: not known, variable chunks).
std::string chunk_name(size_t k, uint64_t of) {
  return "chunk " + std::to_string(k + 1) + (of ? " of " + std::to_string(of) : std::string());
}

/// The points of chunk `k` of a file without a chunk table at `pos`: a fixed chunk's share of the
/// header's count, or the count a variable layered chunk (COPC) stores after its first point (0
/// when the file ends before it).
uint64_t walked_chunk_points(const Input& in, const LazFile& f, size_t pos, uint64_t done) {
  if (f.layout.chunk_size != 0xFFFFFFFFu)
    return std::min<uint64_t>(f.layout.chunk_size, f.h.count - done);
  const size_t rec = f.layout.record_length;
  return in.size - pos < rec + 4 ? 0 : get_le<uint32_t>(in.data + pos + rec);
}

/// The chunks of a file without a chunk table, one after the other from `begin`: fixed chunks,
/// or variable layered chunks (COPC) by the point count each stores. A point-wise chunk is
/// decoded once, on this thread, to find its size; a layered chunk's header gives its layers'
/// sizes. A file that ends inside a chunk or before the header's count is cut short (f.cut): a
/// point-wise chunk keeps the points decoded before its decoder read past the end of the file, a
/// layered one none (a point needs every layer).
bool walk_chunks(const Input& in, LazFile& f, size_t begin, std::string* error) {
  const bool variable = f.layout.chunk_size == 0xFFFFFFFFu, layered = f.layout.compressor == 3;
  const uint64_t of = variable ? 0 : (f.h.count + f.layout.chunk_size - 1) / f.layout.chunk_size;
  std::vector<uint8_t> record(f.layout.record_length);
  size_t pos = begin;
  for (uint64_t done = 0; done < f.h.count;) {
    const size_t k = f.chunks.size();
    if (pos >= in.size) {
      f.cut = "the file ends after chunk " + std::to_string(k) +
              (of ? " of " + std::to_string(of) : "");
      return true;
    }
    Chunk c;
    c.begin = pos;
    c.first = done;
    c.points = walked_chunk_points(in, f, pos, done);
    if (variable && (c.points == 0 || c.points > f.h.count - done)) {
      if (c.points == 0 && in.size - pos < f.layout.record_length + 4) {
        f.cut = chunk_name(k, of) + " is truncated";
        return true;
      }
      return fail(in, error,
                  "no LAZ chunk table, and " + chunk_name(k, of) + " stores " +
                      std::to_string(c.points) + " points of the " +
                      std::to_string(f.h.count - done) + " left");
    }
    laz::ChunkReader reader(f.layout);  // fresh models, as the chunk's encoder started with
    std::string why;
    if (!reader.start(in.data + pos, in.size - pos, c.points, &why)) {
      if (!reader.cut())
        return fail(in, error,
                    "no LAZ chunk table, and walking the chunks fails at chunk " +
                        std::to_string(k) + ": " + why);
      f.cut = chunk_name(k, of) + " is truncated";
      return true;
    }
    uint64_t i = 0;
    // A point decoded before the decoder read past the chunk's bytes is whole: every byte it
    // took was in the file.
    for (; !layered && i < c.points; ++i) {
      reader.next(record.data());
      if (reader.overrun()) break;
    }
    if (!layered && i < c.points) {
      c.size = in.size - pos;
      c.points = i;
      if (i) f.chunks.push_back(c);
      f.cut = chunk_name(k, of) + " is truncated";
      return true;
    }
    c.size = reader.consumed();
    f.chunks.push_back(c);
    pos += c.size;
    done += c.points;
    if (in.progress && in.progress->cancel.load(std::memory_order_relaxed))
      return fail(in, error, "cancelled");
  }
  return true;
}

/// Without a chunk table: the chunks walked when they can be (fixed chunks, variable layered
/// ones), else one line saying why not. `table_cut`: the table lies past the end of the file, or
/// the file ends inside it, so a file whose chunks are all there is cut short too.
bool chunks_without_table(const Input& in, LazFile& f, int64_t table, bool table_cut,
                          std::string* error) {
  const bool variable = f.layout.chunk_size == 0xFFFFFFFFu;
  if (variable ? f.layout.compressor != 3 : f.layout.chunk_size == 0)
    return fail(in, error,
                "the LAZ chunk table is missing or damaged (offset " + std::to_string(table) +
                    ", file size " + std::to_string(in.size) + ") and its chunks are variable");
  f.chunks.clear();
  if (!walk_chunks(in, f, size_t(f.h.offset) + 8, error)) return false;
  if (f.cut.empty() && table_cut) f.cut = "the chunk table is truncated";
  return true;
}

/// Reads the chunk table: chunk i covers [begin, begin + size) and holds `points` points.
bool read_chunk_table(const Input& in, LazFile& f, std::string* error) {
  const uint8_t* d = in.data;
  const LasHeader& h = f.h;
  const size_t chunks_start = size_t(h.offset) + 8;
  if (chunks_start > in.size)
    return fail(in, error, "the point data ends before its chunk table offset");
  int64_t table = get_le<int64_t>(d + h.offset);
  // A table the header places past the end of the file: the file is cut short.
  const bool past_end = table > 0 && uint64_t(table) > in.size - 8;
  if (table == -1 && in.size >= 8) table = get_le<int64_t>(d + in.size - 8);  // written at the end
  const bool variable = f.layout.chunk_size == 0xFFFFFFFFu;
  const bool valid = table >= int64_t(chunks_start) && uint64_t(table) + 8 <= in.size &&
                     get_le<uint32_t>(d + table) == 0;
  // Without a table, chunks follow each other: a fixed chunk's decoding or a layered chunk's
  // header finds where the next one starts.
  if (!valid) return chunks_without_table(in, f, table, past_end, error);
  const uint32_t n = get_le<uint32_t>(d + table + 4);
  const uint64_t data_bytes = uint64_t(table) - chunks_start;
  // Each chunk holds at least one point and its first point raw: a bound before allocating.
  // Every chunk takes at least one byte and all but an empty last one (as lazrs writes) at
  // least one point: a bound before allocating.
  if (n == 0 && h.count == 0) return true;
  if (n == 0 || n > h.count + 1 || n > data_bytes)
    return fail(in, error,
                "the LAZ chunk table declares " + std::to_string(n) + " chunks for " +
                    std::to_string(h.count) + " points in " + std::to_string(data_bytes) +
                    " bytes");
  laz::ChunkTableReader entries(d + table + 8, in.size - size_t(table) - 8);
  f.chunks.resize(n);
  uint64_t pos = chunks_start, total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    Chunk& c = f.chunks[i];
    uint32_t points = 0, bytes = 0;
    entries.next(variable, points, bytes);
    c.points = variable
                   ? points
                   : std::min<uint64_t>(f.layout.chunk_size, h.count - std::min(h.count, total));
    c.begin = size_t(pos);
    c.size = bytes;
    c.first = total;
    pos += bytes;
    total += c.points;
    // A file that ends inside its table has all its chunks: they are walked.
    if (entries.overrun()) return chunks_without_table(in, f, table, true, error);
    if (pos > uint64_t(table) || (c.points == 0 && i + 1 < n))
      return fail(in, error, "the LAZ chunk table is damaged (chunk " + std::to_string(i) + ")");
  }
  if (total != h.count)
    return fail(in, error,
                "the LAZ chunk table holds " + std::to_string(total) + " points, the header " +
                    std::to_string(h.count));
  return true;
}

/// The unchunked compressor's one stream: the first point raw, then the arithmetic stream of all
/// the others, from the offset to the point data to the end of the file (LASzip restarts its
/// coder after 2^32 - 1 points, which no file of that compressor reaches: LAS 1.0 - 1.3 count
/// points in 32 bits).
bool one_stream(const Input& in, LazFile& f, std::string* error) {
  if (f.h.count > 0xFFFFFFFFu)
    return fail(
        in, error,
        "an unchunked LAZ stream of " + std::to_string(f.h.count) + " points (more than 2^32 - 1)");
  if (f.h.offset >= in.size) {
    f.cut = "the file ends before its point data";
    return true;
  }
  Chunk c;
  c.begin = f.h.offset;
  c.size = in.size - f.h.offset;
  c.points = f.h.count;
  f.chunks.push_back(c);
  return true;
}

}  // namespace

bool open_laz(const Input& in, LazFile& f, std::string* error) {
  if (!parse_las_header(in, f.h, error)) return false;
  if (!find_layout(in, f.h, f.layout, error)) return false;
  if (f.layout.record_length != f.h.record_length)
    return fail(in, error,
                "the LASzip items make " + std::to_string(f.layout.record_length) +
                    "-byte records, the header says " + std::to_string(f.h.record_length));
  // A file without points has no chunk to find (laspy writes an empty chunk table).
  if (f.h.count == 0) return true;
  if (!(f.layout.compressor == 1 ? one_stream(in, f, error) : read_chunk_table(in, f, error)))
    return false;
  for (const Chunk& c : f.chunks) f.points += c.points;
  return true;
}

void find_stream_cut(const Input& in, LazFile& f) {
  if (f.layout.compressor != 1 || f.chunks.empty()) return;
  LazChunk& c = f.chunks[0];
  laz::ChunkReader reader(f.layout);
  std::string why;
  std::vector<uint8_t> record(f.layout.record_length);
  uint64_t i = 0;
  if (reader.start(in.data + c.begin, c.size, c.points, &why))
    for (; i < c.points; ++i) {
      reader.next(record.data());
      if (reader.overrun()) break;
    }
  if (i == c.points) return;
  f.points -= c.points - i;
  c.points = i;
  f.cut = "the LAZ stream is truncated";
}

namespace {

std::string chunk_error(const laz::Layout& lo, size_t i, const std::string& why) {
  return (lo.compressor == 1 ? std::string("the LAZ stream") : "LAZ chunk " + std::to_string(i)) +
         ": " + why;
}

/// True when the extended VLRs the header of a LAS 1.4 file lists run past the end of the file:
/// the file is cut short before or inside them (a COPC file's hierarchy is one of them).
bool evlrs_cut(const Input& in, const LasHeader& h) {
  if (h.minor < 4 || h.header_size < 375) return false;
  uint64_t p = get_le<uint64_t>(in.data + 235);
  const uint32_t n = get_le<uint32_t>(in.data + 243);
  for (uint32_t i = 0; i < n; ++i) {
    if (p < h.offset) return false;  // not where EVLRs can lie: damage, not a cut
    if (p > in.size || in.size - p < 60) return true;
    const uint64_t len = get_le<uint64_t>(in.data + p + 20);
    if (len > in.size - p - 60) return true;
    p += 60 + len;
  }
  return false;
}

/// COPC: the octree from the `copc` info VLR and the hierarchy pages it points to (the hierarchy
/// EVLR holds them). `nodes` gets one chunk per node holding points, in file order, `first`
/// counted over all nodes. False with a message when the file says COPC but its hierarchy does
/// not hold together; true with copc.present == false for plain LAZ, and for a COPC file cut
/// short before the end of its hierarchy (`hierarchy_cut`): its chunks are read as plain LAZ.
bool read_copc(const Input& in, const LazFile& f, CopcInfo& copc, std::vector<Chunk>& nodes,
               bool& hierarchy_cut, std::string* error) {
  size_t len = 0;
  const uint8_t* v = find_vlr(in, f.h, "copc", 1, len);
  if (!v) return true;
  if (len < 160)
    return fail(in, error, "the COPC info VLR holds " + std::to_string(len) + " bytes, not 160");
  uint64_t root = 0, root_size = 0;
  parse_copc_info(v, copc, root, root_size);
  // Pages never overlap, so the bytes of all pages visited stay within the file's size: the bound
  // that stops a page cycle.
  std::vector<std::pair<uint64_t, uint64_t>> pages{{root, root_size}};
  uint64_t visited = 0;
  const uint64_t data_begin = uint64_t(f.h.offset) + 8;
  while (!pages.empty()) {
    const auto [at, size] = pages.back();
    pages.pop_back();
    visited += size;
    if ((at > in.size || size > in.size - at) && evlrs_cut(in, f.h)) {
      copc = CopcInfo{};
      nodes.clear();
      hierarchy_cut = true;
      return true;
    }
    if (size % kCopcEntryBytes || at > in.size || size > in.size - at || visited > in.size)
      return fail(in, error,
                  "a COPC hierarchy page (offset " + std::to_string(at) + ", " +
                      std::to_string(size) + " bytes) lies outside the file or is malformed");
    for (uint64_t p = at; p < at + size; p += kCopcEntryBytes) {
      const CopcEntry e = copc_entry(in.data + p);
      if (const char* why = copc_entry_problem(e, data_begin, in.size))
        return fail(in, error, copc_entry_name(e) + ": " + why);
      if (e.is_page()) {
        pages.push_back({e.offset, uint64_t(e.byte_size)});
        continue;
      }
      if (e.point_count == 0) continue;
      Chunk c;
      c.begin = size_t(e.offset);
      c.size = size_t(e.byte_size);
      c.points = uint64_t(e.point_count);
      c.level = e.key.level;
      nodes.push_back(c);
      const size_t level = size_t(e.key.level);
      if (copc.levels.size() <= level) copc.levels.resize(level + 1);
      copc.levels[level].nodes++;
      copc.levels[level].points += c.points;
    }
  }
  std::sort(nodes.begin(), nodes.end(),
            [](const Chunk& a, const Chunk& b) { return a.begin < b.begin; });
  uint64_t total = 0;
  for (Chunk& c : nodes) {
    c.first = total;
    total += c.points;
  }
  if (total != f.h.count)
    return fail(in, error,
                "the COPC hierarchy holds " + std::to_string(total) + " points, the header " +
                    std::to_string(f.h.count));
  return true;
}

/// LoadOptions::whole_chunks: chunks k * n / m (k < m) of the file's n, the fewest m whose
/// points (at the file's average a chunk) reach max_points; all of them when that is every one.
std::vector<Chunk> spread_chunks(const std::vector<Chunk>& all, uint64_t points,
                                 uint64_t max_points) {
  const size_t n = all.size();
  if (n == 0 || max_points == 0 || max_points >= points) return all;
  const double per_chunk = double(points) / double(n);
  const size_t m = std::min(n, size_t(std::ceil(double(max_points) / per_chunk)));
  std::vector<Chunk> out;
  out.reserve(m);
  for (size_t k = 0; k < m; ++k) out.push_back(all[k * n / m]);
  return out;
}

/// The chunks read_laz decodes: every chunk in file order (or, for LoadOptions::whole_chunks,
/// chunks spread through the file), or the COPC nodes down to the depth LoadOptions choose
/// (`every_chunk` false when that leaves nodes out).
std::vector<Chunk> chunks_to_read(const Input& in, const LazFile& f, CopcInfo& copc,
                                  const std::vector<Chunk>& nodes, bool& every_chunk) {
  every_chunk = true;
  if (!copc.present && in.options->whole_chunks)
    return spread_chunks(f.chunks, f.points, in.options->max_points);
  if (!copc.present) return f.chunks;
  std::vector<Chunk> chunks;
  if (copc.levels.empty()) return chunks;  // a COPC file without points
  const size_t depth = copc_depth(copc, *in.options);
  for (size_t l = 0; l <= depth; ++l) copc.levels[l].read = true;
  every_chunk = depth + 1 == copc.levels.size();
  for (const Chunk& c : nodes)
    if (size_t(c.level) <= depth) chunks.push_back(c);
  return chunks;
}

/// One read_laz: the chunks, what the parallel chunk decoders share, and the passes after them.
///
/// A plain LAZ file's origin is the one the LAS reader picks, from records 0, step, 2 step, ...,
/// so that a LAZ file and its LAS twin give identical float positions. Those records are known
/// only once decoded, so the chunks store the integer X, Y, Z in the positions' bytes, and one
/// pass turns them into floats relative to the origin afterwards. A COPC file's origin comes from
/// its header (copc_origin()), known before any node is decoded, as a node read on its own
/// (CopcFile::read_node) knows it: whatever the depth read, the same origin and positions.
///
/// Extra bytes become named fields, as the LAS reader makes them. A chunk writes the values of
/// its kept points where the sink writes the points, at the sum of the capacities before it
/// (`slot`); they are compacted as the sink compacts the points.
///
/// Colors follow the LAS reader's rule (16-bit, unless no channel exceeds 255) chunk by chunk
/// (convert_chunk(): high bytes, or low bytes when the chunk's largest channel is at most 255).
/// A plain file applies it to the whole file: chunks that wrote low bytes (`low[b]`) are fixed up
/// afterwards if another chunk exceeds 255. A COPC file keeps each node's own choice, as a node
/// read on its own makes it: a node's colors never depend on which other nodes are read.
struct LazRead {
  const Input& in;
  const LazFile& f;
  const LasHeader& h;
  const bool copc;
  std::vector<Chunk> chunks;
  bool every_chunk = true;
  Stride stride;  ///< a plain file with a point budget keeps an even stride through its records
  std::vector<size_t> caps;
  uint64_t step = 1;
  std::vector<glm::dvec3> samples;
  std::vector<uint8_t> sampled;
  LasRecords recs;
  std::vector<size_t> slot;
  std::vector<PodVector<float>> extra_values;
  std::vector<float*> extra_arrays;
  /// An unchunked stream (or a file of one chunk) is one block of the sink, decoded on one
  /// thread: it reports progress and checks cancel itself, every 4096 points.
  bool one_block = false;
  /// The points of an unchunked stream decoded before its decoder read past the end of the file
  /// (a file cut short); its points when it did not.
  uint64_t stream_points = 0;
  std::vector<uint8_t> low;
  std::vector<size_t> kept;
  std::atomic<uint32_t> max_channel{0};

  LazRead(const Input& input, const LazFile& file, CopcInfo& copc_info,
          const std::vector<Chunk>& nodes)
      : in(input), f(file), h(file.h), copc(copc_info.present), recs(input, file.h) {
    chunks = chunks_to_read(in, f, copc_info, nodes, every_chunk);
    // Whole chunks keep all their records; COPC nodes too.
    stride = Stride::of(f.points, copc || in.options->whole_chunks ? LoadOptions{} : *in.options);
    step = std::max<uint64_t>(1, f.points / 4096);
    if (!copc) samples.resize(size_t((f.points + step - 1) / step));
    sampled.assign(samples.size(), 0);
    caps.resize(chunks.size());
    for (size_t i = 0; i < caps.size(); ++i)
      caps[i] = size_t(stride.before(chunks[i].first + chunks[i].points) -
                       stride.before(chunks[i].first));
    slot.assign(chunks.size() + 1, 0);
    for (size_t i = 0; i < caps.size(); ++i) slot[i + 1] = slot[i] + caps[i];
    one_block = chunks.size() == 1;
    low.assign(chunks.size(), 0);
    kept.assign(chunks.size(), 0);
  }

  /// Allocates the extra bytes' values, checked first, counting the positions and colors (16
  /// bytes) that the sink allocates next to them.
  bool allocate_extras(std::string* error) {
    const size_t ne = recs.extras.size();
    extra_values.resize(ne);
    if (ne && !fits_in_memory(in, slot.back(), 16 + 4 * ne, error)) return false;
    for (auto& v : extra_values) {
      v.resize(slot.back());
      extra_arrays.push_back(v.data());
    }
    return true;
  }

  /// Decodes chunk b into the sink's block w.
  bool decode_chunk(size_t b, BlockWriter& w, std::string& err) {
    const Chunk& c = chunks[b];
    if (c.points == 0) return true;
    laz::ChunkReader reader(f.layout, kLazNotKept);
    std::string why;
    if (!reader.start(in.data + c.begin, c.size, c.points, &why)) {
      err = chunk_error(f.layout, b, why);
      return false;
    }
    // Locals for what the record hook reads, so that the point loop's stores cannot alias them.
    const LasHeader hd = h;
    const Stride st = stride;
    const uint64_t every_step = step, n_samples = samples.size();
    const bool report = one_block && in.progress;
    // The unchunked stream runs to the end of the file: a decoder that reads past it finds the
    // file cut short, and the points before that one are whole.
    const bool stream = f.layout.compressor == 1;
    stream_points = c.points;
    uint64_t next_kept = st.record(st.before(c.first));
    uint64_t next_sample = (c.first + every_step - 1) / every_step * every_step;
    uint32_t mx = 0;
    const bool ok = convert_chunk(reader, c.points, recs, !copc, w, extra_arrays.data(), mx, err,
                                  [&](uint64_t i, const uint8_t* record) {
                                    if (stream && reader.overrun()) {
                                      stream_points = i;
                                      return RecordUse::kEnd;
                                    }
                                    if (report && (i & 0xFFF) == 0 && i) {
                                      if (in.progress->cancel.load(std::memory_order_relaxed)) {
                                        err = "cancelled";
                                        return RecordUse::kStop;
                                      }
                                      in.progress->fraction.store(double(i) / double(c.points));
                                    }
                                    const uint64_t g = c.first + i;
                                    if (g == next_sample && g / every_step < n_samples) {
                                      next_sample += every_step;
                                      samples[size_t(g / every_step)] = las_position(record, hd);
                                      sampled[size_t(g / every_step)] = 1;
                                    }
                                    if (g != next_kept) return RecordUse::kSkip;
                                    next_kept = st.record(st.before(g + 1));
                                    return RecordUse::kKeep;
                                  });
    if (!ok) {
      if (err != "cancelled") err = chunk_error(f.layout, b, err);
      return false;
    }
    kept[b] = w.n;
    low[b] = mx <= 255;
    uint32_t cur = max_channel.load();
    while (mx > cur && !max_channel.compare_exchange_weak(cur, mx)) {
    }
    return true;
  }

  /// After all chunks: the colors of chunks that wrote low bytes when another exceeded 255 (plain
  /// files), and the extra bytes' values moved as the sink moved the points.
  void after_chunks(PointCloud& cl) {
    if (recs.rgb && !copc && max_channel.load() > 255) {
      // Chunks whose channels all stayed <= 255 wrote low bytes; as 16-bit colors their high
      // bytes are 0. The sink compacted the chunks in order, so chunk b starts at the sum of the
      // points kept before it.
      size_t at = 0;
      for (size_t b = 0; b < chunks.size(); at += kept[b], ++b)
        if (low[b])
          for (size_t i = 0; i < kept[b]; ++i) cl.colors[at + i] = rgba(0, 0, 0);
    }
    if (recs.extras.empty()) return;
    // The sink moved chunk b's kept points from slot[b] down behind the previous chunks'.
    size_t at = 0;
    for (size_t b = 0; b < chunks.size(); at += kept[b], ++b)
      if (at != slot[b])
        for (auto& v : extra_values)
          std::memmove(v.data() + at, v.data() + slot[b], kept[b] * sizeof(float));
    for (size_t e = 0; e < recs.extras.size(); ++e) {
      extra_values[e].resize(cl.size());
      extra_values[e].shrink_to_fit();
      cl.fields.push_back(ScalarField{recs.extras[e].name, std::move(extra_values[e])});
    }
  }

  /// A plain file's origin, from the records sampled.
  glm::dvec3 sampled_origin() const {
    Bounds sample;
    for (size_t k = 0; k < samples.size(); ++k)
      if (sampled[k]) sample.extend(samples[k]);
    return choose_origin(sample);
  }
};

/// Turns the integer X, Y, Z the chunks left in the positions' bytes into floats relative to
/// `origin`.
void positions_from_integers(PointCloud& cl, const LasHeader& h, const glm::dvec3& origin) {
  parallel_for(
      cl.size(),
      [&](size_t i0, size_t i1) {
        for (size_t i = i0; i < i1; ++i) {
          int32_t v[3];
          std::memcpy(v, &cl.positions[i], 12);
          const double x = double(v[0]) * h.scale[0] + h.origin[0];
          const double y = double(v[1]) * h.scale[1] + h.origin[1];
          const double z = double(v[2]) * h.scale[2] + h.origin[2];
          cl.positions[i] = Float3{float(x - origin.x), float(y - origin.y), float(z - origin.z)};
        }
      },
      0, 1 << 16);
  cl.origin = origin;
}

/// The warning of a LAZ file cut short, when it is: f.cut, an unchunked stream that ends early,
/// a COPC hierarchy cut off.
void warn_laz_cut(const Input& in, Output& out, const LazFile& f, const LazRead& r,
                  bool hierarchy_cut) {
  std::string why = f.cut;
  uint64_t points = f.points;
  if (f.layout.compressor == 1 && !f.chunks.empty() && r.stream_points < f.chunks[0].points) {
    points -= f.chunks[0].points - r.stream_points;
    why = "the LAZ stream is truncated";
  }
  if (hierarchy_cut)
    why += (why.empty() ? "" : "; ") +
           std::string("the COPC hierarchy is lost, so its nodes are read as plain LAZ");
  if (!why.empty()) warn_cut_short(in, out, points, f.h.count, why);
}

}  // namespace

bool read_laz(const Input& in, Output& out, std::string* error) {
  LazFile f;
  if (!open_laz(in, f, error)) return false;
  CopcInfo copc;
  std::vector<Chunk> nodes;
  bool hierarchy_cut = false;
  if (!read_copc(in, f, copc, nodes, hierarchy_cut, error)) return false;
  LazRead r(in, f, copc, nodes);
  const Attributes attrs = las_attributes(f.h.format);
  const glm::dvec3 origin =
      copc.present ? copc_origin(las_header_bounds(in.data), copc) : glm::dvec3(0.0);
  PointSink sink(in, out, attrs, origin);
  if (!r.allocate_extras(error)) return false;
  if (!sink.run(
          r.caps,
          [&r](size_t b, BlockWriter& w, std::string& err) { return r.decode_chunk(b, w, err); },
          error))
    return false;
  r.after_chunks(*out.cloud);
  if (!copc.present) positions_from_integers(*out.cloud, f.h, r.sampled_origin());
  out.info->version = laz_version(f.h, f.layout, f.chunks.size(), copc.present);
  out.info->copc = std::move(copc);
  // A file without points (or cut before its first) reports the bounds its header states.
  finish(in, out, out.cloud->empty() ? las_header_bounds(in.data) : sink.bounds, attrs);
  warn_laz_cut(in, out, f, r, hierarchy_cut);
  return true;
}

bool laz_records(const Input& in, std::vector<uint8_t>& records, size_t* record_length,
                 std::string* error) {
  LazFile f;
  if (!open_laz(in, f, error)) return false;
  const size_t rec = f.h.record_length;
  if (record_length) *record_length = rec;
  if (!fits_in_memory(in, f.points, rec, error)) return false;
  records.assign(size_t(f.points) * rec, 0);
  size_t at = 0;
  for (size_t b = 0; b < f.chunks.size(); ++b) {
    const Chunk& c = f.chunks[b];
    if (c.points == 0) continue;
    laz::ChunkReader reader(f.layout);
    std::string why;
    if (!reader.start(in.data + c.begin, c.size, c.points, &why))
      return fail(in, error, chunk_error(f.layout, b, why));
    for (uint64_t i = 0; i < c.points; ++i, at += rec) reader.next(records.data() + at);
    if (reader.overrun())
      return fail(in, error, chunk_error(f.layout, b, "truncated or corrupt compressed data"));
  }
  return true;
}

}  // namespace pr::io

namespace pr {

bool decompress_laz(const std::string& path, std::vector<uint8_t>& records, size_t* record_length,
                    std::string* error) {
  std::FILE* fp = std::fopen(path.c_str(), "rb");
  if (!fp) {
    if (error) *error = path + ": cannot open";
    return false;
  }
  std::vector<uint8_t> bytes;
  uint8_t buf[1 << 16];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, fp)) > 0) bytes.insert(bytes.end(), buf, buf + n);
  std::fclose(fp);
  static const LoadOptions kEverything;
  io::Input in{bytes.data(), bytes.size(), path, nullptr, &kEverything};
  return io::laz_records(in, records, record_length, error);
}

size_t copc_depth(const CopcInfo& copc, const LoadOptions& o) {
  if (copc.levels.empty()) return 0;
  size_t depth = copc.levels.size() - 1;
  if (o.max_depth >= 0) depth = std::min(depth, size_t(o.max_depth));
  if (o.max_points) {
    uint64_t sum = 0;
    for (size_t l = 0; l <= depth; ++l) {
      sum += copc.levels[l].points;
      if (sum > o.max_points) {
        depth = l ? l - 1 : 0;
        break;
      }
    }
  }
  return depth;
}

}  // namespace pr
