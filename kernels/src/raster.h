// The rasterization kernels' launchers (kernels/src/raster.cu). Device pointers only: the host-side
// class in cuda_renderer.cu owns the buffers, the stream and the timing events.
#pragma once

#include <cstddef>
#include <cstdint>

#include <cuda_runtime_api.h>

#include "engine/point_cloud.h"
#include "engine/projection.h"

namespace pr::cuda {

/// Projects points [0, count) (source index subset_index(i, step), or i when step == 1 << 32)
/// and depth-tests their keys into `keys` (W*H, kEmptyKey where empty) with atomicMin, after a
/// plain load that skips the atomic when a nearer point is already there (early depth test).
/// Point size > 1 splats splat_rect() squares, as the CPU does.
void launch_raster(const ProjParams& p, const Float3* pos, uint64_t count, uint64_t step,
                   unsigned long long* keys, cudaStream_t stream);

/// Turns the visibility buffer into RGBA8 (`colors[key_index]` or `background`) and, when `depth`
/// is not null, camera-space depth (+inf where empty). Resets every key to kEmptyKey on the way,
/// so the next frame needs no separate clear.
void launch_resolve(unsigned long long* keys, size_t pixels, const uint32_t* colors,
                    uint32_t background, uint32_t* rgba, float* depth, cudaStream_t stream);

}  // namespace pr::cuda
