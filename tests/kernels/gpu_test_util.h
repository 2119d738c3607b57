// Shared helpers for the GPU tests: get a CUDA renderer or skip with the reason, hand both
// renderers a cloud in the same options, and compare a GPU image with the CPU renderer's pixel for
// pixel.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <functional>
#include <random>
#include <string>

#include "../engine/random_camera.h"
#include "engine/cpu_renderer.h"
#include "engine/image.h"
#include "kernels/cuda_renderer.h"

namespace pr::test {

#define PR_REQUIRE_GPU(renderer)                                                    \
  std::string pr_why_;                                                              \
  if (!pr::cuda_available(&pr_why_)) GTEST_SKIP() << "no CUDA device: " << pr_why_; \
  auto renderer = pr::make_cuda_renderer(&pr_why_);                                 \
  ASSERT_TRUE(renderer) << pr_why_

/// Pixels that differ between two images of the same size (all of them when sizes differ), and a
/// description of the first difference.
inline size_t count_diff(const Image& a, const Image& b, std::string* first) {
  if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size()) {
    if (first) *first = "sizes differ";
    return a.rgba.size() > b.rgba.size() ? a.rgba.size() : b.rgba.size();
  }
  size_t n = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i) {
    if (a.rgba[i] == b.rgba[i]) continue;
    if (n == 0 && first) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "first at (%zu, %zu): cpu %08x gpu %08x", i % size_t(a.width),
                    i / size_t(a.width), a.rgba[i], b.rgba[i]);
      *first = buf;
    }
    ++n;
  }
  return n;
}

/// The storages the parity tests run through, variant 0 - 3: float in its own order, float
/// sorted with occlusion culling on, compact in its own order, compact sorted (occlusion kAuto
/// but for variant 1).
inline RenderOptions storage_variant(int variant) {
  RenderOptions o;
  o.compact = variant >= 2;
  o.sort = variant % 2 ? Toggle::kOn : Toggle::kOff;
  o.occlusion = variant == 1 ? Toggle::kOn : Toggle::kAuto;
  return o;
}

/// Both renderers in the options `o`, holding `cloud` (check with ASSERT_NO_FATAL_FAILURE).
inline void set_both(CpuRenderer& cpu, Renderer& gpu, const PointCloud& cloud,
                     const RenderOptions& o) {
  cpu.set_options(o);
  gpu.set_options(o);
  std::string err;
  ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu.set_cloud(cloud, &err)) << err;
}

/// One frame on both renderers: the same image and depths pixel for pixel (`what` names the
/// frame); the GPU's image into `gpu_out` when given.
inline void expect_same_frame(Renderer& cpu, Renderer& gpu, const Camera& cam,
                              const RenderSettings& rs, const std::string& what,
                              Image* gpu_out = nullptr) {
  Image a, b;
  FrameStats st;
  std::string err;
  ASSERT_TRUE(cpu.render(cam, rs, a, st, &err)) << what << ": " << err;
  ASSERT_TRUE(gpu.render(cam, rs, b, st, &err)) << what << ": " << err;
  std::string first;
  EXPECT_EQ(count_diff(a, b, &first), 0u) << what << ": " << first;
  EXPECT_EQ(a.depth, b.depth) << what;
  if (gpu_out) *gpu_out = std::move(b);
}

/// Frame `it` of a run over one cloud: the first a full-HD view from `first`, the others a random
/// camera around `bounds` at a random size (100-599 x 80-479); point sizes 1 - 3 in turn, depth
/// on even frames, background (10, 20, 30). Effects are the caller's to add. `ortho`: the random
/// cameras orthographic.
inline void random_frame(int it, std::mt19937& rng, const Camera& first, const Bounds& bounds,
                         Camera* cam, RenderSettings* rs, bool ortho = false) {
  *cam = it == 0 ? first : random_camera(rng, bounds, ortho);
  *rs = RenderSettings{};
  rs->width = it == 0 ? 1920 : 100 + int(rng() % 500);
  rs->height = it == 0 ? 1080 : 80 + int(rng() % 400);
  rs->point_size = 1 + it % 3;
  rs->background = rgba(10, 20, 30);
  rs->want_depth = it % 2 == 0;
}

/// Six frames of `cloud` from random cameras on both renderers (320x200, point sizes 1 - 3,
/// `set(rs, frame)` choosing the effect of each), the GPU without frame graphs, then with graphs
/// and stage timing: the same images as the CPU's.
inline void expect_same_across_tunings(CpuRenderer& cpu, Renderer& gpu, const PointCloud& cloud,
                                       const std::function<void(RenderSettings&, int)>& set) {
  ASSERT_NO_FATAL_FAILURE(set_both(cpu, gpu, cloud, RenderOptions{}));
  auto* cuda = dynamic_cast<CudaRenderer*>(&gpu);
  ASSERT_TRUE(cuda);
  std::mt19937 rng(9);
  for (int mode = 0; mode < 2; ++mode) {
    CudaTuning t;
    t.frame_graph = mode == 1;
    t.stage_timing = mode == 1;
    cuda->set_tuning(t);
    for (int it = 0; it < 6; ++it) {
      RenderSettings rs;
      rs.width = 320;
      rs.height = 200;
      rs.point_size = 1 + it % 3;
      set(rs, it);
      const Camera cam = random_camera(rng, cloud.local_bounds());
      expect_same_frame(cpu, gpu, cam, rs,
                        "mode " + std::to_string(mode) + " frame " + std::to_string(it));
    }
  }
}

/// Pixels that are not the background.
inline size_t count_drawn(const Image& img, uint32_t background) {
  size_t n = 0;
  for (uint32_t c : img.rgba) n += c != background;
  return n;
}

}  // namespace pr::test
