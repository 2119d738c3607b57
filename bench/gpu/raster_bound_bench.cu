// raster_bound_bench: how fast the GPU's memory system can run the visibility buffer's side of a
// frame, with every bit of the raster's arithmetic taken out (the "what bounds a 1e7 frame"
// question of docs/GPU.md).
//
// The host projects the cube scene once (engine/projection.h's project_to_pixel(), the
// renderers' own function) and uploads, for each point in storage order, its pixel index (4 B)
// and its 64-bit key (8 B); and, as the compact storage's 4 bytes a point, one word holding the
// pixel (21 bits) and the depth's rank (11 bits, 2048 steps over the depths in view; the key is
// then rank << 32 | pixel, so a few more points tie and skip their atomic). Each form is a row.
// Kernels then replay the frame's memory operations alone, with the raster kernel's layout (256
// threads, 4 points a thread a round, thread t taking points base + t, base + t + 256, ...;
// `--rounds` rounds a block):
//   stream     the input alone (12 or 4 B a point), nothing else: the replay's streaming floor
//   loads      + the early test's load of each point's key (no atomics)
//   early      + the atomicMin of the points nearer than the key they read: the renderer's
//              memory operations on the visibility buffer, in its storage order
//   atomics    an atomicMin for every point, no early test
//   scattered  the same number of key loads as `loads`, at pseudo-random pixels of the buffer
// Each timed run starts from an empty buffer (the memset is outside the CUDA events); the
// median of --frames runs after warm-up is printed with the points in view, the pixels they hit,
// the atomics the early test lets through (at least one a pixel hit), and the 32-byte sectors a
// warp's key loads touch (host-computed, as ncu's "sectors per request").
//
//   raster_bound_bench [--points 1e6,1e7,1e8] [--orders morton,random] [--cameras overview,inside]
//                      [--width 1920 --height 1080] [--frames 50] [--rounds 4]
//
// Exits with 77 (nothing run) where there is no CUDA device. The renderer's own frame for the
// same cloud comes from pointraster_bench (--stage-timing times its resolve on its own);
// docs/GPU.md sets the two side by side.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <unordered_set>
#include <vector>

#include "common/bench_util.h"
#include "common/cuda_bench.h"
#include "engine/camera.h"
#include "engine/projection.h"
#include "engine/scenes.h"

namespace {

using namespace pr;

constexpr int kThreads = 256;
constexpr int kPerThread = 4;
constexpr int kChunk = kThreads * kPerThread;
constexpr uint32_t kNoPixel = 0xffffffffu;
constexpr int kPixelBits = 21;  // 1920 x 1080 < 2^21
constexpr uint32_t kPixelMask = (1u << kPixelBits) - 1u;
constexpr uint32_t kRanks = 1u << (32 - kPixelBits);

enum Mode : int { kStream = 0, kLoads = 1, kEarly = 2, kAtomics = 3, kScattered = 4, kCount = 5 };
const char* const kModeNames[] = {"stream", "loads", "early", "atomics", "scattered"};

/// A 32-bit mix (lowbias32) for the scattered loads' pixels.
__device__ __forceinline__ uint32_t mix32(uint32_t x) {
  x ^= x >> 16;
  x *= 0x7feb352du;
  x ^= x >> 15;
  x *= 0x846ca68bu;
  x ^= x >> 16;
  return x;
}

/// kPacked: one 32-bit word a point (`pix`: its pixel in the low kPixelBits, its depth rank above;
/// `key` unused), the compact storage's 4 bytes a point; the key is then (rank << 32 | pixel).
template <int kMode, bool kPacked>
__global__ void __launch_bounds__(kThreads)
    replay(const uint32_t* __restrict__ pix, const unsigned long long* __restrict__ key, uint64_t n,
           int rounds, uint32_t pixels, unsigned long long* fb, unsigned long long* sink) {
  unsigned long long acc = 0;
  const uint64_t first = uint64_t(blockIdx.x) * uint64_t(rounds) * kChunk + threadIdx.x;
  for (int r = 0; r < rounds; ++r) {
    const uint64_t base = first + uint64_t(r) * kChunk;
    uint32_t px[kPerThread];
    unsigned long long k[kPerThread];
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      const uint64_t i = base + uint64_t(j) * kThreads;
      if constexpr (kPacked) {
        const uint32_t w = i < n ? __ldcs(pix + i) : kNoPixel;
        const uint32_t q = w & kPixelMask;
        px[j] = q == kPixelMask ? kNoPixel : q;
        k[j] = (static_cast<unsigned long long>(w >> kPixelBits) << 32) | q;
      } else {
        px[j] = i < n ? __ldcs(pix + i) : kNoPixel;
        k[j] = i < n ? __ldcs(key + i) : ~0ull;
      }
    }
#pragma unroll
    for (int j = 0; j < kPerThread; ++j) {
      if (px[j] == kNoPixel) continue;
      if constexpr (kMode == kStream) {
        acc += k[j] ^ px[j];
      } else if constexpr (kMode == kLoads) {
        acc += k[j] < fb[px[j]];
      } else if constexpr (kMode == kEarly) {
        const unsigned long long cur = fb[px[j]];
        if (k[j] < cur) atomicMin(fb + px[j], k[j]);
      } else if constexpr (kMode == kAtomics) {
        atomicMin(fb + px[j], k[j]);
      } else if constexpr (kMode == kScattered) {
        const uint32_t q = mix32(uint32_t(base) + uint32_t(j) * kThreads) % pixels;
        acc += k[j] < fb[q];
      } else {  // kCount: the early test, counting the atomics it issues
        const unsigned long long cur = fb[px[j]];
        if (k[j] < cur) {
          atomicMin(fb + px[j], k[j]);
          acc += 1;
        }
      }
    }
  }
  // Keeps the loads alive; the sink is written only by the counting mode or never in practice.
  if (kMode == kCount)
    atomicAdd(sink, acc);
  else if (acc == 0x5eed5eed5eed5eedull)
    *sink = acc;
}

