// Procedural scenes, generated in parallel and deterministically: point i depends only on
// (seed, i), so the cloud is the same whatever the thread count.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/point_cloud.h"
#include "engine/progress.h"

namespace pr {

struct SceneInfo {
  std::string name;
  std::string description;
};

/// The scenes known: "terrain" (the default: a colored mountain landscape with a lake, forests and
/// a city of towers) and "cube" (uniform random points in [-50, 50]^3, the benchmark of the
/// NumPy/CuPy perspective projection the project grew from), "galaxy" (a spiral galaxy).
const std::vector<SceneInfo>& scene_list();
bool is_scene(const std::string& name);
constexpr const char* kDefaultScene = "terrain";

/// Generates `n` points of scene `name`. Throws std::invalid_argument for an unknown name.
/// With `progress`, reports the fraction done and stops early when its `cancel` is set: the
/// result is then an empty cloud (the caller sees `cancel`).
PointCloud make_scene(const std::string& name, uint64_t n, uint64_t seed = 1,
                      LoadProgress* progress = nullptr);
/// An even subset of `m` of the `n` points of scene `name` (all of them when m >= n): point j is
/// the whole scene's point floor(j n / m), the same floats and color, so the host can hold a
/// stand-in of a scene made on the GPU. Throws std::invalid_argument for an unknown name or
/// m >= 2^32; `progress` as make_scene()'s.
PointCloud make_scene_subset(const std::string& name, uint64_t n, uint64_t m, uint64_t seed = 1,
                             LoadProgress* progress = nullptr);

/// The terrain's heightfield for `seed`, sampled once on the host (engine/scene_points.h's
/// TerrainGrid reads it: 2049 x 2049 heights and forest values, 34 MB), and the side of the grid
/// of strata its `n` ground points are spread over.
struct TerrainField {
  std::vector<float> height, forest;
  uint64_t strata = 1;
};
TerrainField make_terrain_field(uint64_t seed, uint64_t n);
/// ceil(sqrt(n)), at least 1: the side of the terrain's grid of strata for n points.
uint64_t terrain_strata(uint64_t n);

/// A good starting camera for the scene (for "cube": at (0, 0, 10) inside it, looking along +z,
/// focus 5).
Camera scene_camera(const std::string& name, const PointCloud& cloud);

}  // namespace pr
