// Profile benchmark (docs/PROFILE.md): how long a profile takes to appear and to draw.
//   profile_bench [--length M] [--width W] [--budget N] [--threads T] [--runs R]
//                 [--size WxH] [--frames F] FILE...
// FILE...: a survey (COPC files, URLs, a folder, a .vpc; what list_survey() takes). A straight
// line `--length` long (default 1000) across the middle of the survey along x, `--width` wide
// (default 10): each run reads the corridor's nodes at every level within `--budget` points
// (read_corridor(); default 0, no limit) and extracts the profile (extract_profile()), and the
// time to appear is the two together. Then the profile is drawn at --size (default 1920x1080)
// in its orthographic front view by the CPU renderer and, where there is a CUDA device, the GPU
// renderer, --frames frames each (default 20, the first not counted). One line each:
//   appear runs=R read_ms=MED extract_ms=MED total_ms=MED (min MIN) nodes=N read_points=P
//          profile_points=Q depth=D complete=0|1
//   draw mode=cpu|gpu width=W height=H median_ms=T min_ms=T
//   profile_bench --scene-points N [...]   the same over an in-memory terrain of N points (no
//                                         read: the whole cloud is extracted)
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/frame_stats.h"
#include "engine/io/copc.h"
#include "engine/io/corridor.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/survey.h"
#include "engine/profile.h"
#include "engine/scenes.h"
#include "startup.h"

namespace {

struct Args {
  double length = 1000.0, width = 10.0;
  uint64_t budget = 0, scene_points = 0;
  unsigned threads = 0;
  int runs = 5, frames = 20, w = 1920, h = 1080;
  std::vector<std::string> inputs;
};

bool parse(int argc, char** argv, Args* a) {
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    const bool has = i + 1 < argc;
    if (k == "--length" && has)
      a->length = std::atof(argv[++i]);
    else if (k == "--width" && has)
      a->width = std::atof(argv[++i]);
    else if (k == "--budget" && has)
      a->budget = uint64_t(std::atof(argv[++i]));
    else if (k == "--scene-points" && has)
      a->scene_points = uint64_t(std::atof(argv[++i]));
    else if (k == "--threads" && has)
      a->threads = unsigned(std::atoi(argv[++i]));
    else if (k == "--runs" && has)
      a->runs = std::max(1, std::atoi(argv[++i]));
    else if (k == "--frames" && has)
      a->frames = std::max(2, std::atoi(argv[++i]));
    else if (k == "--size" && has && std::sscanf(argv[++i], "%dx%d", &a->w, &a->h) == 2)
      continue;
    else if (k.rfind("--", 0) == 0)
      return false;
    else
      a->inputs.push_back(k);
  }
  return !a->inputs.empty() || a->scene_points > 0;
}

/// The survey's bounds from its tiles' headers (a tile without declared bounds is opened).
bool survey_bounds(const Args& a, pr::Bounds* b, std::string* why) {
  std::vector<pr::SurveyTile> tiles;
  if (!pr::list_survey(a.inputs, tiles, why)) return false;
  for (const pr::SurveyTile& t : tiles) {
    if (!t.bounds.empty) {
      b->extend(t.bounds);
      continue;
    }
    auto source = pr::open_byte_source(t.href, why);
    auto file = source ? pr::CopcFile::open(std::move(source), why) : nullptr;
    if (!file) return false;
    b->extend(file->info().bounds);
  }
  if (!b->empty) return true;
  *why = "the survey holds no points";
  return false;
}

double median_of(std::vector<double> v) {
  return pr::median(std::move(v));
}

