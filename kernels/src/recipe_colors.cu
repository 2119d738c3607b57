// A color mode's colors computed on the device (engine/colorize.h's ColorRecipe): from the
// stored float positions (elevation) or from the cloud's values (intensity, a field, classes,
// returns, point sources, the file's colors), uploaded on first use and kept with the cloud,
// through the recipe's table and engine/color_ramp.h's arithmetic, the host's own. A switch of
// color mode then stages its colors in milliseconds instead of waiting for colorize() and the 3
// bytes a point of the upload; colorize() gives the host's copy of the same colors meanwhile.
#include <algorithm>
#include <cstring>

#include "cuda_check.h"
#include "device_cloud.h"
#include "device_common.cuh"
#include "engine/color_ramp.h"
#include "engine/parallel.h"
#include "raster.h"

namespace pr::cuda {

namespace {

/// What the kernel reads: the recipe's arithmetic, its table, the values or the positions (in the
/// cloud's order; `orig` maps a stored point to its original index when the storage is sorted:
/// null for the stored positions themselves).
struct RecipeArgs {
  ColorRecipe::Source source;
  int axis;
  double offset, scale;
  uint32_t steps;
  const uint32_t* table;
  const void* values;
  const Float3* pos;
  const uint32_t* orig;
  uint64_t n;
};

/// recipe_color() for stored point s, without the alpha (packed RGB).
__device__ __forceinline__ uint32_t stored_color(const RecipeArgs& a, uint64_t s) {
  using Source = ColorRecipe::Source;
  const uint64_t i = a.orig ? uint64_t(__ldg(a.orig + s)) : s;
  uint32_t c;
  switch (a.source) {
    case Source::kPosition: {
      const Float3 p = a.pos[i];
      const float v = a.axis == 0 ? p.x : a.axis == 1 ? p.y : p.z;
      c = __ldg(a.table + ramp_index(ramp_t(v, a.offset, a.scale), a.steps));
      break;
    }
    case Source::kFloat: {
      const float v = __ldg(static_cast<const float*>(a.values) + i);
      c = __ldg(a.table + ramp_index(ramp_t(v, a.offset, a.scale), a.steps));
      break;
    }
    case Source::kByte:
      c = __ldg(a.table + __ldg(static_cast<const uint8_t*>(a.values) + i));
      break;
    case Source::kRgba:  // the file's colors
      c = __ldg(static_cast<const uint32_t*>(a.values) + i);
      break;
    default:
      c = __ldg(a.table + __ldg(static_cast<const uint16_t*>(a.values) + i));
      break;
  }
  return c & 0xffffffu;
}

/// Four stored points a thread: their 12 bytes of packed RGB (load_rgb()'s layout) as three
/// words; points past the end give zero bytes (the padding), words past rgb_words(n) are not
/// written.
__global__ void __launch_bounds__(kThreads) recipe_rgb(RecipeArgs a, uint32_t* out) {
  const uint64_t q = uint64_t(blockIdx.x) * kThreads + threadIdx.x;
  const uint64_t s0 = 4 * q;
  if (s0 >= a.n) return;
  uint32_t c[4];
#pragma unroll
  for (int j = 0; j < 4; ++j) c[j] = s0 + j < a.n ? stored_color(a, s0 + j) : 0u;
  const uint64_t words = (3 * a.n + 3) / 4;  // rgb_words(n)
  uint32_t* w = out + 3 * q;
  w[0] = c[0] | (c[1] << 24);
  if (3 * q + 1 < words) w[1] = (c[1] >> 8) | (c[2] << 16);
  if (3 * q + 2 < words) w[2] = (c[2] >> 16) | (c[3] << 8);
}

size_t value_bytes(ColorRecipe::Source s) {
  using Source = ColorRecipe::Source;
  switch (s) {
    case Source::kFloat:
    case Source::kRgba:
      return 4;
    case Source::kShort:
      return 2;
    case Source::kByte:
      return 1;
    default:
      return 0;
  }
}

}  // namespace

void DeviceCloud::drop_values() {
  for (Values& v : values_) free_device(v.ptr);
  values_.clear();
  free_device(file_rgb_);
}

/// Moves the file's colors on show (colors_) to file_rgb_ when there is room for them as for
/// values, counting RGB's values as free: those are dropped then, since RGB's recipe copies the
/// packed colors back.
bool DeviceCloud::keep_file_colors() {
  const size_t packed = size_t(rgb_words(cap_points_)) * sizeof(uint32_t);
  auto rgb =
      std::find_if(values_.begin(), values_.end(), [](const Values& v) { return v.file_colors; });
  const size_t freed = rgb == values_.end() ? 0 : rgb->bytes;
  if (!room_for_values(packed > freed ? packed - freed : 0)) return false;
  if (rgb != values_.end()) {
    free_device(rgb->ptr);
    values_.erase(rgb);
  }
  file_rgb_ = colors_;
  colors_ = nullptr;
  return true;
}

/// The kept values and the file's kept colors.
size_t DeviceCloud::values_bytes() const {
  size_t b = file_rgb_ ? size_t(rgb_words(cap_points_)) * sizeof(uint32_t) : 0;
  for (const Values& v : values_) b += v.bytes;
  return b;
}

/// `bytes` from host memory `from` to `dst` on `stream` through the two pinned buffers, as
/// upload_rgb_from_host() does (a copy from pageable memory would hold up the frames' CUDA calls
/// on the other thread while it runs); waits for the last copy.
cudaError_t DeviceCloud::upload_bytes(const void* from, size_t bytes, void* dst,
                                      cudaStream_t stream, std::string* what) {
  if (cudaError_t e = pinned_buffers(what); e != cudaSuccess) return e;
  const uint8_t* src = static_cast<const uint8_t*>(from);
  int k = 0;
  for (size_t b = 0; b < bytes; b += kPinnedBytes, k ^= 1) {
    const size_t len = std::min(kPinnedBytes, bytes - b);
    *what = "cudaEventSynchronize(upload chunk)";  // its last copy has finished
    if (cudaError_t e = cudaEventSynchronize(pinned_free_[k]); e != cudaSuccess) return e;
    uint8_t* out = pinned_[k];
    parallel_for(len, [&](size_t lo, size_t hi) { std::memcpy(out + lo, src + b + lo, hi - lo); });
    *what = "cudaMemcpyAsync(upload chunk)";
    cudaError_t e =
        cudaMemcpyAsync(static_cast<uint8_t*>(dst) + b, out, len, cudaMemcpyHostToDevice, stream);
    if (e == cudaSuccess) e = cudaEventRecord(pinned_free_[k], stream);
    if (e != cudaSuccess) return e;
  }
  *what = "cudaStreamSynchronize(upload)";
  return cudaStreamSynchronize(stream);
}

/// Room for `bytes` more of values: under the limit (set_memory_limit()), and with the device
/// keeping free what the host's color path needs at a later switch (its staging array, 3 bytes a
/// point, and a sorted cloud's unpacked source, 4) and the frames' buffers (1 GiB). The values
/// are a cache; the cloud and its frames come first.
bool DeviceCloud::room_for_values(size_t bytes) const {
  if (memory_limit_ > 0 && memory_bytes() + bytes > memory_limit_) return false;
  size_t free_b = 0, total_b = 0;
  if (cudaMemGetInfo(&free_b, &total_b) != cudaSuccess) {
    (void)cudaGetLastError();
    return false;
  }
  const size_t keep = 7 * size_t(points_) + (size_t{1} << 30);
  return free_b >= bytes + keep;
}

/// The recipe's values on the device: kept from an earlier call, or uploaded now (in the cloud's
/// order) when there is room (room_for_values(); the other modes' values are dropped first when
/// there is not).
cudaError_t DeviceCloud::device_values(const PointCloud& cloud, const ColorRecipe& recipe,
                                       const void** out, std::string* what) {
  for (const Values& v : values_)
    if (v.name == recipe.attribute) {
      *out = v.ptr;
      return cudaSuccess;
    }
  Values v;
  v.name = recipe.attribute;
  v.bytes = value_bytes(recipe.source) * cloud.size();
  v.file_colors = recipe.source == ColorRecipe::Source::kRgba;
  *what = "cudaMalloc(" + recipe.attribute + ")";
  if (!room_for_values(v.bytes)) {
    drop_values();
    if (!room_for_values(v.bytes)) return cudaErrorMemoryAllocation;
  }
  cudaError_t e = cudaMalloc(&v.ptr, v.bytes);
  if (e == cudaSuccess) e = upload_bytes(recipe.values, v.bytes, v.ptr, stage_stream_, what);
  if (e != cudaSuccess) {
    free_device(v.ptr);
    return e;
  }
  *out = v.ptr;
  values_.push_back(std::move(v));
  return cudaSuccess;
}

cudaError_t DeviceCloud::position_recipe_colors(const ColorRecipe& recipe, const Float3* pos,
                                                const uint32_t* order, uint64_t n,
                                                std::string* what) {
  if (recipe.source != ColorRecipe::Source::kPosition || recipe.table.empty()) {
    *what = "a position's recipe";
    return cudaErrorInvalidValue;
  }
  if (n == 0) return cudaSuccess;
  cudaError_t e = cudaSuccess;
  if (recipe_table_cap_ < recipe.table.size()) {
    free_device(recipe_table_);
    recipe_table_cap_ = 0;
    *what = "cudaMalloc(recipe table)";
    e = malloc_device(&recipe_table_, recipe.table.size());
    if (e == cudaSuccess) recipe_table_cap_ = recipe.table.size();
  }
  if (e == cudaSuccess) {
    *what = "cudaMemcpyAsync(recipe table)";
    e = cudaMemcpyAsync(recipe_table_, recipe.table.data(), recipe.table.size() * 4,
                        cudaMemcpyHostToDevice, stream_);
  }
  if (e != cudaSuccess) return e;
  const RecipeArgs a{recipe.source, recipe.axis, recipe.offset, recipe.scale, recipe.steps,
                     recipe_table_, nullptr,     pos,           order,        n};
  *what = "recipe colors";
  const uint64_t quads = (n + 3) / 4;
  recipe_rgb<<<unsigned((quads + kThreads - 1) / kThreads), kThreads, 0, stream_>>>(a, colors_);
  return cudaGetLastError();
}

bool DeviceCloud::stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe,
                               std::string* error) {
  const bool from_values = recipe.source != ColorRecipe::Source::kPosition;
  if (!from_values && compact_) {
    if (error) *error = "stage_recipe: compact positions are not the cloud's own";
    return false;
  }
  // A sorted storage reads the values through the original index (made here once).
  if (from_values && sorted_ && !make_original_index(error)) return false;
  std::lock_guard<std::mutex> lock(stage_mutex_);
  drop_staged();
  const uint64_t n = points_;
  const bool tabled = recipe.source != ColorRecipe::Source::kRgba;
  if (!loaded_ || &cloud != cloud_ || cloud.size() != n || n == 0 ||
      (tabled && recipe.table.empty()) || (from_values && !recipe.values)) {
    if (error) *error = "stage_recipe: not the cloud uploaded last, or a recipe without values";
    return false;
  }
  RecipeArgs a{recipe.source,
               recipe.axis,
               recipe.offset,
               recipe.scale,
               recipe.steps,
               nullptr,
               nullptr,
               pos_,
               from_values && sorted_ ? orig_ : nullptr,
               n};
  std::string what;
  cudaError_t e = stage_buffer(&what);
  staged_file_ = recipe.source == ColorRecipe::Source::kRgba;
  if (e == cudaSuccess && staged_file_ && file_rgb_) {  // the file's colors kept: a copy
    what = "cudaMemcpyAsync(kept file colors)";
    e = cudaMemcpyAsync(staged_, file_rgb_, size_t(rgb_words(n)) * sizeof(uint32_t),
                        cudaMemcpyDeviceToDevice, stage_stream_);
    if (e == cudaSuccess) {
      what = "cudaStreamSynchronize(kept file colors)";
      e = cudaStreamSynchronize(stage_stream_);
    }
    return finish_staging(cloud, nullptr, e, what, error);
  }
  if (e == cudaSuccess && from_values) e = device_values(cloud, recipe, &a.values, &what);
  if (e == cudaSuccess && recipe_table_cap_ < recipe.table.size()) {
    free_device(recipe_table_);
    recipe_table_cap_ = 0;
    what = "cudaMalloc(recipe table)";
    e = malloc_device(&recipe_table_, recipe.table.size());
    if (e == cudaSuccess) recipe_table_cap_ = recipe.table.size();
  }
  if (e == cudaSuccess && tabled) {
    what = "cudaMemcpyAsync(recipe table)";
    e = cudaMemcpyAsync(recipe_table_, recipe.table.data(), recipe.table.size() * 4,
                        cudaMemcpyHostToDevice, stage_stream_);
    a.table = recipe_table_;
  }
  if (e == cudaSuccess) {
    what = "recipe colors";
    const uint64_t quads = (n + 3) / 4;
    recipe_rgb<<<unsigned((quads + kThreads - 1) / kThreads), kThreads, 0, stage_stream_>>>(
        a, staged_);
    e = cudaGetLastError();
  }
  if (e == cudaSuccess) {
    what = "cudaStreamSynchronize(recipe colors)";
    e = cudaStreamSynchronize(stage_stream_);
  }
  return finish_staging(cloud, nullptr, e, what, error);
}

}  // namespace pr::cuda
