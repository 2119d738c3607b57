// frame_floor_bench: the least a GPU frame can cost, timed the way the renderer times its frames
// (the small-cloud targets, docs/PERFORMANCE.md "What is left").
//
// The renderer's frame is a CUDA graph, launched on its stream between two CUDA events. At 1e5
// points that frame costs about 0.010 ms, nearly all of it independent of the points. This
// program measures, the same way, graphs that do less than any frame can:
//   empty        one kernel of one warp that does nothing: the launch of a graph and the events
//   image        one kernel writing a width x height RGBA8 image (16 bytes a thread): the least
//                a frame that shows an image writes
//   resolve      one kernel reading the 64-bit key of every pixel and writing its color (the
//                keys stay empty): the resolve of a frame whose rect is the whole image
//   two          a one-warp kernel, then `image` after it in stream order: the least a frame of
//                two dependent kernels (raster, resolve) costs
//   two+pdl      the same, `image` launched as a programmatic dependent (compute capability 9.0
//                and up, as the renderer's resolve), waiting for the first before its stores
// Each is the median of --frames launches after warm-up; min and max are printed too.
//
//   frame_floor_bench [--width 1920 --height 1080] [--frames 2000]
//
// Exits with 77 (nothing run) where there is no CUDA device.
#include <cuda_runtime_api.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "common/bench_util.h"
#include "common/cuda_bench.h"

namespace {

constexpr unsigned kThreads = 256;

bool check(cudaError_t e, const char* what) {
  return pr::cuda_ok("frame_floor_bench", e, what);
}

__global__ void nothing(int* sink) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  if (sink && threadIdx.x == 1000) *sink = 1;  // never: keeps the kernel from being empty
}

/// Four pixels a thread, one 16-byte store; `wait`: a programmatic dependent that waits for the
/// kernel before it first.
__global__ void write_image(uint4* image, unsigned quads, uint32_t color, bool wait) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (wait) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < quads) image[i] = make_uint4(color, color, color, color);
}

/// Four pixels a thread: each key's color (its low word) or the background, and the written keys
/// cleared (none here: the buffer stays empty, as in a frame whose points all missed).
__global__ void resolve_all(ulonglong2* keys, uint4* image, unsigned quads, uint32_t background) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= quads) return;
  const ulonglong2 a = keys[2 * i], b = keys[2 * i + 1];
  const ulonglong2 empty = make_ulonglong2(~0ull, ~0ull);
  if ((a.x & a.y) != ~0ull) keys[2 * i] = empty;  // the renderer clears only written keys
  if ((b.x & b.y) != ~0ull) keys[2 * i + 1] = empty;
  auto color = [&](unsigned long long k) { return k == ~0ull ? background : uint32_t(k); };
  image[i] = make_uint4(color(a.x), color(a.y), color(b.x), color(b.y));
}

struct Options {
  int width = 1920, height = 1080, frames = 2000;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    if (a == "--width" && more) {
      o.width = std::atoi(argv[++i]);
    } else if (a == "--height" && more) {
      o.height = std::atoi(argv[++i]);
    } else if (a == "--frames" && more) {
      o.frames = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: frame_floor_bench [--width W --height H] [--frames N]\n"
                   "(unknown or incomplete argument '%s')\n",
                   a.c_str());
      return false;
    }
  }
  if (o.width <= 0 || o.height <= 0 || o.width % 4 != 0 || o.frames <= 0) {
    std::fprintf(stderr,
                 "frame_floor_bench: need a positive size, a width divisible by 4 and "
                 "at least one frame\n");
    return false;
  }
  return true;
}

/// The device side every row shares: the image, the keys, the stream and the events.
struct Device {
  unsigned quads = 0, blocks = 0;
  uint4* image = nullptr;
  ulonglong2* keys = nullptr;
  cudaStream_t s = nullptr;
  cudaEvent_t e0 = nullptr, e1 = nullptr;
};

bool make_device(const Options& o, Device& d) {
  d.quads = unsigned(size_t(o.width) * size_t(o.height) / 4);
  d.blocks = (d.quads + kThreads - 1) / kThreads;
  return check(cudaMalloc(&d.image, size_t(d.quads) * 16), "cudaMalloc(image)") &&
         check(cudaMalloc(&d.keys, size_t(d.quads) * 32), "cudaMalloc(keys)") &&
         check(cudaMemset(d.keys, 0xff, size_t(d.quads) * 32), "cudaMemset") &&
         check(cudaStreamCreateWithFlags(&d.s, cudaStreamNonBlocking), "cudaStreamCreate") &&
         check(cudaEventCreate(&d.e0), "cudaEventCreate") &&
         check(cudaEventCreate(&d.e1), "cudaEventCreate");
}

