// Procedural scenes generated on the device (DeviceCloud::generate_scene()): each slice of points
// made by engine/scene_points.h's functions, the host's own, then encoded and packed into the
// storage as an upload of the same cloud is, so no point ever lies on the host.
#include <algorithm>

#include "cuda_check.h"
#include "device_cloud.h"
#include "device_common.cuh"
#include "engine/scene_points.h"
#include "engine/scenes.h"
#include "raster.h"

namespace pr::cuda {

namespace {

enum class SceneKind : int { kTerrain, kCube };

/// Points [first, first + n) of the scene into pos[0, n) and col[0, n).
__global__ void __launch_bounds__(kThreads)
    scene_points(SceneKind kind, scene::TerrainGrid grid, uint64_t seed, uint64_t first, uint64_t n,
                 Float3* __restrict__ pos, uint32_t* __restrict__ col) {
  const uint64_t k = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (k >= n) return;
  Float3 p;
  uint32_t c;
  if (kind == SceneKind::kTerrain)
    scene::terrain_point(grid, seed, first + k, p, c);
  else
    scene::cube_point(seed, first + k, p, c);
  pos[k] = p;
  col[k] = c;
}

/// Points a slice: a whole number of batches (so that its words and packed colors start on a
/// batch and a word), 64M points: 1 GB of temporaries.
constexpr uint64_t kSlice = uint64_t{1} << 26;
static_assert(kSlice % kCompactBatch == 0 && kSlice % kPointBatch == 0);

}  // namespace

bool DeviceCloud::generate_scene(const std::string& name, uint64_t n, uint64_t seed, bool compact,
                                 Bounds* world_bounds, std::string* error) {
  points_ = 0;
  loaded_ = false;
  origin_ = glm::dvec3(0.0);
  *world_bounds = Bounds{};
  const bool terrain = name == "terrain";
  if (!terrain && name != "cube") {
    if (error)
      *error = "scene '" + name + "' is made on the host only (the GPU makes terrain and cube)";
    return false;
  }
  if (!reserve(n, compact, error)) return false;
  if (compact) free_boxes();  // the compact form has boxes of its own
  scene::TerrainGrid grid;
  float* field = nullptr;  // heights, then forest values
  Float3* pos = nullptr;
  uint32_t* col = nullptr;
  const uint64_t slice = std::min(n, kSlice);
  std::string what = "cudaMalloc(scene slice)";
  cudaError_t e = cudaSuccess;
  if (n > 0 && compact) e = malloc_device(&pos, slice);
  if (e == cudaSuccess && n > 0) e = malloc_device(&col, slice);
  if (e == cudaSuccess && terrain && n > 0) {
    const TerrainField f = make_terrain_field(seed, n);
    const uint64_t cells = f.height.size();
    what = "terrain heightfield";
    e = malloc_device(&field, 2 * cells);
    if (e == cudaSuccess)
      e = cudaMemcpy(field, f.height.data(), cells * sizeof(float), cudaMemcpyHostToDevice);
    if (e == cudaSuccess)
      e = cudaMemcpy(field + cells, f.forest.data(), cells * sizeof(float), cudaMemcpyHostToDevice);
    grid = scene::TerrainGrid{field, field + cells, f.strata};
  }
  const SceneKind kind = terrain ? SceneKind::kTerrain : SceneKind::kCube;
  for (uint64_t first = 0; e == cudaSuccess && first < n; first += slice) {
    const uint64_t cnt = std::min(slice, n - first);
    Float3* out = compact ? pos : pos_ + first;
    what = "scene_points<<<>>>";
    scene_points<<<unsigned((cnt + kThreads - 1) / kThreads), kThreads, 0, stream_>>>(
        kind, grid, seed, first, cnt, out, col);
    e = cudaGetLastError();
    if (e == cudaSuccess && compact) {
      what = "encode_compact";
      e = encode_compact(pos, nullptr, cnt, words_ + first, batches_ + first / kCompactBatch,
                         stream_);
    }
    if (e == cudaSuccess) {
      what = "pack_rgb";
      e = pack_rgb(col, nullptr, cnt, colors_ + first / 4 * 3, stream_);
    }
  }
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize(scene)";
    e = cudaStreamSynchronize(stream_);
  }
  free_device(pos);
  free_device(col);
  free_device(field);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    free_points();
    if (error) *error = "CUDA: " + cuda_message(what.c_str(), e);
    return false;
  }
  if (!adopt_device_cloud(n, compact, nullptr, false, true, error)) return false;
  if (cloud_box_.lo[0] <= cloud_box_.hi[0]) {  // not empty_point_box()
    world_bounds->extend(glm::dvec3(cloud_box_.lo[0], cloud_box_.lo[1], cloud_box_.lo[2]));
    world_bounds->extend(glm::dvec3(cloud_box_.hi[0], cloud_box_.hi[1], cloud_box_.hi[2]));
  }
  return true;
}

}  // namespace pr::cuda
