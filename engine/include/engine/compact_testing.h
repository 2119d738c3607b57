// The compact form decoded back into a plain cloud: the tests' reference for compact frames.
#pragma once

#include "engine/compact.h"
#include "engine/point_cloud.h"

namespace pr {

/// The positions the compact form decodes to, in original order (invalid points as NaN), in a
/// cloud with the same origin and colors: what a plain renderer must draw to match a compact one.
PointCloud decode_compact(const CompactCloud& c, const PointCloud& source);

}  // namespace pr
