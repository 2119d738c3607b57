// What clip boxes and a section cost the CUDA renderer's frame (docs/CLIP.md): one cloud made
// once (a scene), its frames from the scene's start view drawn without a clip and with each
// clip in turn, in interleaved rounds, so that every clip is compared with the plain frame of the
// same run (render ms: the device frame, CUDA events, without the read-back). Each store order
// asked for (`--sorts auto,on`: the cloud's own order, or sorted along a Morton curve on upload)
// is uploaded once and measured the same way. The share of points each clip keeps is counted on
// the host with the renderers' test, on every 997th point.
//   clip_bench [--scene terrain] [--points 1e9] [--width 1920] [--height 1080] [--frames 30]
//              [--rounds 3] [--sorts auto,on] [--compact]
// Exit 77 without a CUDA device.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/clip.h"
#include "engine/scenes.h"
#include "kernels/cuda_renderer.h"

namespace {

struct Args {
  std::string scene = "terrain";
  uint64_t points = 1'000'000'000;
  int width = 1920, height = 1080, frames = 30, rounds = 3;
  std::vector<std::string> sorts{"auto", "on"};
  bool compact = false;
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  size_t at = 0;
  while (at <= s.size()) {
    const size_t c = std::min(s.find(',', at), s.size());
    if (c > at) out.push_back(s.substr(at, c - at));
    at = c + 1;
  }
  return out;
}

bool parse_args(int argc, char** argv, Args& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--scene" && more) {
      o.scene = argv[++i];
    } else if (a == "--points" && more) {
      o.points = uint64_t(std::atof(argv[++i]));
    } else if (a == "--width" && more) {
      o.width = std::max(16, std::atoi(argv[++i]));
    } else if (a == "--height" && more) {
      o.height = std::max(16, std::atoi(argv[++i]));
    } else if (a == "--frames" && more) {
      o.frames = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--rounds" && more) {
      o.rounds = std::max(1, std::atoi(argv[++i]));
    } else if (a == "--sorts" && more) {
      o.sorts = split(argv[++i]);
    } else if (a == "--compact") {
      o.compact = true;
    } else {
      std::fprintf(stderr,
                   "usage: clip_bench [--scene NAME] [--points N] [--width W] [--height H] "
                   "[--frames K] [--rounds R] [--sorts auto,on,off] [--compact]\n");
      return false;
    }
  }
  for (const std::string& s : o.sorts) {
    pr::Toggle t;
    if (!pr::parse_toggle(s, &t)) {
      std::fprintf(stderr, "clip_bench: --sorts takes auto, on, off (not '%s')\n", s.c_str());
      return false;
    }
  }
  return true;
}

struct Case {
  std::string name;
  pr::Clip clip;
  double kept = 1.0;  ///< share of the sampled points the clip shows
  std::vector<double> ms;
};

/// No clip, a box around everything, a box keeping about a tenth (the middle 31.6% of both
/// horizontal axes: x and z, the scenes' y is up), that box showing outside, highlighting, and a
/// slab across x a hundredth of the cloud's width thick.
std::vector<Case> make_cases(const pr::PointCloud& cloud) {
  const pr::Bounds lb = cloud.local_bounds();
  const glm::dvec3 lo = cloud.origin + lb.min, hi = cloud.origin + lb.max, e = hi - lo;
  const glm::dvec3 c = 0.5 * (lo + hi);
  std::vector<Case> cases(6);
  cases[0].name = "none";
  cases[1].name = "box around all";
  cases[1].clip.boxes.push_back(pr::clip_box_around(lo - 0.01 * e, hi + 0.01 * e));
  pr::ClipBox tenth;
  tenth.centre = c;
  tenth.size = glm::dvec3(e.x * 0.316, e.y * 1.02, e.z * 0.316);
  cases[2].name = "box keeping a tenth";
  cases[2].clip.boxes.push_back(tenth);
  cases[3].name = "that box, outside";
  cases[3].clip.boxes.push_back(tenth);
  cases[3].clip.boxes.back().mode = pr::ClipMode::kOutside;
  cases[4].name = "that box, highlight";
  cases[4].clip.boxes.push_back(tenth);
  cases[4].clip.boxes.back().mode = pr::ClipMode::kHighlight;
  cases[5].name = "section across x";
  cases[5].clip.section = pr::section_along_axis(0, c.x, e.x * 0.01);
  for (Case& k : cases) {
    if (!k.clip.active()) continue;
    const auto keep = pr::clip_keep(k.clip);
    uint64_t total = 0, shown = 0;
    for (size_t i = 0; i < cloud.size(); i += 997, ++total) {
      const pr::Float3 p = cloud.positions[i];
      shown += keep(cloud.origin + glm::dvec3(p.x, p.y, p.z)) ? 1 : 0;
    }
    k.kept = total ? double(shown) / double(total) : 0.0;
  }
  return cases;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Frames of every case in `rounds` interleaved rounds; false after a message when one fails.
bool measure(pr::CudaRenderer& gpu, const pr::Camera& cam, const Args& a,
             std::vector<Case>& cases) {
  pr::RenderSettings rs;
  rs.width = a.width;
  rs.height = a.height;
  pr::Image img;
  std::string err;
  for (int r = 0; r < a.rounds; ++r)
    for (Case& k : cases) {
      rs.clip = k.clip;
      for (int f = 0; f < a.frames + 2; ++f) {  // 2 frames to settle the graph and the policy
        pr::FrameStats st;
        if (!gpu.render(cam, rs, img, st, &err)) {
          std::fprintf(stderr, "clip_bench: %s: %s\n", k.name.c_str(), err.c_str());
          return false;
        }
        if (f >= 2)
          k.ms.push_back(st.stages ? st.clear_ms + st.raster_ms + st.resolve_ms : st.raster_ms);
      }
    }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (!parse_args(argc, argv, a)) return 2;
  std::string why;
  auto gpu = pr::make_cuda_renderer(&why);
  if (!gpu) {
    std::fprintf(stderr, "clip_bench: no CUDA device: %s\n", why.c_str());
    return 77;
  }
  const pr::PointCloud cloud = pr::make_scene(a.scene, a.points);
  const pr::Camera cam = pr::scene_camera(a.scene, cloud);
  std::printf("clip_bench: %s, %llu points, %dx%d, %d frames x %d rounds, %s positions, %s\n",
              a.scene.c_str(), (unsigned long long)cloud.size(), a.width, a.height, a.frames,
              a.rounds, a.compact ? "compact" : "float", gpu->name().c_str());
  for (const std::string& s : a.sorts) {
    pr::RenderOptions o;
    o.compact = a.compact;
    pr::parse_toggle(s, &o.sort);
    gpu->set_options(o);
    if (!gpu->set_cloud(cloud, &why)) {
      std::fprintf(stderr, "clip_bench: %s\n", why.c_str());
      return 1;
    }
    std::vector<Case> cases = make_cases(cloud);
    if (!measure(*gpu, cam, a, cases)) return 1;
    const double none = median(cases[0].ms);
    std::printf("sort %s:\n  %-22s %8s %10s %8s\n", s.c_str(), "clip", "kept", "render ms",
                "x none");
    for (const Case& k : cases)
      std::printf("  %-22s %7.1f%% %10.3f %8.2f\n", k.name.c_str(), 100.0 * k.kept, median(k.ms),
                  none > 0.0 ? median(k.ms) / none : 0.0);
  }
  return 0;
}
