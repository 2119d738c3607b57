// The viewer's color job (app/viewer/color_job.h) on its own thread: a renderer that computes a
// mode's colors from their recipe gets it before colorize() runs and the job says so at once
// (take_recipe_ready()), the host's colors following; a renderer that cannot gets the host's
// colors staged instead; RGB computes nothing (its recipe copies the file's colors); the array
// handed in is filled in place.
#include "viewer/color_job.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "attribute_cloud.h"
#include "engine/colorize.h"

namespace pr {
namespace {

/// Waits for the job (at most 30 s) and returns its result.
ColorJob::Result finish(ColorJob& job) {
  ColorJob::Result r;
  for (int i = 0; i < 3000 && !job.take(r); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  return r;
}

TEST(ColorJob, ARecipeIsStagedFirstAndTheHostsColorsFollow) {
  const PointCloud cloud = test::attribute_cloud(50'000, 4);
  const Bounds bounds = cloud.world_bounds();
  ColorSettings s;
  s.mode = ColorMode::kIntensity;
  s.gamma = 1.7;
  std::atomic<bool> release{false}, staged_called{false};
  PodVector<uint32_t> from_recipe(cloud.size());
  ColorJob job;
  ASSERT_TRUE(job.start(
      &cloud, s, bounds, [&](const PointCloud&, const uint32_t*) { return staged_called = true; },
      {},
      [&](const PointCloud& c, const ColorRecipe& r) {
        for (size_t i = 0; i < c.size(); ++i) from_recipe[i] = recipe_color(r, c, i);
        while (!release) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        return true;
      }));
  EXPECT_FALSE(job.start(&cloud, s, bounds));  // one job at a time
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(job.take_recipe_ready());  // the recipe's renderer has not staged them yet
  release = true;
  ColorJob::Result r = finish(job);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(r.recipe_staged);
  EXPECT_FALSE(staged_called);  // the renderer has the colors already
  EXPECT_TRUE(job.take_recipe_ready());
  EXPECT_FALSE(job.take_recipe_ready());  // said once
  EXPECT_EQ(r.colors, from_recipe);       // the host's copy is the recipe's colors
  EXPECT_TRUE(r.legend.continuous);
}

TEST(ColorJob, WithoutARecipeTheHostsColorsAreStagedInTheArrayHandedIn) {
  const PointCloud cloud = test::attribute_cloud(20'000, 6);
  const Bounds bounds = cloud.world_bounds();
  ColorSettings s;
  s.mode = ColorMode::kClassification;
  PodVector<uint32_t> reuse(cloud.size());
  const uint32_t* reused = reuse.data();
  const uint32_t* staged = nullptr;
  bool recipe_tried = false;
  ColorJob job;
  ASSERT_TRUE(job.start(
      &cloud, s, bounds,
      [&](const PointCloud&, const uint32_t* colors) {
        staged = colors;
        return true;
      },
      std::move(reuse),
      [&](const PointCloud&, const ColorRecipe&) {
        recipe_tried = true;
        return false;  // a renderer that draws the host's colors
      }));
  ColorJob::Result r = finish(job);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_TRUE(recipe_tried);
  EXPECT_FALSE(r.recipe_staged);
  EXPECT_FALSE(job.take_recipe_ready());
  EXPECT_TRUE(r.staged);
  EXPECT_EQ(r.colors.data(), reused);  // filled in place
  EXPECT_EQ(staged, reused);
  ASSERT_EQ(r.colors.size(), cloud.size());
  for (size_t i = 0; i < cloud.size(); i += 97)
    EXPECT_EQ(r.colors[i], class_color(cloud.classification[i])) << i;

  // RGB: nothing computed; its recipe is the file's colors, or they are staged from the host.
  s.mode = ColorMode::kRgb;
  for (bool gpu_takes : {false, true}) {
    recipe_tried = false;
    staged = nullptr;
    ColorRecipe seen;
    ASSERT_TRUE(job.start(
        &cloud, s, bounds,
        [&](const PointCloud&, const uint32_t* colors) {
          staged = colors;
          return true;
        },
        {},
        [&](const PointCloud&, const ColorRecipe& rc) {
          recipe_tried = true;
          seen = rc;
          return gpu_takes;
        }));
    r = finish(job);
    ASSERT_TRUE(r.ok) << gpu_takes;
    EXPECT_TRUE(recipe_tried) << gpu_takes;
    EXPECT_EQ(seen.source, ColorRecipe::Source::kRgba) << gpu_takes;
    EXPECT_EQ(seen.values, cloud.source_colors().data()) << gpu_takes;
    EXPECT_TRUE(r.colors.empty()) << gpu_takes;
    EXPECT_EQ(r.recipe_staged, gpu_takes);
    EXPECT_EQ(job.take_recipe_ready(), gpu_takes);
    EXPECT_EQ(staged, gpu_takes ? nullptr : cloud.source_colors().data());
  }
}

}  // namespace
}  // namespace pr
