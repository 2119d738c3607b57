// IO benchmark: generates a 1 GB binary PLY, a 1 GB LAS and a 200 MB ASCII XYZ with the project's
// own writers, then loads each several times with the page cache warm and prints MB/s and
// points/s (best of the runs).
//   io_bench [dir] [scale]   (scale 1.0 = the sizes above; files are kept in dir for reuse)
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "engine/io.h"
#include "engine/parallel.h"

namespace fs = std::filesystem;

int main(int argc, char** argv) {
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
