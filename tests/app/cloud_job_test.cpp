// The viewer's background loading: what it reads next of files read in part
// (read_more_options()), and where it makes a scene.
#include "viewer/cloud_job.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <thread>
#include <vector>

#include "engine/scenes.h"
#include "scene_home.h"

// What "Read more" reads: a COPC file one level deeper, a file that filled its point budget twice
// the points, "Read everything" all; nothing for files read whole.
TEST(ReadMore, DeeperCopcTwiceTheBudgetOrEverything) {
  pr::FileInfo copc;
  copc.copc.present = true;
  copc.copc.levels.resize(4);
  copc.copc.levels[0].read = copc.copc.levels[1].read = true;
  pr::LoadOptions now, next;
  now.max_depth = 1;
  std::string what;
  ASSERT_TRUE(pr::read_more_options({copc}, now, false, &next, &what));
  EXPECT_EQ(next.max_depth, 2);
  EXPECT_EQ(next.max_points, 0u);
  EXPECT_EQ(what, "COPC: 2 of 4 octree levels read");
  ASSERT_TRUE(pr::read_more_options({copc}, now, true, &next, nullptr));
  EXPECT_EQ(next.max_depth, -1);
  EXPECT_EQ(next.max_points, 0u);
  for (auto& l : copc.copc.levels) l.read = true;
  EXPECT_FALSE(pr::read_more_options({copc}, pr::LoadOptions{}, false, &next, nullptr));

  pr::FileInfo las;  // 1000 points kept of a budget of 1000: the file may hold more
  las.points = 1000;
  now = pr::LoadOptions{};
  now.max_points = 1000;
  ASSERT_TRUE(pr::read_more_options({las, copc}, now, false, &next, &what));
  EXPECT_EQ(next.max_points, 2000u);
  EXPECT_NE(what.find("even subset"), std::string::npos) << what;
  las.points = 999;  // under its budget: read whole
  EXPECT_FALSE(pr::read_more_options({las}, now, false, &next, nullptr));
  EXPECT_FALSE(pr::read_more_options({las}, pr::LoadOptions{}, true, &next, nullptr));
}

namespace {

pr::CloudJob::Result finish(pr::CloudJob& job) {
  pr::CloudJob::Result r;
  while (!job.take(r)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return r;
}

}  // namespace

// A scene the host can hold is made whole; in GPU mode, one beyond the host renderers' 32-bit
// index is the GPU's to make: the job makes the host's even subset of it, in the scene's own
// colors (an elevation asked for is said to be refused); in CPU mode it fails with the reason.
TEST(CloudJob, SceneOnTheHostOrItsSubsetForTheGpu) {
  pr::CloudJob job;
  ASSERT_TRUE(job.start_scene("cube", 50'000, true));
  pr::CloudJob::Result small = finish(job);
  ASSERT_TRUE(small.ok) << small.error;
  EXPECT_EQ(small.device_points, 0u);
  EXPECT_EQ(small.cloud->size(), 50'000u);

  const uint64_t n = uint64_t{1} << 32;
  pr::ColorRequest elevation;
  elevation.use_default = false;
  elevation.settings.mode = pr::ColorMode::kElevation;
  job.set_color_request(elevation);
  ASSERT_TRUE(job.start_scene("cube", n, true));
  pr::CloudJob::Result device = finish(job);
  ASSERT_TRUE(device.ok) << device.error;
  EXPECT_EQ(device.device_points, n);
  EXPECT_EQ(device.scene, "cube");
  ASSERT_EQ(device.cloud->size(), pr::kDeviceSceneHostPoints);
  EXPECT_EQ(device.color.mode, pr::ColorMode::kRgb);
  EXPECT_EQ(device.color_note,
            "color mode elevation: a scene made on the GPU keeps its own colors");
  // The subset is the scene's points at even indices (sorted along a Morton curve: the cube is
  // random), the colors its own: the same multiset as make_scene_subset()'s.
  const pr::PointCloud expect = pr::make_scene_subset("cube", n, pr::kDeviceSceneHostPoints);
  std::vector<uint32_t> a(device.cloud->colors.begin(), device.cloud->colors.end());
  std::vector<uint32_t> b(expect.colors.begin(), expect.colors.end());
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_TRUE(a == b);

  ASSERT_TRUE(job.start_scene("cube", n, false));
  pr::CloudJob::Result refused = finish(job);
  EXPECT_FALSE(refused.ok);
  // Why the host cannot (its memory or the index, whichever comes first here), and what can.
  EXPECT_EQ(refused.error.rfind("4294967296 points of scene cube: the host", 0), 0u)
      << refused.error;
  const std::string gpu = "; GPU mode (--mode gpu) makes cube clouds on the device";
  ASSERT_GT(refused.error.size(), gpu.size());
  EXPECT_EQ(refused.error.substr(refused.error.size() - gpu.size()), gpu) << refused.error;
  ASSERT_TRUE(job.start_scene("galaxy", n, true));
  refused = finish(job);
  EXPECT_FALSE(refused.ok);
  EXPECT_NE(refused.error.find("GPU mode makes only terrain and cube"), std::string::npos)
      << refused.error;
}
