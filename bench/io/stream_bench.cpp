// Streaming benchmark: a COPC file streamed as headless mode streams it (engine/io/stream.h),
// side by side in one run, from
//   - the local path,
//   - nginx on loopback (tests/common/nginx_server.h),
//   - nginx behind a proxy that adds latency to every answer (tests/common/fault_proxy.h),
// each: the time to the first image (the first update with points in the pool) and to converge,
// the points and bytes read, points/s and MB/s; beside the decoder's own points/s on the same
// nodes (every node of the file, CopcFile::read_node on as many threads, from the local path).
// Every run starts a fresh StreamingScene; the page cache is warm after the first.
//   stream_bench [--width W] [--height H] [--budget N] [--sse PX] [--threads N] [--latency MS]
//                [--runs R] FILE
// --budget 0 (the default) takes every point of the file and --sse 0 every node, so converged
// means every node read and decoded. The memory walk flies a low camera over the survey with a
// small cache and point budget, converging at each stop, and prints the peak RSS (VmHWM):
//   stream_bench --walk STOPS [--cache MB] [--budget N] [--sse PX] FILE
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/camera.h"
#include "engine/frame_stats.h"
#include "engine/io/copc.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/stream.h"
#include "fault_proxy.h"
#include "nginx_server.h"
#include "startup.h"
#include "streaming.h"

namespace fs = std::filesystem;

namespace {

struct Args {
  int width = 1920, height = 1080;
  uint64_t budget = 0;  // 0: the file's points
  double sse = 0.0;
  unsigned threads = 0;
  int latency_ms = 20;
  int runs = 3;
  int walk = 0;
  uint64_t cache = uint64_t{64} << 20;
  std::string file;
};

bool parse(int argc, char** argv, Args& a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> const char* { return i + 1 < argc ? argv[++i] : ""; };
    if (k == "--width")
      a.width = std::atoi(next());
    else if (k == "--height")
      a.height = std::atoi(next());
    else if (k == "--budget")
      a.budget = uint64_t(std::atof(next()));
    else if (k == "--sse")
      a.sse = std::atof(next());
    else if (k == "--threads")
      a.threads = unsigned(std::atoi(next()));
    else if (k == "--latency")
      a.latency_ms = std::atoi(next());
    else if (k == "--runs")
      a.runs = std::max(1, std::atoi(next()));
    else if (k == "--walk")
      a.walk = std::atoi(next());
    else if (k == "--cache")
      a.cache = uint64_t(std::atof(next()) * 1048576.0);
    else if (k.rfind("--", 0) == 0)
      return false;
    else
      a.file = k;
  }
  return !a.file.empty();
}

/// The peak resident memory of this process (VmHWM), in MB.
double peak_rss_mb() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
  return 0.0;
}

struct Result {
  double first_ms = -1, converged_ms = -1;
  uint64_t points = 0, nodes = 0, bytes = 0;
  bool ok = false;
};

/// One streamed run of `input` for the camera that frames the survey (as headless starts).
Result stream_once(const Args& a, const std::string& input, uint64_t file_points) {
  pr::StreamOptions so;
  so.point_budget = a.budget ? a.budget : file_points + 1;
  so.sse_px = a.sse;
  so.cache_bytes = uint64_t{8} << 30;
  so.threads = a.threads;
  Result r;
  pr::Stopwatch clock;
  pr::StreamingScene scene(so);
  std::string why;
  if (!scene.open({input}, &why)) {
    std::fprintf(stderr, "stream_bench: %s\n", why.c_str());
    return r;
  }
  pr::Options o;
  const pr::Camera cam =
      pr::stream_camera(o, scene.info().bounds, double(a.width) / double(a.height));
  const pr::LodView view = pr::lod_view(cam, a.width, a.height);
  while (clock.ms() < 600'000.0) {
    scene.update(view);
    const pr::StreamStats st = scene.stats();
    if (r.first_ms < 0 && st.points_drawn > 0) r.first_ms = clock.ms();
    if (st.converged) {
      r.converged_ms = clock.ms();
      r.points = st.points_drawn;
      r.nodes = st.nodes_drawn;
      r.bytes = st.bytes_read;
      r.ok = true;
      break;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(500));
  }
  for (const std::string& m : scene.take_messages()) std::fprintf(stderr, "  %s\n", m.c_str());
  return r;
}

/// Every node of the file (every hierarchy page read), for the decoder's own rate.
std::vector<pr::CopcEntry> all_nodes(const pr::CopcFile& f) {
  std::vector<pr::CopcEntry> nodes, page;
  std::vector<pr::CopcPage> pages = {f.root_page()};
  std::string why;
  while (!pages.empty()) {
    const pr::CopcPage p = pages.back();
    pages.pop_back();
    page.clear();
    if (!f.read_page(p, page, nullptr, &why)) break;
    for (const pr::CopcEntry& e : page) {
      if (e.is_page())
        pages.push_back({e.offset, uint64_t(e.byte_size)});
      else if (e.point_count > 0)
        nodes.push_back(e);
    }
  }
  return nodes;
}