bool check(cudaError_t e, const char* what) {
  return cuda_ok("raster_bound_bench", e, what);
}

template <int kMode>
void launch(bool packed, const uint32_t* pix, const unsigned long long* key, uint64_t n, int rounds,
            uint32_t pixels, unsigned long long* fb, unsigned long long* sink) {
  const uint64_t per = uint64_t(rounds) * kChunk;
  const unsigned blocks = unsigned((n + per - 1) / per);
  if (packed)
    replay<kMode, true><<<blocks, kThreads>>>(pix, key, n, rounds, pixels, fb, sink);
  else
    replay<kMode, false><<<blocks, kThreads>>>(pix, key, n, rounds, pixels, fb, sink);
}

void launch_mode(int mode, bool packed, const uint32_t* pix, const unsigned long long* key,
                 uint64_t n, int rounds, uint32_t pixels, unsigned long long* fb,
                 unsigned long long* sink) {
  switch (mode) {
    case kStream:
      launch<kStream>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
    case kLoads:
      launch<kLoads>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
    case kEarly:
      launch<kEarly>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
    case kAtomics:
      launch<kAtomics>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
    case kScattered:
      launch<kScattered>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
    default:
      launch<kCount>(packed, pix, key, n, rounds, pixels, fb, sink);
      break;
  }
}

/// Mean distinct 32-byte sectors of the visibility buffer a warp's key-load instruction touches
/// (the warp's 32 lanes read 32 consecutive stored points), over the warps with a point in view.
double sectors_per_request(const std::vector<uint32_t>& pix) {
  uint64_t requests = 0, sectors = 0;
  std::vector<uint32_t> s;
  for (size_t w = 0; w < pix.size(); w += 32) {
    s.clear();
    for (size_t i = w; i < std::min(pix.size(), w + 32); ++i)
      if (pix[i] != kNoPixel) s.push_back(pix[i] / 4);  // 4 keys of 8 B a sector
    if (s.empty()) continue;
    std::sort(s.begin(), s.end());
    sectors += uint64_t(std::unique(s.begin(), s.end()) - s.begin());
    ++requests;
  }
  return requests ? double(sectors) / double(requests) : 0.0;
}

struct Options {
  std::vector<uint64_t> points = {1000000, 10000000, 100000000};
  std::vector<std::string> orders = {"morton", "random"};
  std::vector<std::string> cameras = {"overview", "inside"};
  int width = 1920, height = 1080, frames = 50, rounds = 4;
};

