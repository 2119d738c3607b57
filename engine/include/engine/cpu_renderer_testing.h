// What the tests read of the CPU renderer's last frame beyond its public interface.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/cpu_renderer.h"

namespace pr {

struct CpuRendererTesting {
  /// The Hi-Z that the last frame running occlusion culling built from its first pass's keys
  /// (HizView's layout, engine/culling.h; empty before).
  static const std::vector<uint32_t>& hiz(const CpuRenderer& r) { return r.hiz_; }
  /// Whether the last frame binned its points (sort-middle binning, RenderOptions::binning).
  static bool binned(const CpuRenderer& r) { return r.binned_; }
};

}  // namespace pr