/// The decoder alone: every node decoded on `threads` threads; points/s, best of `runs`.
double decoder_rate(const Args& a, uint64_t* points) {
  std::string why;
  auto f = pr::CopcFile::open(pr::open_byte_source(a.file, &why), &why);
  if (!f) {
    std::fprintf(stderr, "stream_bench: %s\n", why.c_str());
    return 0.0;
  }
  const std::vector<pr::CopcEntry> nodes = all_nodes(*f);
  const unsigned threads =
      a.threads ? a.threads : std::max(4u, std::thread::hardware_concurrency());
  double best = 0.0;
  for (int run = 0; run < a.runs; ++run) {
    std::atomic<size_t> next{0};
    std::atomic<uint64_t> decoded{0};
    pr::Stopwatch sw;
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < threads; ++t)
      pool.emplace_back([&] {
        pr::PointCloud c;
        std::string err;
        for (size_t i; (i = next++) < nodes.size();)
          if (f->read_node(nodes[i], f->origin(), c, &err)) decoded += c.size();
      });
    for (auto& t : pool) t.join();
    best = std::max(best, double(decoded) / (sw.ms() * 1e-3));
    *points = decoded;
  }
  return best;
}

void print_row(const char* source, const Result& r) {
  if (!r.ok) {
    std::printf("%-26s failed\n", source);
    return;
  }
  const double s = r.converged_ms * 1e-3;
  std::printf("%-26s %10.1f %12.1f %10llu %8llu %12.2f %10.1f\n", source, r.first_ms,
              r.converged_ms, (unsigned long long)r.points, (unsigned long long)r.nodes,
              double(r.points) / s * 1e-6, double(r.bytes) / s * 1e-6);
}

/// Best (shortest converged) of `runs` runs.
Result best_of(const Args& a, const std::string& input, uint64_t file_points) {
  Result best;
  for (int i = 0; i < a.runs; ++i) {
    const Result r = stream_once(a, input, file_points);
    if (r.ok && (!best.ok || r.converged_ms < best.converged_ms)) best = r;
  }
  return best;
}

int run_table(const Args& a) {
  uint64_t decoded = 0;
  const double rate = decoder_rate(a, &decoded);
  std::printf("decoder alone: %llu points, %.2f M points/s (%u threads)\n",
              (unsigned long long)decoded, rate * 1e-6,
              a.threads ? a.threads : std::max(4u, std::thread::hardware_concurrency()));
  std::printf("%-26s %10s %12s %10s %8s %12s %10s\n", "source", "first_ms", "converged_ms",
              "points", "nodes", "Mpoints/s", "MB/s");
  const Result local = best_of(a, a.file, decoded);
  print_row("local path", local);
  const fs::path path = fs::absolute(a.file);
  pr::test::NginxServer nginx(path.parent_path().string());
  std::string why;
  if (!nginx.start(&why)) {
    std::fprintf(stderr, "stream_bench: nginx: %s\n", why.c_str());
    return 1;
  }
  const Result served = best_of(a, nginx.url(path.filename().string()), decoded);
  print_row("nginx on loopback", served);
  pr::test::FaultProxy proxy(nginx.port());
  if (!proxy.start(&why)) {
    std::fprintf(stderr, "stream_bench: proxy: %s\n", why.c_str());
    return 1;
  }
  pr::test::FaultProxy::Fault slow;
  slow.latency_ms = a.latency_ms;
  proxy.set_fault(slow);
  char label[64];
  std::snprintf(label, sizeof label, "nginx + %d ms latency", a.latency_ms);
  print_row(label, best_of(a, proxy.url(path.filename().string()), decoded));
  if (local.ok && served.ok && rate > 0)
    std::printf("ratios: streamed / decoder %.2f, nginx / local %.2f\n",
                double(local.points) / (local.converged_ms * 1e-3) / rate,
                local.converged_ms / served.converged_ms);
  return 0;
}

/// The memory walk: `stops` views along the survey's diagonal, low over it, each converged.
int run_walk(const Args& a) {
  pr::StreamOptions so;
  so.point_budget = a.budget ? a.budget : 2'000'000;
  so.sse_px = a.sse > 0 ? a.sse : 1.0;
  so.cache_bytes = a.cache;
  so.threads = a.threads;
  pr::StreamingScene scene(so);
  std::string why;
  if (!scene.open({a.file}, &why)) {
    std::fprintf(stderr, "stream_bench: %s\n", why.c_str());
    return 1;
  }
  const pr::Bounds b = scene.info().bounds;
  const glm::dvec3 size = b.size();
  pr::Camera cam;
  cam.up_axis = pr::UpAxis::kZ;
  cam.focus = 1.5;
  pr::Stopwatch clock;
  uint64_t converged = 0;
  for (int s = 0; s < a.walk; ++s) {
    const double t = (s + 0.5) / a.walk;
    cam.position = b.min + glm::dvec3(size.x * t, size.y * t, size.z + 0.05 * size.x);
    cam.look_at(cam.position + glm::dvec3(size.x * 0.1, size.y * 0.1, -0.05 * size.x));
    const bool ok = scene.wait_converged(pr::lod_view(cam, a.width, a.height), 120.0);
    converged += ok;
  }
  const pr::StreamStats st = scene.stats();
  std::printf(
      "walk: %d stops (%llu converged) in %.1f s, %.1f MB read, cache %.1f of %.1f MB, peak RSS "
      "%.1f MB (cache + %.1f MB)\n",
      a.walk, (unsigned long long)converged, clock.ms() * 1e-3, double(st.bytes_read) / 1e6,
      double(st.cache_bytes) / 1048576.0, double(a.cache) / 1048576.0, peak_rss_mb(),
      peak_rss_mb() - double(a.cache) / 1048576.0);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, a)) {
    std::fprintf(stderr,
                 "usage: stream_bench [--width W] [--height H] [--budget N] [--sse PX] "
                 "[--threads N] [--latency MS] [--runs R] FILE\n"
                 "       stream_bench --walk STOPS [--cache MB] [--budget N] [--sse PX] FILE\n");
    return 2;
  }
  return a.walk > 0 ? run_walk(a) : run_table(a);
}
