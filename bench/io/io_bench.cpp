// IO benchmark: generates a 1 GB binary PLY, a 1 GB LAS and a 200 MB ASCII XYZ with the project's
// own writers, then loads each several times with the page cache warm and prints MB/s and
// points/s (best of the runs).
//   io_bench [dir] [scale]   (scale 1.0 = the sizes above; files are kept in dir for reuse)
// E57 against pye57 (libE57Format) on one file, which tests/io/compare_e57.py --write makes:
//   io_bench --e57 FILE [PYTHON]   (PYTHON: one with pye57; it reads every scan, best of 3)
// LAZ against laspy with lazrs' parallel decoder and with LASzip, on the same files in one run:
//   io_bench --laz PYTHON [--generate DIR] [--points N] [--runs N] [--script FILE] [PATH...]
// PYTHON: one with numpy, laspy, lazrs and laszip. PATH: a .laz file or a folder (its *.laz
// files, sorted). --generate first writes the generated surveys (formats 1, 3, 6, 7 and 8 with
// extra bytes, N points each, default 20 M; laz_bench.py with laspy + lazrs) into DIR, or keeps
// the ones already there, and times them after the PATHs. Each reader's time is the best of N
// rounds (default 3) in which the three take turns, so that the load of the machine meets them
// alike; within a round a reader runs again while its runs took under 0.5 / N s together.
// --script: laz_bench.py, by default the one in the source tree, else the one beside this
// program.
// The LAZ decoder alone, on one thread, every field (decompress_laz(), best of 3 in wall time and
// in the thread's CPU time), for comparing decoder variants:
//   io_bench --laz-decode FILE...
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/io/io.h"
#include "engine/parallel.h"

namespace fs = std::filesystem;

