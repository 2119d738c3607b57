// The Hi-Z of a rendered image's depths, for the renderers' occlusion-culling tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/culling.h"
#include "engine/image.h"
#include "engine/projection.h"

namespace pr::test {

/// build_hiz() of the keys whose depths are `img`'s (rendered with want_depth; +inf where empty):
/// the Hi-Z holds only the keys' depth words, so their color words do not matter.
inline std::vector<uint32_t> hiz_of_depths(const Image& img) {
  std::vector<uint64_t> keys(img.depth.size());
  for (size_t i = 0; i < keys.size(); ++i)
    keys[i] = std::isinf(img.depth[i]) ? kEmptyKey : uint64_t(float_bits(img.depth[i])) << 32;
  HizView v;
  v.width = img.width;
  v.height = img.height;
  std::vector<uint32_t> words(v.total_words());
  build_hiz(keys.data(), img.width, img.height, words.data());
  return words;
}

}  // namespace pr::test