void free_device(Device& d) {
  cudaFree(d.image);
  cudaFree(d.keys);
  cudaEventDestroy(d.e0);
  cudaEventDestroy(d.e1);
  cudaStreamDestroy(d.s);
}

cudaError_t image_launch(const Device& d, bool dependent) {
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = dim3(d.blocks);
  cfg.blockDim = dim3(kThreads);
  cfg.stream = d.s;
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = attr;
  cfg.numAttrs = dependent ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, write_image, d.image, d.quads, 0xff000000u, dependent);
}

/// The graph `name` captured on the stream and instantiated into `exec`; `kernels` its kernels.
bool capture(const Device& d, const std::string& name, cudaGraph_t& graph, cudaGraphExec_t& exec,
             int& kernels) {
  kernels = 1;
  if (!check(cudaStreamBeginCapture(d.s, cudaStreamCaptureModeThreadLocal), "capture"))
    return false;
  if (name == "empty") {
    nothing<<<1, 32, 0, d.s>>>(nullptr);
  } else if (name == "image") {
    (void)image_launch(d, false);
  } else if (name == "resolve") {
    resolve_all<<<d.blocks, kThreads, 0, d.s>>>(d.keys, d.image, d.quads, 0xff000000u);
  } else {
    nothing<<<1, 32, 0, d.s>>>(nullptr);
    (void)image_launch(d, name == "two+pdl");
    kernels = 2;
  }
  const bool launched = check(cudaGetLastError(), "launch");
  const bool captured = check(cudaStreamEndCapture(d.s, &graph), "cudaStreamEndCapture");
  return launched && captured &&
         check(cudaGraphInstantiate(&exec, graph, 0), "cudaGraphInstantiate");
}

/// One graph's row: 50 warm-up launches, then --frames timed ones; false on a CUDA error.
bool time_graph(const Device& d, const Options& o, const char* name) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  int kernels = 1;
  bool ok = capture(d, name, graph, exec, kernels);
  std::vector<double> t;
  for (int f = -50; ok && f < o.frames; ++f) {
    float ms = 0.0f;
    ok = check(cudaEventRecord(d.e0, d.s), "cudaEventRecord") &&
         check(cudaGraphLaunch(exec, d.s), "cudaGraphLaunch") &&
         check(cudaEventRecord(d.e1, d.s), "cudaEventRecord") &&
         check(cudaEventSynchronize(d.e1), "cudaEventSynchronize") &&
         check(cudaEventElapsedTime(&ms, d.e0, d.e1), "cudaEventElapsedTime");
    if (f >= 0) t.push_back(ms);
  }
  if (exec) cudaGraphExecDestroy(exec);
  if (graph) cudaGraphDestroy(graph);
  if (!ok) return false;
  const pr::Spread sp = pr::summarize(t);
  std::printf("| %s | %d | %.4f | %.4f | %.4f |\n", name, kernels, sp.median, sp.min, sp.max);
  std::fflush(stdout);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  if (!pr::cuda_device_present("frame_floor_bench")) return pr::kNoCudaDevice;
  cudaDeviceProp prop{};
  if (!check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties")) return 1;
  const bool pdl = prop.major >= 9;
  Device d;
  if (!make_device(o, d)) return 1;
  struct Variant {
    const char* name;
    bool needs_pdl;
  };
  const Variant variants[] = {
      {"empty", false}, {"image", false}, {"resolve", false}, {"two", false}, {"two+pdl", true}};
  std::printf(
      "frame_floor_bench: %s, %dx%d, %d frames a row (CUDA events around a graph "
      "launch, as the renderer times its frames)\n",
      prop.name, o.width, o.height, o.frames);
  std::printf(
      "| graph | kernels | median ms | min ms | max ms |\n| --- | ---: | ---: | ---: | ---: |\n");
  int failures = 0;
  for (const Variant& v : variants) {
    if (v.needs_pdl && !pdl) {
      std::printf("| %s | | skipped: compute capability %d.%d has no dependent launches | | |\n",
                  v.name, prop.major, prop.minor);
      continue;
    }
    if (!time_graph(d, o, v.name)) ++failures;
  }
  free_device(d);
  return failures ? 1 : 0;
}
