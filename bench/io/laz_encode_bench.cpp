// The LAZ encoder alone, one thread: the records of a LAZ file (decoded first) encoded again in
// chunks of 50,000 points (ChunkWriter, the file's point format and extra bytes), best of N runs
// in CPU time of the encoding thread, beside lazrs' single-threaded compressor
// (lazrs.compress_points(..., parallel=False), fixed chunks of 50,000 points) on the same records,
// timed the same way, when a Python with lazrs is given.
//   laz_encode_bench FILE [--python PYTHON] [--runs N] [--points N]
// --points keeps the first N records of the file. Prints points/s and the compressed size of
// each, and checks that ChunkReader decodes our chunks back to the records.
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/io/io.h"
#include "engine/io/laz/chunk.h"
#include "engine/io/laz/writer.h"

namespace {

namespace laz = pr::io::laz;
namespace fs = std::filesystem;

/// This thread's CPU time in seconds: on a shared machine, what the encoders cost whatever else
/// runs (lazrs is timed the same way, time.thread_time()).
double cpu_now() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// Point format and extra bytes from a LAS/LAZ header.
bool record_format(const std::string& path, size_t record_length, int& format, uint16_t& extra) {
  std::ifstream in(path, std::ios::binary);
  uint8_t h[107];
  if (!in.read(reinterpret_cast<char*>(h), sizeof h)) return false;
  format = h[104] & 0x3F;
  const size_t standard[] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  if (format > 10 || record_length < standard[format]) return false;
  extra = uint16_t(record_length - standard[format]);
  return true;
}

constexpr uint64_t kChunk = 50000;

/// Encodes every record in chunks of kChunk; returns the bytes written.
size_t encode_all(const laz::Layout& lo, const std::vector<uint8_t>& records,
                  std::vector<std::vector<uint8_t>>& chunks) {
  const size_t rec = lo.record_length, n = records.size() / rec;
  laz::ChunkWriter w(lo);
  size_t bytes = 0;
  chunks.resize((n + kChunk - 1) / kChunk);
  for (size_t c = 0; c < chunks.size(); ++c) {
    w.start();
    const size_t end = std::min<size_t>(n, (c + 1) * kChunk);
    for (size_t i = c * kChunk; i < end; ++i) w.add(&records[i * rec]);
    chunks[c].clear();
    w.finish(chunks[c]);
    bytes += chunks[c].size();
  }
  return bytes;
}

bool decodes_back(const laz::Layout& lo, const std::vector<uint8_t>& records,
                  const std::vector<std::vector<uint8_t>>& chunks) {
  const size_t rec = lo.record_length, n = records.size() / rec;
  laz::ChunkReader r(lo);
  std::vector<uint8_t> got(rec);
  size_t at = 0;
  for (const auto& c : chunks) {
    const uint64_t count = std::min<uint64_t>(kChunk, n - at);
    std::string why;
    if (!r.start(c.data(), c.size(), count, &why)) return false;
    for (uint64_t i = 0; i < count; ++i, ++at) {
      r.next(got.data());
      if (std::memcmp(got.data(), &records[at * rec], rec) != 0) return false;
    }
  }
  return at == n;
}

// lazrs on the records in `argv[1]` (format argv[2], extra bytes argv[3]), best of argv[4] runs.
const char* const kLazrs = R"(import sys, time, lazrs
data = open(sys.argv[1], "rb").read()
vlr = lazrs.LazVlr.new_for_compression(int(sys.argv[2]), int(sys.argv[3]))
best, size = 1e30, 0
for _ in range(int(sys.argv[4])):
    t = time.thread_time()
    out = lazrs.compress_points(vlr, data, False)
    best = min(best, time.thread_time() - t)
    size = len(out)
print(best, size)
)";

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: laz_encode_bench FILE [--python PYTHON] [--runs N] [--points N]\n");
    return 2;
  }
  std::string path = argv[1], python;
  int runs = 3;
  size_t max_points = 0;
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string a = argv[i];
    if (a == "--python") python = argv[i + 1];
    if (a == "--runs") runs = std::max(1, std::atoi(argv[i + 1]));
    if (a == "--points") max_points = size_t(std::atoll(argv[i + 1]));
  }
  std::vector<uint8_t> records;
  size_t rec = 0;
  std::string err;
  if (!pr::decompress_laz(path, records, &rec, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  int format;
  uint16_t extra;
  if (!record_format(path, rec, format, extra) || (format > 3 && format < 6) || format > 8) {
    std::fprintf(stderr, "%s: the encoder bench takes point formats 0-3 and 6-8\n", path.c_str());
    return 1;
  }
  if (max_points && records.size() > max_points * rec) records.resize(max_points * rec);
  const size_t n = records.size() / rec;
  const laz::Layout lo = laz::make_layout(format, extra, uint32_t(kChunk));
  std::vector<std::vector<uint8_t>> chunks;
  double best = 1e30;
  size_t bytes = 0;
  for (int r = 0; r < runs; ++r) {
    const double t0 = cpu_now();
    bytes = encode_all(lo, records, chunks);
    best = std::min(best, cpu_now() - t0);
  }
  if (!decodes_back(lo, records, chunks)) {
    std::fprintf(stderr, "%s: our chunks do not decode back to the records\n", path.c_str());
    return 1;
  }
  std::printf("%s: %zu points, format %d, %u extra bytes, chunks of %llu\n", path.c_str(), n,
              format, unsigned(extra), (unsigned long long)kChunk);
  std::printf("pointraster  %8.2f M points/s  %10zu bytes\n", double(n) / best / 1e6, bytes);
  if (python.empty()) return 0;
  const fs::path dir = fs::temp_directory_path() / "pr_laz_encode_bench";
  fs::create_directories(dir);
  const std::string raw = (dir / "records.bin").string(),
                    script = (dir / "lazrs_bench.py").string();
  std::ofstream(raw, std::ios::binary)
      .write(reinterpret_cast<const char*>(records.data()), std::streamsize(records.size()));
  std::ofstream(script) << kLazrs;
  const std::string cmd = python + " " + script + " " + raw + " " + std::to_string(format) + " " +
                          std::to_string(extra) + " " + std::to_string(runs);
  FILE* p = popen(cmd.c_str(), "r");
  double seconds = 0;
  size_t lazrs_bytes = 0;
  const bool ok = p && std::fscanf(p, "%lf %zu", &seconds, &lazrs_bytes) == 2;
  if (p) pclose(p);
  fs::remove_all(dir);
  if (!ok || seconds <= 0) {
    std::fprintf(stderr, "lazrs: %s failed\n", cmd.c_str());
    return 1;
  }
  std::printf("lazrs        %8.2f M points/s  %10zu bytes (with its chunk table)\n",
              double(n) / seconds / 1e6, lazrs_bytes);
  std::printf("ratio        %8.2f x\n", seconds / best);
  return 0;
}
