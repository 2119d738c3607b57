// IO benchmark: generates a 1 GB binary PLY, a 1 GB LAS and a 200 MB ASCII XYZ with the project's
// own writers, then loads each several times with the page cache warm and prints MB/s and
// points/s (best of the runs).
//   io_bench [dir] [scale]   (scale 1.0 = the sizes above; files are kept in dir for reuse)
// E57 against pye57 (libE57Format) on one file, which tests/io/compare_e57.py --write makes:
//   io_bench --e57 FILE [PYTHON]   (PYTHON: one with pye57; it reads every scan, best of 3)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "engine/io.h"
#include "engine/parallel.h"

namespace fs = std::filesystem;

namespace {

/// Best of 3 loads with our reader, in seconds; 0 on failure.
double best_load(const std::string& path, uint64_t& points) {
  double best = 1e30;
  for (int run = 0; run < 3; ++run) {
    pr::PointCloud cloud;
    pr::FileInfo info;
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    if (!pr::load_point_cloud(path, cloud, &info, &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 0.0;
    }
    best = std::min(best,
                    std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    points = info.points;
  }
  return best;
}

int bench_e57(const std::string& path, const char* python) {
  uint64_t points = 0;
  const double ours = best_load(path, points);
  if (ours == 0.0) return 1;
  const double mb = double(fs::file_size(path)) / 1e6;
  std::printf("| reader | size MB | points | best load s | Mpoints/s |\n|---|---|---|---|---|\n");
  std::printf("| pointraster E57 (%u threads) | %.0f | %llu | %.3f | %.1f |\n",
              pr::default_threads(), mb, (unsigned long long)points, ours,
              double(points) / ours / 1e6);
  if (!python) return 0;
  // pye57 reads every scan with its pose applied, intensity and colors where present: the same
  // work as ours.
  const std::string cmd = std::string(python) +
                          " -c \"import sys,time,pye57\n"
                          "best=1e30\n"
                          "for r in range(3):\n"
                          " t=time.perf_counter();e=pye57.E57(sys.argv[1]);n=0\n"
                          " for k in range(e.scan_count):\n"
                          "  f=e.get_header(k).point_fields\n"
                          "  d=e.read_scan(k,intensity='intensity' in f,colors='colorRed' in f,"
                          "ignore_missing_fields=True);n+=len(d['cartesianX'])\n"
                          " best=min(best,time.perf_counter()-t)\n"
                          "print(n,best)\" '" +
                          path + "'";
  FILE* p = popen(cmd.c_str(), "r");
  unsigned long long n = 0;
  double s = 0.0;
  if (!p || std::fscanf(p, "%llu %lf", &n, &s) != 2 || s <= 0.0) {
    if (p) pclose(p);
    std::fprintf(stderr, "io_bench: pye57 did not run (%s)\n", cmd.c_str());
    return 1;
  }
  pclose(p);
  std::printf("| pye57 %s | %.0f | %llu | %.3f | %.1f |\n", "(libE57Format)", mb, n, s,
              double(n) / s / 1e6);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--e57")
    return bench_e57(argv[2], argc > 3 ? argv[3] : nullptr);
  const std::string dir = argc > 1 ? argv[1] : (fs::temp_directory_path() / "pr_io_bench").string();
  const double scale = argc > 2 ? std::atof(argv[2]) : 1.0;
  fs::create_directories(dir);
  struct Case {
    const char* name;
    const char* file;
    double bytes;
    double bytes_per_point;
  } cases[] = {
      {"PLY binary LE (xyz f32 + rgb u8)", "bench.ply", 1e9, 15.0},
      {"LAS 1.2 format 3", "bench.las", 1e9, 34.0},
      {"XYZ ascii (x y z r g b)", "bench.xyz", 2e8, 36.0},
  };
  std::printf(
      "| file | size MB | points | best load s | MB/s | Mpoints/s |\n|---|---|---|---|---|---|\n");
  for (const Case& c : cases) {
    const std::string path = dir + "/" + c.file;
    const size_t n = size_t(c.bytes * scale / c.bytes_per_point);
    if (!fs::exists(path) ||
        std::abs(double(fs::file_size(path)) - c.bytes * scale) > 0.05 * c.bytes * scale) {
      pr::PointCloud cloud;
      cloud.origin = {500000.0, 4500000.0, 100.0};
      cloud.resize(n);
      pr::parallel_for(n, [&](size_t b, size_t e) {
        std::mt19937 rng{unsigned(b)};
        std::uniform_real_distribution<float> u(-1000.0f, 1000.0f);
        for (size_t i = b; i < e; ++i) {
          cloud.positions[i] = {u(rng), u(rng), u(rng) * 0.05f};
          cloud.colors[i] = pr::rgba(uint8_t(i), uint8_t(i >> 8), uint8_t(i >> 16));
        }
      });
      std::string err;
      bool ok = false;
      const std::string f = c.file;
      if (f.ends_with(".ply")) {
        cloud.origin = glm::dvec3(0.0);  // float coordinates: 15 bytes per point
        ok = pr::save_ply(path, cloud, pr::PlyEncoding::kBinaryLittleEndian, &err);
      } else if (f.ends_with(".las")) {
        ok = pr::save_las(path, cloud, 3, &err);
      } else {
        ok = pr::save_xyz(path, cloud, ' ', &err);
      }
      if (!ok) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
      }
    }
    const double mb = double(fs::file_size(path)) / 1e6;
    double best = 1e30;
    uint64_t points = 0;
    for (int run = 0; run < 3; ++run) {
      pr::PointCloud cloud;
      pr::FileInfo info;
      std::string err;
      const auto t0 = std::chrono::steady_clock::now();
      if (!pr::load_point_cloud(path, cloud, &info, &err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
      }
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      best = std::min(best, s);
      points = info.points;
    }
    std::printf("| %s | %.0f | %llu | %.3f | %.0f | %.1f |\n", c.name, mb,
                (unsigned long long)points, best, mb / best, double(points) / best / 1e6);
    std::fflush(stdout);
  }
  return 0;
}
