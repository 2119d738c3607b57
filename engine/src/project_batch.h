// The CPU rasterizer's inner loop: project a batch of points to pixel indices, vectorized.
#pragma once

#include <cstddef>
#include <cstdint>

#include "engine/compact.h"
#include "engine/projection.h"

namespace pr {

/// Projects n points (xyz: 3n floats) with exactly project() + to_pixel(), writing each point's
/// pixel index (y * width + x) or ~0u when it draws nothing, and its depth. Branch-free, so the
/// compiler vectorizes it; on x86-64 it is compiled for AVX-512, AVX2 and SSE4 and the best one
/// the CPU has is picked at load time. Every variant performs the same IEEE operations (no FMA
/// contraction), so all give the same result as the scalar code and as the GPU.
void project_batch(const ProjParams& p, const float* xyz, size_t n, uint32_t* pix, float* depth);

/// project_batch() for n compact words of one batch with forms `f`: exactly compact_to_pixel()
/// (engine/compact.h) for each, its pixel index or ~0u, and its depth.
void compact_project_batch(const ProjParams& p, const CompactForms& f, const uint32_t* words,
                           size_t n, uint32_t* pix, float* depth);

}  // namespace pr