bool parse(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    std::string err;
    if (a == "--points" && more) {
      if (!parse_counts(argv[++i], o.points, &err)) {
        std::fprintf(stderr, "raster_bound_bench: %s\n", err.c_str());
        return false;
      }
    } else if (a == "--orders" && more) {
      o.orders = split_list(argv[++i]);
    } else if (a == "--cameras" && more) {
      o.cameras = split_list(argv[++i]);
    } else if (a == "--width" && more) {
      o.width = std::atoi(argv[++i]);
    } else if (a == "--height" && more) {
      o.height = std::atoi(argv[++i]);
    } else if (a == "--frames" && more) {
      o.frames = std::atoi(argv[++i]);
    } else if (a == "--rounds" && more) {
      o.rounds = std::atoi(argv[++i]);
    } else {
      std::fprintf(stderr,
                   "usage: raster_bound_bench [--points 1e6,1e7] [--orders morton,random] "
                   "[--cameras overview,inside] [--width W --height H] [--frames N] "
                   "[--rounds R]\n");
      return false;
    }
  }
  if (o.width < 1 || o.height < 1 || o.frames < 1 || o.rounds < 1 ||
      uint64_t(o.width) * uint64_t(o.height) >= kNoPixel) {
    std::fprintf(stderr, "raster_bound_bench: bad size, frames or rounds\n");
    return false;
  }
  return true;
}

/// A frame's points as the host projects them, in storage order: the pixel (kNoPixel out of
/// view) and key of each, the 4-byte packed form, and what the table prints about them.
struct HostFrame {
  std::vector<uint32_t> pix, packed;
  std::vector<unsigned long long> key;
  uint64_t in_view = 0, covered = 0;
  double spr = 0.0;  // sectors per request
};

// The 4-byte form: the pixel and the depth's rank among kRanks steps from the nearest to the
// farthest point in view.
void pack_ranks(HostFrame& f) {
  const size_t n = f.pix.size();
  float dmin = 3.0e38f, dmax = 0.0f;
  for (uint64_t i = 0; i < n; ++i)
    if (f.pix[i] != kNoPixel) {
      dmin = std::min(dmin, key_depth(f.key[i]));
      dmax = std::max(dmax, key_depth(f.key[i]));
    }
  const double rank_scale = dmax > dmin ? double(kRanks - 1) / double(dmax - dmin) : 0.0;
  f.packed.assign(n, kNoPixel);
  for (uint64_t i = 0; i < n; ++i)
    if (f.pix[i] != kNoPixel)
      f.packed[i] = f.pix[i] | uint32_t(double(key_depth(f.key[i]) - dmin) * rank_scale)
                                   << kPixelBits;
}

HostFrame project_frame(const PointCloud& cloud, const Camera& cam, const Options& o,
                        uint32_t pixels) {
  const ProjParams p = cam.params(o.width, o.height, cloud.origin, 1);
  const uint64_t n = cloud.size();
  HostFrame f;
  f.pix.resize(n);
  f.key.resize(n);
  for (uint64_t i = 0; i < n; ++i) {
    const Float3& v = cloud.positions[i];
    int ix = 0, iy = 0;
    uint64_t k = 0;
    if (project_to_pixel(p, v.x, v.y, v.z, cloud.colors[i], ix, iy, k)) {
      f.pix[i] = uint32_t(iy) * uint32_t(o.width) + uint32_t(ix);
      f.key[i] = k;
      ++f.in_view;
    } else {
      f.pix[i] = kNoPixel;
      f.key[i] = ~0ull;
    }
  }
  f.spr = sectors_per_request(f.pix);
  std::vector<uint8_t> hit(pixels, 0);
  for (uint32_t q : f.pix)
    if (q != kNoPixel && !hit[q]) hit[q] = 1, ++f.covered;
  pack_ranks(f);
  return f;
}

/// The device side every row shares: the visibility buffer, the counting sink and the events.
struct Device {
  uint32_t pixels = 0;
  unsigned long long *fb = nullptr, *sink = nullptr;
  cudaEvent_t e0{}, e1{};
};

/// One input form (`in`: pixels or packed words): the atomics the early test issues, then each
/// mode's median time. False after a message on a CUDA error.
bool time_form(const Device& d, const Options& o, bool pk, const uint32_t* in,
               const unsigned long long* dkey, uint64_t n, unsigned long long& atomics,
               std::vector<double>& med) {
  bool ok = check(cudaMemset(d.fb, 0xff, size_t(d.pixels) * 8), "cudaMemset") &&
            check(cudaMemset(d.sink, 0, 8), "cudaMemset");
  if (ok) {
    launch_mode(kCount, pk, in, dkey, n, o.rounds, d.pixels, d.fb, d.sink);
    ok = check(cudaMemcpy(&atomics, d.sink, 8, cudaMemcpyDeviceToHost), "count");
  }
  for (int mode = kStream; ok && mode <= kScattered; ++mode) {
    std::vector<double> t;
    for (int f = -3; f < o.frames && ok; ++f) {
      ok = check(cudaMemset(d.fb, 0xff, size_t(d.pixels) * 8), "cudaMemset") &&
           check(cudaEventRecord(d.e0), "cudaEventRecord");
      launch_mode(mode, pk, in, dkey, n, o.rounds, d.pixels, d.fb, d.sink);
      float ms = 0;
      ok = ok && check(cudaGetLastError(), "launch") &&
           check(cudaEventRecord(d.e1), "cudaEventRecord") &&
           check(cudaEventSynchronize(d.e1), "cudaEventSynchronize") &&
           check(cudaEventElapsedTime(&ms, d.e0, d.e1), "cudaEventElapsedTime");
      if (f >= 0) t.push_back(ms);
    }
    if (ok) med.push_back(summarize(t).median);
  }
  return ok;
}