namespace {

/// Best of `runs` loads with our reader (more while they took under `min_seconds` together, at
/// most 100), in seconds; 0 on failure.
double best_load(const std::string& path, uint64_t& points, std::string* version = nullptr,
                 int runs = 3, double min_seconds = 0.0) {
  double best = 1e30;
  double total = 0.0;
  for (int run = 0; run < runs || (total < min_seconds && run < 100); ++run) {
    pr::PointCloud cloud;
    pr::FileInfo info;
    std::string err;
    const auto t0 = std::chrono::steady_clock::now();
    if (!pr::load_point_cloud(path, cloud, &info, &err)) {
      std::fprintf(stderr, "%s\n", err.c_str());
      return 0.0;
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    best = std::min(best, s);
    total += s;
    points = info.points;
    if (version) *version = info.version;
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

/// `s` quoted for /bin/sh.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

/// One reader's best time on one file.
struct LazResult {
  bool ok = false;
  uint64_t points = 0;
  double seconds = 0.0;
  std::string format;  ///< "6", "8 + 6 B extra"; empty where the reader failed
  std::string message;
};

struct LazFile {
  std::string path;
  double mb = 0.0;
  LazResult ours, lazrs, laszip;
};

std::string point_format(int format, int extra) {
  std::string f = std::to_string(format);
  if (extra > 0) f += " + " + std::to_string(extra) + " B extra";
  return f;
}

/// laspy's two readers on `path`, through laz_bench.py's `time` (one line a reader).
void time_laspy(const std::string& python, const std::string& script, LazFile& f, int runs,
                double min_seconds) {
  const std::string cmd = shell_quote(python) + " " + shell_quote(script) + " time " +
                          shell_quote(f.path) + " --runs " + std::to_string(runs) +
                          " --min-seconds " + std::to_string(min_seconds);
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return;
  char line[512];
  while (std::fgets(line, sizeof line, p)) {
    char name[32] = {}, status[8] = {};
    int used = 0;
    if (std::sscanf(line, "%31s %7s %n", name, status, &used) < 2) continue;
    LazResult* r = std::strcmp(name, "lazrs-parallel") == 0 ? &f.lazrs
                   : std::strcmp(name, "laszip") == 0       ? &f.laszip
                                                            : nullptr;
    if (!r) continue;
    unsigned long long n = 0;
    int format = 0, extra = 0;
    if (std::strcmp(status, "ok") == 0 &&
        std::sscanf(line + used, "%llu %lf %d %d", &n, &r->seconds, &format, &extra) == 4) {
      r->ok = r->seconds > 0.0;
      r->points = n;
      r->format = point_format(format, extra);
    } else {
      r->message = line + used;
      while (!r->message.empty() && r->message.back() == '\n') r->message.pop_back();
    }
  }
  if (pclose(p) != 0) std::fprintf(stderr, "io_bench: %s failed\n", cmd.c_str());
}

/// Keeps the faster of `best` and `r`; a failure only where nothing succeeded.
void keep_best(LazResult& best, const LazResult& r) {
  if (r.ok ? !best.ok || r.seconds < best.seconds : !best.ok) best = r;
}

/// "M points/s (MB/s)" of one result, or why there is none.
std::string speed(const LazResult& r, double mb) {
  if (!r.ok) return r.message.empty() ? "failed" : "failed: " + r.message;
  char b[64];
  std::snprintf(b, sizeof b, "%.1f (%.0f)", double(r.points) / r.seconds / 1e6, mb / r.seconds);
  return b;
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return in ? a + " " + b + " " + c : "unknown";
}

/// bench_laz's command line: laspy's python, laz_bench.py, the files (and directories of them)
/// and what laz_bench.py generates first.
struct LazArgs {
  std::string python, script, generate_dir, points = "20000000";
  int runs = 3;
  std::vector<std::string> paths;
};

/// The .laz files of directory `dir`, by name.
std::vector<std::string> laz_files_in(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.is_regular_file() && e.path().extension() == ".laz") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  return files;
}

/// 0, or the exit code after a message.
int parse_laz_args(int argc, char** argv, LazArgs& o) {
  o.python = argv[2];
  o.script = PR_LAZ_BENCH_SCRIPT;
  if (!fs::exists(o.script)) o.script = (fs::path(argv[0]).parent_path() / "laz_bench.py").string();
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--generate" && more) {
      o.generate_dir = argv[++i];
    } else if (a == "--points" && more) {
      o.points = argv[++i];
    } else if (a == "--runs" && more) {
      o.runs = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--script" && more) {
      o.script = argv[++i];
    } else if (a.starts_with("--")) {
      std::fprintf(stderr, "io_bench: unknown option %s\n", a.c_str());
      return 2;
    } else if (fs::is_directory(a)) {
      const std::vector<std::string> files = laz_files_in(a);
      o.paths.insert(o.paths.end(), files.begin(), files.end());
    } else {
      o.paths.push_back(a);
    }
  }
  if (!fs::exists(o.script)) {
    std::fprintf(stderr, "io_bench: no laz_bench.py at %s (give --script)\n", o.script.c_str());
    return 1;
  }
  return 0;
}

/// laz_bench.py generates the files of --generate; their paths join `o.paths`. False after a
/// message when it fails.
bool generate_laz(LazArgs& o) {
  // laz_bench.py prints each file's path when it is there; its progress goes to stderr.
  const std::string cmd = shell_quote(o.python) + " " + shell_quote(o.script) + " generate " +
                          shell_quote(o.generate_dir) + " --points " + shell_quote(o.points);
  FILE* p = popen(cmd.c_str(), "r");
  char line[4096];
  while (p && std::fgets(line, sizeof line, p)) {
    std::string path = line;
    while (!path.empty() && (path.back() == '\n' || path.back() == '\r')) path.pop_back();
    if (!path.empty()) o.paths.push_back(path);
  }
  if (!p || pclose(p) != 0) {
    std::fprintf(stderr, "io_bench: %s failed\n", cmd.c_str());
    return false;
  }
  return true;
}

/// One file's best times of the three readers, taking turns for --runs rounds, and its rows of
/// the first table.
LazFile time_laz_file(const LazArgs& o, const std::string& path) {
  LazFile f;
  f.path = path;
  f.mb = double(fs::file_size(path)) / 1e6;
  std::string version;
  for (int round = 0; round < o.runs; ++round) {
    LazFile r;
    r.path = path;
    r.ours.seconds = best_load(path, r.ours.points, &version, 1, 0.5 / o.runs);
    r.ours.ok = r.ours.seconds > 0.0;
    r.ours.format = version;
    time_laspy(o.python, o.script, r, 1, 0.5 / o.runs);
    keep_best(f.ours, r.ours);
    keep_best(f.lazrs, r.lazrs);
    keep_best(f.laszip, r.laszip);
  }
  const std::string name = fs::path(path).filename().string();
  const std::string format = f.lazrs.ok ? f.lazrs.format : f.laszip.ok ? f.laszip.format : version;
  for (const auto& [reader, r] : {std::pair<const char*, const LazResult*>{"ours", &f.ours},
                                  {"laspy+lazrs-parallel", &f.lazrs},
                                  {"laspy+laszip", &f.laszip}}) {
    if (r->ok)
      std::printf("| %s | %s | %llu | %.2f | %s | %.4f | %.1f | %.0f |\n", name.c_str(),
                  format.c_str(), (unsigned long long)r->points, f.mb, reader, r->seconds,
                  double(r->points) / r->seconds / 1e6, f.mb / r->seconds);
    else
      std::printf("| %s | %s | | %.2f | %s | %s | | |\n", name.c_str(), format.c_str(), f.mb,
                  reader, r->message.empty() ? "failed" : r->message.c_str());
  }
  if (f.ours.ok && f.lazrs.ok && f.ours.points != f.lazrs.points)
    std::fprintf(stderr, "io_bench: %s: ours %llu points, laspy %llu\n", name.c_str(),
                 (unsigned long long)f.ours.points, (unsigned long long)f.lazrs.points);
  std::fflush(stdout);
  return f;
}

// The same numbers one row a file, with ours over lazrs' parallel decoder.
void print_laz_summary(const std::vector<LazFile>& files) {
  std::printf(
      "\n| file | format | points | MB | ours M points/s (MB/s) | laspy+lazrs parallel | "
      "laspy+laszip | ours / lazrs parallel |\n|---|---|---|---|---|---|---|---|\n");
  for (const LazFile& f : files) {
    const std::string format = f.lazrs.ok    ? f.lazrs.format
                               : f.laszip.ok ? f.laszip.format
                                             : f.ours.format;
    std::string ratio = "";
    if (f.ours.ok && f.lazrs.ok) {
      char b[32];
      std::snprintf(b, sizeof b, "%.2f", f.lazrs.seconds / f.ours.seconds);
      ratio = b;
    }
    std::printf("| %s | %s | %llu | %.2f | %s | %s | %s | %s |\n",
                fs::path(f.path).filename().c_str(), format.c_str(),
                (unsigned long long)(f.ours.ok ? f.ours.points : f.lazrs.points), f.mb,
                speed(f.ours, f.mb).c_str(), speed(f.lazrs, f.mb).c_str(),
                speed(f.laszip, f.mb).c_str(), ratio.c_str());
  }
}

int bench_laz(int argc, char** argv) {
  LazArgs o;
  if (const int rc = parse_laz_args(argc, argv, o); rc != 0) return rc;
  if (!o.generate_dir.empty() && !generate_laz(o)) return 1;
  std::printf(
      "LAZ readers, best of %d rounds taking turns, page cache warm: ours with "
      "%u threads, lazrs-parallel with every core, laszip with one; load average %s\n\n",
      o.runs, pr::default_threads(), load_average().c_str());
  std::printf(
      "| file | format | points | MB | reader | best s | M points/s | MB/s |\n"
      "|---|---|---|---|---|---|---|---|\n");
  std::fflush(stdout);
  std::vector<LazFile> files;
  for (const std::string& path : o.paths) files.push_back(time_laz_file(o, path));
  print_laz_summary(files);
  std::printf("\nload average at the end %s\n", load_average().c_str());
  return 0;
}

}  // namespace

