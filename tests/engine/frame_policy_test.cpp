// The frame policy shared by the CPU and the GPU renderer (engine/frame_policy.h): occlusion
// culling's choice across frames, the CPU's binning rule, and when a cloud is stored in Morton
// order.
#include "engine/frame_policy.h"

#include <gtest/gtest.h>

#include <vector>

#include "engine/morton.h"
#include "engine/scenes.h"

namespace pr {
namespace {

constexpr uint64_t kBig = uint64_t{1} << 26;  // stored points above both rules' minimum

/// The choices of `frames` frames in a row (each frame that runs reports nothing).
std::vector<bool> choices(OcclusionPolicy& p, Toggle mode, uint64_t points, int frames) {
  std::vector<bool> out;
  for (int i = 0; i < frames; ++i) out.push_back(p.choose_for_frame(mode, points));
  return out;
}

TEST(OcclusionPolicy, OffNeverAndOnAlwaysWhateverTheCounts) {
  for (const OcclusionRule& rule : {kCpuOcclusion, kGpuOcclusion}) {
    OcclusionPolicy p(rule);
    EXPECT_FALSE(p.choose_for_frame(Toggle::kOff, kBig)) << "off, nothing known yet";
    EXPECT_TRUE(p.choose_for_frame(Toggle::kOn, 10)) << "on, a small cloud";
    p.report(0, 1000);
    EXPECT_TRUE(p.choose_for_frame(Toggle::kOn, kBig)) << "on, nothing hidden";
    p.report(1000, 1000);
    EXPECT_FALSE(p.choose_for_frame(Toggle::kOff, kBig)) << "off, everything hidden";
  }
}

TEST(OcclusionPolicy, AutoLeavesCloudsUnderTheMinimumAlone) {
  for (const OcclusionRule& rule : {kCpuOcclusion, kGpuOcclusion}) {
    OcclusionPolicy p(rule);
    for (int i = 0; i < 40; ++i)
      EXPECT_FALSE(p.choose_for_frame(Toggle::kAuto, rule.min_points - 1)) << "frame " << i;
    EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, rule.min_points)) << "nothing known: it runs";
  }
  EXPECT_EQ(kCpuOcclusion.min_points, uint64_t{1} << 25);
  EXPECT_EQ(kGpuOcclusion.min_points, uint64_t{1} << 24);
}

TEST(OcclusionPolicy, AutoRunsWhileTheCpuShareOfHiddenBatchesHolds) {
  // The CPU's rule: at least one batch hidden and at least an eighth of the batches in view.
  OcclusionPolicy p(kCpuOcclusion);
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig)) << "the first frame tries it";
  p.report(13, 100);  // 104 >= 100
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
  p.report(12, 96);  // exactly an eighth
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
  p.report(12, 100);  // 96 < 100
  EXPECT_FALSE(p.choose_for_frame(Toggle::kAuto, kBig));
  p.reset();
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig)) << "a new cloud tries it again";
  p.report(0, 0);  // nothing in view: no batch hidden is not enough
  EXPECT_FALSE(p.choose_for_frame(Toggle::kAuto, kBig));
}

TEST(OcclusionPolicy, AutoRunsWhileTheGpuCountOfHiddenBatchesHolds) {
  // The GPU's rule: 4096 batches hidden, whatever the batches in view.
  OcclusionPolicy p(kGpuOcclusion);
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
  p.report(4096, 0);
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
  p.report(4096, 1'000'000);
  EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig)) << "no share in the GPU's rule";
  p.report(4095, 4095);
  EXPECT_FALSE(p.choose_for_frame(Toggle::kAuto, kBig));
}