/// One camera's rows (12-byte and 4-byte input); false on a CUDA error.
bool run_camera(const Device& d, const Options& o, const PointCloud& cloud,
                const std::string& order, const std::string& camname) {
  const uint64_t n = cloud.size();
  Camera cam = scene_camera("cube", cloud);
  if (camname == "overview") cam.frame(cloud.world_bounds(), double(o.width) / double(o.height));
  const HostFrame f = project_frame(cloud, cam, o, d.pixels);
  uint32_t *dpix = nullptr, *dpacked = nullptr;
  unsigned long long* dkey = nullptr;
  bool ok = check(cudaMalloc(&dpix, n * 4), "cudaMalloc(pixels)") &&
            check(cudaMalloc(&dpacked, n * 4), "cudaMalloc(packed)") &&
            check(cudaMalloc(&dkey, n * 8), "cudaMalloc(keys)") &&
            check(cudaMemcpy(dpix, f.pix.data(), n * 4, cudaMemcpyHostToDevice), "upload") &&
            check(cudaMemcpy(dpacked, f.packed.data(), n * 4, cudaMemcpyHostToDevice), "upload") &&
            check(cudaMemcpy(dkey, f.key.data(), n * 8, cudaMemcpyHostToDevice), "upload");
  for (int form = 0; ok && form < 2; ++form) {
    const bool pk = form == 1;
    if (pk && d.pixels > kPixelMask) continue;  // the packed word names 2^21 - 1 pixels
    unsigned long long atomics = 0;
    std::vector<double> med;
    ok = time_form(d, o, pk, pk ? dpacked : dpix, dkey, n, atomics, med);
    if (!ok) break;
    std::printf("| %.0e | %s | %s | %d | %llu | %llu | %llu | %.2f |", double(n), order.c_str(),
                camname.c_str(), pk ? 4 : 12, (unsigned long long)f.in_view,
                (unsigned long long)f.covered, atomics, f.spr);
    for (double m : med) std::printf(" %.4f |", m);
    std::printf("\n");
    std::fflush(stdout);
  }
  cudaFree(dpix);
  cudaFree(dpacked);
  cudaFree(dkey);
  return ok;
}

void print_header() {
  std::printf(
      "| points | order | camera | input B/pt | in view | pixels hit | atomics | sectors/request "
      "|");
  for (const char* m : kModeNames) std::printf(" %s ms |", m);
  std::printf("\n| --- | --- | --- | ---: | ---: | ---: | ---: | ---: |");
  for (size_t m = 0; m < sizeof kModeNames / sizeof *kModeNames; ++m) std::printf(" ---: |");
  std::printf("\n");
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  if (!cuda_device_present("raster_bound_bench")) return kNoCudaDevice;
  Device d;
  d.pixels = uint32_t(o.width) * uint32_t(o.height);
  print_header();
  if (!check(cudaMalloc(&d.fb, size_t(d.pixels) * 8), "cudaMalloc(buffer)") ||
      !check(cudaMalloc(&d.sink, 8), "cudaMalloc(sink)"))
    return 1;
  if (!check(cudaEventCreate(&d.e0), "cudaEventCreate") ||
      !check(cudaEventCreate(&d.e1), "cudaEventCreate"))
    return 1;
  int failures = 0;
  for (uint64_t n : o.points) {
    for (const std::string& order : o.orders) {
      PointCloud cloud = make_scene("cube", n, 1);  // random: the generator's order
      if (order == "morton") morton_sort(cloud);
      for (const std::string& camname : o.cameras)
        if (!run_camera(d, o, cloud, order, camname)) ++failures;
    }
  }
  cudaFree(d.fb);
  cudaFree(d.sink);
  return failures ? 1 : 0;
}