/// M points/s of decompress_laz() on each file: one thread, every field, best of 3.
/// This thread's CPU time in seconds: on a shared machine, what the decoder costs whatever else
/// runs.
double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

int bench_laz_decode(int argc, char** argv) {
  for (int i = 2; i < argc; ++i) {
    double best = 1e30, best_cpu = 1e30;
    size_t points = 0;
    for (int run = 0; run < 3; ++run) {
      std::vector<uint8_t> records;
      size_t record_length = 0;
      std::string error;
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = thread_cpu_seconds();
      if (!pr::decompress_laz(argv[i], records, &record_length, &error)) {
        std::fprintf(stderr, "io_bench: %s\n", error.c_str());
        return 1;
      }
      best_cpu = std::min(best_cpu, thread_cpu_seconds() - c0);
      best = std::min(best,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      points = record_length ? records.size() / record_length : 0;
    }
    std::printf(
        "%s: %zu points, %.2f M points/s, %.2f M points/s of CPU time (one thread, every "
        "field)\n",
        argv[i], points, double(points) / best / 1e6, double(points) / best_cpu / 1e6);
  }
  return 0;
}

int main(int argc, char** argv) {
  if (argc > 2 && std::string(argv[1]) == "--laz-decode") return bench_laz_decode(argc, argv);
  if (argc > 2 && std::string(argv[1]) == "--e57")
    return bench_e57(argv[2], argc > 3 ? argv[3] : nullptr);
  if (argc > 2 && std::string(argv[1]) == "--laz") return bench_laz(argc, argv);
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