void draw(const Args& a, const pr::ProfileCloud& p) {
  for (const char* mode : {"cpu", "gpu"}) {
    pr::Options o;
    o.threads = a.threads;
    std::string why;
    auto r = pr::make_renderer(mode, o, &why);
    if (!r) {
      std::printf("draw mode=%s skipped: %s\n", mode, why.c_str());
      continue;
    }
    if (!r->set_cloud(p.cloud, &why)) {
      std::printf("draw mode=%s failed: %s\n", mode, why.c_str());
      continue;
    }
    pr::RenderSettings rs;
    rs.width = a.w;
    rs.height = a.h;
    const pr::Camera cam = pr::profile_camera(p, double(a.w) / double(a.h));
    pr::Image img;
    std::vector<double> ms;
    for (int f = 0; f < a.frames; ++f) {
      pr::FrameStats st;
      if (!r->render(cam, rs, img, st, &why)) {
        std::printf("draw mode=%s failed: %s\n", mode, why.c_str());
        break;
      }
      // The GPU's device frame by CUDA events, without the read-back; the CPU's whole call.
      const double t = std::string(mode) == "cpu" ? st.total_ms
                       : st.stages                ? st.clear_ms + st.raster_ms + st.resolve_ms
                                                  : st.raster_ms;
      if (f > 0) ms.push_back(t);
    }
    if (ms.empty()) continue;
    std::printf("draw mode=%s width=%d height=%d points=%zu median_ms=%.3f min_ms=%.3f\n", mode,
                a.w, a.h, p.cloud.size(), median_of(ms), *std::min_element(ms.begin(), ms.end()));
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse(argc, argv, &a)) {
    std::fprintf(stderr,
                 "usage: profile_bench [--length M] [--width W] [--budget N] [--threads T]"
                 " [--runs R] [--size WxH] [--frames F] FILE... | --scene-points N\n");
    return 2;
  }
  std::string why;
  pr::PointCloud scene;
  pr::Bounds b;
  if (a.scene_points) {
    scene = pr::make_scene("terrain", a.scene_points, 1);
    b = scene.world_bounds();
  } else if (!survey_bounds(a, &b, &why)) {
    std::fprintf(stderr, "profile_bench: %s\n", why.c_str());
    return 1;
  }
  // The scenes are y up: their ground is (z, x), the files' (x, y).
  const pr::UpAxis up = a.scene_points ? pr::UpAxis::kY : pr::UpAxis::kZ;
  const glm::dvec3 c = b.center();
  const glm::dvec3 along = up == pr::UpAxis::kZ ? glm::dvec3(1, 0, 0) : glm::dvec3(0, 0, 1);
  const pr::Profile prof{{c - along * (a.length / 2), c + along * (a.length / 2)}, a.width};
  std::vector<double> read_ms, extract_ms, total_ms;
  pr::ProfileCloud p;
  pr::CorridorStats st;
  for (int run = 0; run < a.runs; ++run) {
    pr::PointCloud corridor;
    const pr::Stopwatch clock;
    if (!a.scene_points) {
      pr::CorridorRequest r;
      for (const glm::dvec3& q : prof.line) r.line.emplace_back(q.x, q.y);
      r.half_width = a.width / 2;
      r.point_budget = a.budget;
      r.threads = a.threads;
      if (!pr::read_corridor(a.inputs, r, &corridor, &st, &why)) {
        std::fprintf(stderr, "profile_bench: %s\n", why.c_str());
        return 1;
      }
    }
    read_ms.push_back(clock.ms());
    const pr::Stopwatch ex;
    if (!pr::extract_profile(a.scene_points ? scene : corridor, prof, up, &p, &why, a.threads)) {
      std::fprintf(stderr, "profile_bench: %s\n", why.c_str());
      return 1;
    }
    extract_ms.push_back(ex.ms());
    total_ms.push_back(clock.ms());
  }
  std::printf(
      "appear runs=%d read_ms=%.1f extract_ms=%.1f total_ms=%.1f (min %.1f) nodes=%llu "
      "read_points=%llu profile_points=%zu depth=%d complete=%d\n",
      a.runs, median_of(read_ms), median_of(extract_ms), median_of(total_ms),
      *std::min_element(total_ms.begin(), total_ms.end()), (unsigned long long)st.nodes,
      (unsigned long long)(a.scene_points ? scene.size() : st.points), p.cloud.size(), st.depth,
      a.scene_points ? 1 : int(st.complete));
  draw(a, p);
  return 0;
}
