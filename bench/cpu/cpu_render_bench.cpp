// CPU rasterizer benchmark: median frame time of the CPU renderer for the cube scene and the
// terrain, at several point counts, 1920x1080, two cameras (the scene's own camera, named "seed"
// in the rows: for the cube the camera of the NumPy/CuPy perspective projection the project grew
// from, inside the cube; and an overview with all points in view). Prints a table, or JSON lines
// with --json.
//   cpu_render_bench [--json] [--points N[,N...]] [--frames K] [--threads T]
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/frame_stats.h"
#include "engine/scenes.h"

using namespace pr;

int main(int argc, char** argv) {
  bool json = false;
  std::vector<uint64_t> counts = {1'000'000, 10'000'000};
  int frames = 9;
  unsigned threads = 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--json"))
      json = true;
    else if (!std::strcmp(argv[i], "--frames") && i + 1 < argc)
      frames = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = unsigned(std::atoi(argv[++i]));
    else if (!std::strcmp(argv[i], "--points") && i + 1 < argc) {
      counts.clear();
      for (char* t = std::strtok(argv[++i], ","); t; t = std::strtok(nullptr, ","))
        counts.push_back(uint64_t(std::atof(t)));
    } else {
      std::fprintf(
          stderr, "usage: cpu_render_bench [--json] [--points N,...] [--frames K] [--threads T]\n");
      return 2;
    }
  }
  CpuRenderer r(threads);
  if (!json)
    std::printf("%-8s %-10s %-9s %10s %10s %10s %10s %9s\n", "scene", "points", "camera",
                "median_ms", "min_ms", "raster_ms", "resolve_ms", "Mpts/s");
  for (const char* scene : {"cube", "terrain"}) {
    for (uint64_t n : counts) {
      const PointCloud cloud = make_scene(scene, n, 1);
      std::string err;
      if (!r.set_cloud(cloud, &err)) {
        std::fprintf(stderr, "%s\n", err.c_str());
        return 1;
      }
      Camera own = scene_camera(scene, cloud);
      Camera overview = own;
      overview.frame(cloud.world_bounds(), 1920.0 / 1080.0);
      const std::pair<const char*, Camera> cams[] = {{"seed", own}, {"overview", overview}};
      for (const auto& [cam_name, cam] : cams) {
        RenderSettings s;
        s.width = 1920;
        s.height = 1080;
        Image img;
        std::vector<double> t, raster, resolve;
        for (int f = 0; f < frames + 1; ++f) {
          FrameStats st;
          r.render(cam, s, img, st, &err);
          if (f == 0) continue;  // warm-up
          t.push_back(st.total_ms);
          raster.push_back(st.raster_ms);
          resolve.push_back(st.resolve_ms + st.clear_ms);
        }
        double mn = t[0];
        for (double v : t) mn = v < mn ? v : mn;
        const double med = median(t);
        if (json)
          std::printf(
              "{\"renderer\": \"cpu\", \"threads\": %u, \"scene\": \"%s\", \"points\": %llu, "
              "\"camera\": \"%s\", \"width\": 1920, \"height\": 1080, \"median_ms\": %.4f, "
              "\"min_ms\": %.4f}\n",
              r.threads(), scene, (unsigned long long)n, cam_name, med, mn);
        else
          std::printf("%-8s %-10llu %-9s %10.3f %10.3f %10.3f %10.3f %9.1f\n", scene,
                      (unsigned long long)n, cam_name, med, mn, median(raster), median(resolve),
                      double(n) / med * 1e-3);
      }
    }
  }
  return 0;
}
