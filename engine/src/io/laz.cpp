// LAZ: LAS whose points LASzip compressed. The LASzip VLR (user "laszip encoded", record 22204)
// lists the items of a point record and how they are coded; the points are chunks, each one
// decodable on its own, found through the chunk table at the end of the point data (itself
// arithmetic-coded: per chunk its byte size and, for variable chunks as COPC writes, its point
// count). Chunks are decoded in parallel straight from the memory map into the cloud's arrays.
#include <atomic>
#include <cstdio>
#include <cstring>

#include "io/laz_chunk.h"
#include "io/laz_codec.h"
#include "io/readers.h"

namespace pr::io {

namespace {

template <class T>
T get(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

struct Chunk {
  size_t begin = 0, size = 0;  // bytes in the file
  uint64_t points = 0;
};

/// Everything read_laz and laz_records need before decoding: header, layout, chunks.
struct LazFile {
  LasHeader h;
  laz::Layout layout;
  std::vector<Chunk> chunks;
};

bool find_layout(const Input& in, const LasHeader& h, laz::Layout& lo, std::string* error) {
  const uint8_t* d = in.data;
  size_t p = h.header_size;
  for (uint32_t i = 0; i < h.vlr_count && p + 54 <= h.offset; ++i) {
    const size_t len = get<uint16_t>(d + p + 20);
    if (p + 54 + len > h.offset) break;
    if (std::memcmp(d + p + 2, "laszip encoded", 14) == 0 && get<uint16_t>(d + p + 18) == 22204) {
      std::string why;
      if (!laz::parse_layout(d + p + 54, len, lo, &why) || !laz::supported(lo, &why))
        return fail(in, error, why);
      return true;
    }
    p += 54 + len;
  }
  return fail(in, error, "compressed points (LAZ) without a LASzip VLR");
}

/// Reads the chunk table: chunk i covers [begin, begin + size) and holds `points` points.
bool read_chunk_table(const Input& in, LazFile& f, std::string* error) {
  const uint8_t* d = in.data;
  const LasHeader& h = f.h;
  const size_t chunks_start = size_t(h.offset) + 8;
  if (chunks_start > in.size)
    return fail(in, error, "the point data ends before its chunk table offset");
  int64_t table = get<int64_t>(d + h.offset);
  if (table == -1 && in.size >= 8) table = get<int64_t>(d + in.size - 8);  // written at the end
  const bool variable = f.layout.chunk_size == 0xFFFFFFFFu;
  const bool valid = table >= int64_t(chunks_start) && uint64_t(table) + 8 <= in.size &&
                     get<uint32_t>(d + table) == 0;
  if (!valid) {
    // Without a table only a file of one chunk can be read: its end is the file's end.
    if (!variable && f.layout.chunk_size && h.count <= f.layout.chunk_size) {
      f.chunks.push_back({chunks_start, in.size - chunks_start, h.count});
      return true;
    }
    return fail(in, error,
                "the LAZ chunk table is missing or damaged (offset " + std::to_string(table) +
                    ", file size " + std::to_string(in.size) + ")");
  }
  const uint32_t n = get<uint32_t>(d + table + 4);
  const uint64_t data_bytes = uint64_t(table) - chunks_start;
  // Each chunk holds at least one point and its first point raw: a bound before allocating.
  // Every chunk takes at least one byte and all but an empty last one (as lazrs writes) at
  // least one point: a bound before allocating.
  if (n == 0 || n > h.count + 1 || n > data_bytes)
    return fail(in, error,
                "the LAZ chunk table declares " + std::to_string(n) + " chunks for " +
                    std::to_string(h.count) + " points in " + std::to_string(data_bytes) +
                    " bytes");
  laz::Decoder dec;
  dec.init(d + table + 8, in.size - size_t(table) - 8);
  laz::IntDecoder ic;
  ic.init(32, 2);
  f.chunks.resize(n);
  uint32_t prev_count = 0, prev_size = 0;
  uint64_t pos = chunks_start, total = 0;
  for (uint32_t i = 0; i < n; ++i) {
    Chunk& c = f.chunks[i];
    if (variable) {
      prev_count = uint32_t(ic.decode(dec, int32_t(prev_count), 0));
      c.points = prev_count;
    } else {
      c.points = std::min<uint64_t>(f.layout.chunk_size, h.count - std::min(h.count, total));
    }
    prev_size = uint32_t(ic.decode(dec, int32_t(prev_size), 1));
    c.begin = size_t(pos);
    c.size = prev_size;
    pos += prev_size;
    total += c.points;
    if (dec.overrun() || pos > uint64_t(table) || (c.points == 0 && i + 1 < n))
      return fail(in, error, "the LAZ chunk table is damaged (chunk " + std::to_string(i) + ")");
  }
  if (total != h.count)
    return fail(in, error,
                "the LAZ chunk table holds " + std::to_string(total) + " points, the header " +
                    std::to_string(h.count));
  return true;
}

bool open_laz(const Input& in, LazFile& f, std::string* error) {
  if (!parse_las_header(in, f.h, error)) return false;
  if (f.h.count == 0) return fail(in, error, "the file holds no points");
  if (!find_layout(in, f.h, f.layout, error)) return false;
  if (f.layout.record_length != f.h.record_length)
    return fail(in, error,
                "the LASzip items make " + std::to_string(f.layout.record_length) +
                    "-byte records, the header says " + std::to_string(f.h.record_length));
  return read_chunk_table(in, f, error);
}

std::string chunk_error(size_t i, const std::string& why) {
  return "LAZ chunk " + std::to_string(i) + ": " + why;
}

}  // namespace

bool read_laz(const Input& in, Output& out, std::string* error) {
  LazFile f;
  if (!open_laz(in, f, error)) return false;
  const LasHeader& h = f.h;
  const size_t rec = h.record_length;
  // The origin from the first point of every chunk (stored raw), a sample spread over the file.
  Bounds sample;
  for (const Chunk& c : f.chunks) {
    if (c.size < rec || c.points == 0) continue;
    const uint8_t* r = in.data + c.begin;
    sample.extend({double(get<int32_t>(r)) * h.scale[0] + h.origin[0],
                   double(get<int32_t>(r + 4)) * h.scale[1] + h.origin[1],
                   double(get<int32_t>(r + 8)) * h.scale[2] + h.origin[2]});
  }
  const uint16_t rgb = kLasRgbOffset[h.format];
  const bool extended = h.format >= 6;
  Attributes attrs{rgb != 0, true, true};
  PointSink sink(in, out, attrs, choose_origin(sample));
  std::vector<size_t> caps(f.chunks.size());
  for (size_t i = 0; i < caps.size(); ++i) caps[i] = size_t(f.chunks[i].points);
  // Colors follow the LAS reader's rule (16-bit, unless no channel of the file exceeds 255):
  // a chunk keeps its 16-bit colors in a scratch buffer until it knows its own largest channel,
  // then writes high bytes, or low bytes when that is at most 255 (`low[i]`: fixed up below if
  // another chunk turns out to exceed 255).
  std::vector<uint8_t> low(f.chunks.size(), 0);
  std::vector<size_t> first(f.chunks.size(), 0);
  std::atomic<uint32_t> max_channel{0};
  const bool ok = sink.run(
      caps,
      [&](size_t b, BlockWriter& w, std::string& err) {
        const Chunk& c = f.chunks[b];
        if (c.points == 0) return true;
        laz::ChunkReader reader(f.layout);
        std::string why;
        if (!reader.start(in.data + c.begin, c.size, c.points, &why)) {
          err = chunk_error(b, why);
          return false;
        }
        thread_local std::vector<uint16_t> colors;
        if (rgb) colors.resize(size_t(c.points) * 3);
        uint8_t buf[256 * 256];  // a record is at most 65535 bytes
        uint32_t mx = 0;
        first[b] = w.begin;
        for (uint64_t i = 0; i < c.points; ++i) {
          reader.next(buf);
          RawPoint p;
          p.x = double(get<int32_t>(buf)) * h.scale[0] + h.origin[0];
          p.y = double(get<int32_t>(buf + 4)) * h.scale[1] + h.origin[1];
          p.z = double(get<int32_t>(buf + 8)) * h.scale[2] + h.origin[2];
          p.intensity = float(get<uint16_t>(buf + 12));
          p.classification = extended ? buf[16] : uint8_t(buf[15] & 0x1F);
          p.color = rgba(255, 255, 255);
          if (rgb) {
            uint16_t* col = &colors[size_t(i) * 3];
            std::memcpy(col, buf + rgb, 6);
            mx = std::max<uint32_t>(mx, std::max(col[0], std::max(col[1], col[2])));
          }
          w(p);
        }
        if (reader.overrun()) {
          err = chunk_error(b, "truncated or corrupt compressed data");
          return false;
        }
        if (rgb) {
          const int shift = mx > 255 ? 8 : 0;
          low[b] = mx <= 255;
          for (size_t i = 0; i < w.n; ++i) {
            const uint16_t* col = &colors[i * 3];
            w.col[w.begin + i] =
                rgba(uint8_t(col[0] >> shift), uint8_t(col[1] >> shift), uint8_t(col[2] >> shift));
          }
          uint32_t cur = max_channel.load();
          while (mx > cur && !max_channel.compare_exchange_weak(cur, mx)) {
          }
        }
        return true;
      },
      error);
  if (!ok) return false;
  if (rgb && max_channel.load() > 255) {
    // Chunks whose channels all stayed <= 255 wrote low bytes; as 16-bit colors their high
    // bytes are 0. Coordinates are finite, so no point was dropped and chunk b starts at
    // first[b].
    PointCloud& cl = *out.cloud;
    for (size_t b = 0; b < f.chunks.size(); ++b)
      if (low[b])
        for (size_t i = 0; i < f.chunks[b].points; ++i) cl.colors[first[b] + i] = rgba(0, 0, 0);
  }
  out.info->format = "LAZ";
  const laz::Layout& lo = f.layout;
  out.info->version = std::to_string(h.major) + "." + std::to_string(h.minor) + " format " +
                      std::to_string(h.format) + ", LASzip " + std::to_string(lo.version_major) +
                      "." + std::to_string(lo.version_minor) + "r" +
                      std::to_string(lo.version_revision) +
                      (lo.compressor == 3 ? " layered" : " point-wise") + ", " +
                      std::to_string(f.chunks.size()) + " chunks" +
                      (lo.chunk_size == 0xFFFFFFFFu ? std::string(" (variable)")
                                                    : " of " + std::to_string(lo.chunk_size));
  finish(in, out, sink.bounds, attrs);
  return true;
}

bool laz_records(const Input& in, std::vector<uint8_t>& records, size_t* record_length,
                 std::string* error) {
  LazFile f;
  if (!open_laz(in, f, error)) return false;
  const size_t rec = f.h.record_length;
  if (record_length) *record_length = rec;
  records.assign(size_t(f.h.count) * rec, 0);
  size_t at = 0;
  for (size_t b = 0; b < f.chunks.size(); ++b) {
    const Chunk& c = f.chunks[b];
    if (c.points == 0) continue;
    laz::ChunkReader reader(f.layout);
    std::string why;
    if (!reader.start(in.data + c.begin, c.size, c.points, &why))
      return fail(in, error, chunk_error(b, why));
    for (uint64_t i = 0; i < c.points; ++i, at += rec) reader.next(records.data() + at);
    if (reader.overrun())
      return fail(in, error, chunk_error(b, "truncated or corrupt compressed data"));
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

}  // namespace pr
