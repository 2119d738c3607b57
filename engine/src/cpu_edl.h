// The CPU renderer's resolve with eye-dome lighting (engine/edl.h).
#pragma once

#include <cstdint>

#include "engine/edl.h"

namespace pr {

/// The visibility buffer to colors with EDL, then cleared. `keys` is width x height (kEmptyKey
/// where empty), `dirty` a flag a kTile x kTile tile (tiles_x a row): a tile not flagged holds
/// only empty keys, so its pixels are background without a read. Every pixel's color (and depth,
/// when `depth` is not null: +inf where empty) is written from the keys as they are, and only then
/// are the flagged tiles' keys reset to empty and their flags cleared, since a pixel's EDL reads
/// its neighbours' keys. `acc` (or null): the high-quality splats' accumulators (two words a
/// pixel, engine/hq_splat.h), which give the colors that EDL shades, reset to zero with the keys.
void resolve_edl(uint64_t* keys, uint8_t* dirty, int width, int height, int tile, int tiles_x,
                 int tiles_y, const EdlParams& e, uint32_t background, uint64_t* acc,
                 uint32_t* rgba, float* depth, unsigned threads);

}  // namespace pr
