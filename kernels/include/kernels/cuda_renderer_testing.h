// What the tests and the GPU benchmarks read back from a CUDA renderer (make_cuda_renderer()),
// beside the product's interface: the device's compact words, batch boxes and Hi-Z, and room for
// a cloud asked for directly. Each copies from the device and waits for it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/compact.h"
#include "engine/culling.h"
#include "kernels/cuda_renderer.h"

namespace pr {

/// Copies the device's compact form of the current cloud (words and batch boxes; `orig` left
/// empty) back to the host. False with a message when the cloud is not stored in compact form or
/// a copy fails.
bool download_compact(const CudaRenderer& renderer, CompactCloud* out, std::string* error);

/// The Hi-Z the last occlusion-culled frame built from its first pass (engine/culling.h's HizView
/// layout) and its image size.
bool download_hiz(const CudaRenderer& renderer, std::vector<uint32_t>* out, int* width, int* height,
                  std::string* error);

/// Copies the boxes of the current (plain) cloud's batches to the host. False with a message when
/// there are none (compact positions, no room for them, no cloud).
bool download_boxes(const CudaRenderer& renderer, PodVector<PointBox>* out, std::string* error);

/// Makes room in device memory for a cloud of `points` points (15 bytes each: float xyz and RGB,
/// points being drawn opaque; 7 in compact form, as options().compact asks), as set_cloud() does.
/// False with a message naming the sizes when the device cannot hold them (or they are over
/// set_memory_limit()'s limit); the renderer then has no cloud (draws the background) and keeps
/// working.
bool reserve_points(CudaRenderer& renderer, uint64_t points, std::string* error);

}  // namespace pr