TEST(OcclusionPolicy, AutoProbesEveryProbeFramesThFrame) {
  for (const OcclusionRule& rule : {kCpuOcclusion, kGpuOcclusion}) {
    ASSERT_EQ(rule.probe_frames, 16u);
    OcclusionPolicy p(rule);
    EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
    p.report(0, 1000);
    // Frames 1 - 15 plain, the 16th probes; a probe that finds too little keeps the rhythm.
    std::vector<bool> want(16, false);
    want[15] = true;
    EXPECT_EQ(choices(p, Toggle::kAuto, kBig, 16), want);
    p.report(0, 1000);
    EXPECT_EQ(choices(p, Toggle::kAuto, kBig, 16), want);
    // A small frame in between (under the minimum) is not counted.
    EXPECT_EQ(choices(p, Toggle::kAuto, kBig, 15), std::vector<bool>(15, false));
    EXPECT_FALSE(p.choose_for_frame(Toggle::kAuto, rule.min_points - 1));
    EXPECT_TRUE(p.choose_for_frame(Toggle::kAuto, kBig));
    // A probe that finds enough: every frame runs it, and the count starts again afterwards.
    p.report(100'000, 100'000);
    EXPECT_EQ(choices(p, Toggle::kAuto, kBig, 3), std::vector<bool>(3, true));
    p.report(0, 100'000);
    EXPECT_EQ(choices(p, Toggle::kAuto, kBig, 16), want);
  }
}

TEST(BinFrame, SplatsNeverAndTheSwitchDecides) {
  EXPECT_FALSE(bin_frame(Toggle::kOn, true, 1'000'000, 1'000'000, 1'000'000));
  EXPECT_FALSE(bin_frame(Toggle::kAuto, true, 1'000'000, 1'000'000, 1'000'000));
  EXPECT_TRUE(bin_frame(Toggle::kOn, false, 1, 1'000'000, 0));
  EXPECT_FALSE(bin_frame(Toggle::kOff, false, 1'000'000, 1'000'000, 1'000'000));
}

TEST(BinFrame, AutoTakesFramesOfAtMostTwoPointsAPixelThatDrewEnough) {
  const uint64_t unknown = ~uint64_t{0};
  const size_t pixels = 76'800;
  EXPECT_TRUE(bin_frame(Toggle::kAuto, false, 2 * pixels, pixels, unknown));
  EXPECT_FALSE(bin_frame(Toggle::kAuto, false, 2 * pixels + 1, pixels, unknown));
  EXPECT_TRUE(bin_frame(Toggle::kAuto, false, kMinBinnedPoints, pixels, unknown));
  EXPECT_FALSE(bin_frame(Toggle::kAuto, false, kMinBinnedPoints - 1, pixels, unknown));
  // The last frame's drawn points decide, when fewer than this frame's.
  EXPECT_TRUE(bin_frame(Toggle::kAuto, false, 100'000, pixels, kMinBinnedPoints));
  EXPECT_FALSE(bin_frame(Toggle::kAuto, false, 100'000, pixels, kMinBinnedPoints - 1));
  EXPECT_FALSE(bin_frame(Toggle::kAuto, false, 0, pixels, unknown));
  EXPECT_EQ(kMaxBinnedPointsPerPixel, 2u);
  EXPECT_EQ(kMinBinnedPoints, uint64_t{1} << 15);
}

TEST(WantsSpatialSort, OffNeverOnAlwaysAutoForIncoherentClouds) {
  const PointCloud random = make_scene("cube", 50'000);  // uniform random order
  PointCloud sorted = random;
  apply_order(sorted, morton_order(sorted));
  const PointCloud terrain = make_scene("terrain", 50'000);  // row by row
  for (const PointCloud* c : {&random, static_cast<const PointCloud*>(&sorted), &terrain}) {
    EXPECT_FALSE(wants_spatial_sort(Toggle::kOff, *c, c->local_bounds()));
    EXPECT_TRUE(wants_spatial_sort(Toggle::kOn, *c, c->local_bounds()));
  }
  EXPECT_TRUE(wants_spatial_sort(Toggle::kAuto, random, random.local_bounds()));
  EXPECT_FALSE(wants_spatial_sort(Toggle::kAuto, sorted, sorted.local_bounds()));
  EXPECT_FALSE(wants_spatial_sort(Toggle::kAuto, terrain, terrain.local_bounds()));
  // Fewer than two points: nothing to order.
  const PointCloud one = make_scene("cube", 1);
  EXPECT_FALSE(wants_spatial_sort(Toggle::kOn, one, one.local_bounds()));
  EXPECT_FALSE(wants_spatial_sort(Toggle::kOn, PointCloud{}, Bounds{}));
}

}  // namespace
}  // namespace pr
