// pointraster_bench's command line as a plan: the clouds (counts times orders), the views of
// each (frame sizes times cameras) and the GPU modes timed beside the default renderer.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "engine/renderer.h"

namespace pr::bench {

struct Options {
  std::vector<std::string> renderers = {"cpu", "gpu", "gl"};
  std::vector<uint64_t> points = {100'000, 1'000'000, 10'000'000, 100'000'000, 1'000'000'000};
  std::vector<std::string> orders = {"random", "morton"};
  std::vector<std::string> cameras = {"overview", "inside"};
  std::vector<std::pair<int, int>> sizes = {{1920, 1080}};
  int frames = 30;
  double budget_s = 2.0;
  uint64_t cpu_max = ~uint64_t{0}, gl_max = ~uint64_t{0}, gpu_max = ~uint64_t{0};
  unsigned threads = 0;
  bool json = false;
  std::string json_out;
  std::pair<int, int> check_size = {320, 180};
  // The CUDA renderer's modes (docs/GPU.md), each timed as its own renderer row: default (the
  // RenderOptions defaults: the upload-time Morton sort when the cloud's order is incoherent),
  // and, sorted unless told otherwise, nosort (the cloud in its own order), compact (quantized
  // positions), nocull (no batch culling), occl / noocc (occlusion culling on / off), rN (N
  // rounds a raster block, CudaTuning::rounds), edl (eye-dome lighting in the resolve, checked
  // against the CPU's EDL image), hq (high-quality splats: the second pass and the averaging
  // resolve, checked against the CPU's HQ image), clip (a box around the cloud's centre that keeps
  // about a tenth of its points: the clip's batch tests and per-point test, engine/clip.h),
  // clipall (a box around the whole cloud: the per-point test alone, nothing culled), adaptive
  // (adaptive point sizes from 1 to 8 pixels, engine/point_size.h: the splat kernels with each
  // point's size, checked against the CPU's adaptive image); joined with '+' (compact+nosort, ...).
  std::vector<std::string> gpu_modes = {"default"};
  bool gpu_modes_given = false;
  bool stage_timing = false;  // CudaTuning::stage_timing: clear, raster, resolve timed apart
};

/// One --gpu-modes entry: its tokens on top of the renderer's defaults.
struct GpuMode {
  std::string name;       // as given: "default", or tokens joined with '+'
  RenderOptions options;  // every mode but nosort sorts its cloud
  int rounds = -1;        // CudaTuning::rounds: the renderer's choice unless a token rN forces it
  bool edl = false, hq = false, adaptive = false;
  int clip = 0;  // 1: a box keeping about a tenth of the cloud, 2: a box around all of it
};

/// One view of a cloud: a frame size and a camera; the sizes vary slowest, as the rows print.
struct View {
  int width = 0, height = 0;
  std::string camera;
};

/// The command line parsed: the clouds (options.points times options.orders), the views of each
/// and the GPU modes timed beside the default renderer.
struct Plan {
  Options options;
  std::vector<View> views;
  std::vector<GpuMode> gpu_modes;
};

/// The usage lines printed when the command line is not understood.
extern const char* const kUsage;

/// The command line as a plan; false (after a message for a bad value) when it is not understood.
bool make_plan(int argc, char** argv, Plan& plan);

/// Whether the plan times renderer `r` ("cpu", "gpu", "gl").
bool wants(const Options& o, const char* r);

}  // namespace pr::bench
