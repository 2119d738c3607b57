// The COPC octree build alone (build_copc_nodes): generated terrain records (point format 6,
// made on the fly by the reading threads, so the records the build holds are its own), a sink that
// only counts, and the time of binning and building, the nodes, and the peak RSS.
//
//   copc_build_bench --points 2e7 --memory-ratio 0.25 --threads 2 --temp /tmp
//
// --memory-ratio sets the build's memory to that fraction of the records' bytes (0: no limit);
// --leaf the largest node that is not sampled; --outlier M puts one point M metres east of the
// terrain (a cube that much wider: the terrain's buckets are split level by level).
#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>

#include "copc_build.h"

namespace {

using namespace pr;
using namespace pr::io;

constexpr size_t kBlock = 50000;

/// Terrain over 2 km x 2 km at 1 mm: a few hills and noise, records made block by block from the
/// block's index (the same records whatever the threads).
class TerrainSource : public RecordSource {
 public:
  /// `outlier` > 0: the first record lies that far east, making the cube that much wider.
  TerrainSource(uint64_t points, double outlier) : outlier_(outlier) {
    spec_.record_length = 30;
    spec_.scale = glm::dvec3(0.001);
    spec_.offset = glm::dvec3(500000.0, 4000000.0, 0.0);
    spec_.points = points;
    spec_.bounds.extend(spec_.offset + glm::dvec3(0.0, 0.0, 0.0));
    spec_.bounds.extend(spec_.offset + glm::dvec3(2000.0 + outlier, 2000.0, 200.0));
  }
  const RecordSpec& spec() const override { return spec_; }
  bool next(std::vector<uint8_t>& out) override {
    const uint64_t block = next_block_++;
    const uint64_t begin = block * kBlock;
    if (begin >= spec_.points) return false;
    const size_t n = size_t(std::min<uint64_t>(kBlock, spec_.points - begin));
    out.resize(n * 30);
    std::mt19937_64 rng(block * 0x9E3779B97F4A7C15ull + 1);
    std::uniform_real_distribution<double> u(0.0, 2000.0);
    for (size_t i = 0; i < n; ++i) {
      const double x = u(rng), y = u(rng);
      const double z =
          100.0 + 60.0 * std::sin(x * 0.004) * std::cos(y * 0.003) + double(rng() % 1000) * 0.001;
      const int32_t xyz[3] = {int32_t(std::lround(x * 1000.0)), int32_t(std::lround(y * 1000.0)),
                              int32_t(std::lround(z * 1000.0))};
      uint8_t* r = &out[i * 30];
      std::memcpy(r, xyz, 12);
      const uint64_t rest[3] = {rng(), rng(), begin + i};
      std::memcpy(r + 12, rest, 18);
    }
    if (begin == 0 && outlier_ > 0.0) {
      const int32_t x = int32_t(std::lround((2000.0 + outlier_) * 1000.0));
      std::memcpy(out.data(), &x, 4);
    }
    return true;
  }
  std::string error() const override { return {}; }

 private:
  RecordSpec spec_;
  double outlier_;
  std::atomic<uint64_t> next_block_{0};
};

class CountSink : public NodeSink {
 public:
  bool node(const CopcKey& key, const uint8_t*, uint64_t count) override {
    std::lock_guard<std::mutex> lock(m_);
    points += count;
    ++nodes;
    levels = std::max(levels, key.level + 1);
    largest = std::max(largest, count);
    return true;
  }
  uint64_t points = 0, nodes = 0, largest = 0;
  int levels = 0;

 private:
  std::mutex m_;
};

double arg(int argc, char** argv, const char* name, double fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return std::atof(argv[i + 1]);
  return fallback;
}

std::string arg_text(int argc, char** argv, const char* name, const char* fallback) {
  for (int i = 1; i + 1 < argc; ++i)
    if (std::strcmp(argv[i], name) == 0) return argv[i + 1];
  return fallback;
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t points = uint64_t(arg(argc, argv, "--points", 2e7));
  const double ratio = arg(argc, argv, "--memory-ratio", 0.25);
  TerrainSource source(points, arg(argc, argv, "--outlier", 0.0));
  ConvertProgress progress;
  BuildOptions o;
  o.temp_dir = arg_text(argc, argv, "--temp", "/tmp");
  o.threads = unsigned(arg(argc, argv, "--threads", double(std::thread::hardware_concurrency())));
  o.memory_bytes = uint64_t(ratio * double(points) * 30.0);
  o.progress = &progress;
  BuildTuning tuning;
  tuning.leaf_points = uint64_t(arg(argc, argv, "--leaf", 100000));
  CountSink sink;
  const OctreeCube cube = octree_cube(source.spec().bounds, 0.001);
  const auto t0 = std::chrono::steady_clock::now();
  std::atomic<bool> done{false};
  double bin_s = 0.0;
  std::thread watch([&] {
    while (!done && progress.stage.load() != ConvertProgress::kBuild)
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    bin_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  });
  std::string error;
  const bool ok = build_copc_nodes(source, cube, o, tuning, sink, &error);
  done = true;
  watch.join();
  const double total_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  if (!ok) {
    std::fprintf(stderr, "copc_build_bench: %s\n", error.c_str());
    return 1;
  }
  std::printf("points %llu (%.0f MB of records), memory %.0f MB, %u threads, leaf %llu\n",
              (unsigned long long)points, double(points) * 30.0 / 1e6, double(o.memory_bytes) / 1e6,
              o.threads, (unsigned long long)tuning.leaf_points);
  std::printf("binning %.2f s, building %.2f s, total %.2f s (%.2f M points/s)\n", bin_s,
              total_s - bin_s, total_s, double(points) / total_s / 1e6);
  std::printf("nodes %llu, levels %d, largest node %llu, points out %llu\n",
              (unsigned long long)sink.nodes, sink.levels, (unsigned long long)sink.largest,
              (unsigned long long)sink.points);
  std::printf("peak RSS %.0f MB\n", double(ru.ru_maxrss) / 1024.0);
  return sink.points == points ? 0 : 1;
}
