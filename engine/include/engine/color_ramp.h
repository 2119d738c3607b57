// The arithmetic of a continuous color mode, on the host (engine/src/colorize.cpp) and on the
// device (kernels/src/recipe_colors.cu) alike: a value v maps to t = (v + offset) * scale in
// double precision (offset = -lo, or for elevation the origin's coordinate - lo; scale =
// 1 / (hi - lo)), and t to the nearest of steps + 1 entries of a color table (0 below the range
// and for NaN, `steps` above it). Two IEEE operations and a truncation, no contraction (host
// -ffp-contract=off, nvcc -fmad=false): both sides compute the same entry.
#pragma once

#include <cstdint>

#include "engine/projection.h"  // PR_HD

namespace pr {

PR_HD double ramp_t(float v, double offset, double scale) {
  return (double(v) + offset) * scale;
}

PR_HD uint32_t ramp_index(double t, uint32_t steps) {
  if (!(t > 0.0)) return 0;  // NaN too
  if (t >= 1.0) return steps;
  return uint32_t(t * double(steps) + 0.5);
}

}  // namespace pr
