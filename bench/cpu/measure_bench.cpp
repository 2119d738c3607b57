// The 2.5D volume (engine/measure.h) of a pile of points: a cone of radius 40 m and height 12 m
// on flat ground, sampled on a jittered grid at UTM-size coordinates, the polygon a square
// around it, cells of 0.25 m (a 400 x 400 grid); per thread count (the pool's threads), through
// Google Benchmark (it fails when the cut is not the cone's volume within 1%). The counter
// `points_per_s` is the cloud's points over the wall time.
//   measure_bench [--points N] [Google Benchmark's flags, e.g. --benchmark_repetitions=5]
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "engine/measure.h"

namespace {

uint64_t g_points = 10'000'000;

const pr::PointCloud& pile() {
  static const pr::PointCloud cloud = [] {
    pr::PointCloud c;
    c.origin = {500000.0, 4000000.0, 100.0};
    c.resize(g_points);
    const double side = 100.0, r = 40.0, h = 12.0;
    const uint64_t n = uint64_t(std::ceil(std::sqrt(double(g_points))));
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> jitter(0.0, 1.0);
    for (uint64_t i = 0; i < g_points; ++i) {
      const double x = (double(i % n) + jitter(rng)) / double(n) * side - side / 2;
      const double y = (double(i / n) + jitter(rng)) / double(n) * side - side / 2;
      const double z = std::max(0.0, h * (1.0 - std::hypot(x, y) / r));
      c.positions[i] = {float(x), float(y), float(z)};
      c.colors[i] = pr::rgba(255, 255, 255);
    }
    return c;
  }();
  return cloud;
}

void BM_Volume25d(benchmark::State& state) {
  const pr::PointCloud& cloud = pile();
  const glm::dvec3 o = cloud.origin;
  const std::vector<glm::dvec3> square = {o + glm::dvec3(-50, -50, 0), o + glm::dvec3(50, -50, 0),
                                          o + glm::dvec3(50, 50, 0), o + glm::dvec3(-50, 50, 0)};
  pr::VolumeOptions opt;
  opt.base = o.z;
  opt.cell = 0.25;
  opt.threads = unsigned(state.range(0));
  pr::VolumeResult r;
  for (auto _ : state) {
    std::string err;
    if (!pr::volume_25d(cloud, square, opt, &r, &err)) state.SkipWithError(err.c_str());
    // The whole result (a double alone may be handed through a general register and lost).
    benchmark::ClobberMemory();
  }
  // The cone's volume within 1%, or the number means nothing.
  const double cone = 3.14159265358979323846 * 40.0 * 40.0 * 12.0 / 3.0;
  if (std::fabs(r.cut / cone - 1.0) > 0.01)
    state.SkipWithError(("the cut " + std::to_string(r.cut) + " is not the cone's volume").c_str());
  state.counters["points_per_s"] =
      benchmark::Counter(double(cloud.size()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_Volume25d)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  // --points N before Google Benchmark reads the rest.
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--points") && i + 1 < argc)
      g_points = uint64_t(std::atof(argv[++i]));
    else
      rest.push_back(argv[i]);
  }
  int n = int(rest.size());
  benchmark::Initialize(&n, rest.data());
  if (benchmark::ReportUnrecognizedArguments(n, rest.data())) return 2;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
