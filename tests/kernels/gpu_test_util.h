// Shared helpers for the GPU tests: get a CUDA renderer or skip with the reason, and compare a GPU
// image with the CPU renderer's pixel for pixel.
#pragma once

#include <gtest/gtest.h>

#include <cstdio>
#include <string>

#include "engine/cpu_renderer.h"
#include "engine/image.h"
#include "kernels/cuda_renderer.h"

namespace pr::test {

#define PR_REQUIRE_GPU(renderer)                                                    \
  std::string pr_why_;                                                              \
  if (!pr::cuda_available(&pr_why_)) GTEST_SKIP() << "no CUDA device: " << pr_why_; \
  auto renderer = pr::make_cuda_renderer(&pr_why_);                                 \
  ASSERT_TRUE(renderer) << pr_why_

/// Pixels that differ between two images of the same size (all of them when sizes differ), and a
/// description of the first difference.
inline size_t count_diff(const Image& a, const Image& b, std::string* first) {
  if (a.width != b.width || a.height != b.height || a.rgba.size() != b.rgba.size()) {
    if (first) *first = "sizes differ";
    return a.rgba.size() > b.rgba.size() ? a.rgba.size() : b.rgba.size();
  }
  size_t n = 0;
  for (size_t i = 0; i < a.rgba.size(); ++i) {
    if (a.rgba[i] == b.rgba[i]) continue;
    if (n == 0 && first) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "first at (%zu, %zu): cpu %08x gpu %08x", i % size_t(a.width),
                    i / size_t(a.width), a.rgba[i], b.rgba[i]);
      *first = buf;
    }
    ++n;
  }
  return n;
}

/// Pixels that are not the background.
inline size_t count_drawn(const Image& img, uint32_t background) {
  size_t n = 0;
  for (uint32_t c : img.rgba) n += c != background;
  return n;
}

}  // namespace pr::test
