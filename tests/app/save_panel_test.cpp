// The viewer's Save section without a window (app/viewer/save_panel.cpp): the path it suggests,
// the job on a real cloud (written, read back, cancelled), and the line a save leaves.
#include "viewer/save_panel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/io/io.h"
#include "engine/scenes.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_save_panel_test_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

pr::SaveJob::Result wait_for(pr::SaveJob& job) {
  pr::SaveJob::Result r;
  while (!job.take(r)) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  return r;
}

}  // namespace

TEST(SavePanel, SuggestsACopcFileBesideTheFirstFile) {
  EXPECT_EQ(pr::suggested_save_path("/data/tile.las", "", "/home"), "/data/tile.copc.laz");
  EXPECT_EQ(pr::suggested_save_path("/data/a.b.ply", "", "/home"), "/data/a.b.copc.laz");
  EXPECT_EQ(pr::suggested_save_path("/data/x.copc.laz", "", "/home"), "/data/x-copy.copc.laz");
  EXPECT_EQ(pr::suggested_save_path("/data/X.COPC.LAZ", "", "/home"), "/data/X.copc.laz");
  EXPECT_EQ(pr::suggested_save_path("", "terrain", "/home"), "/home/terrain.copc.laz");
  EXPECT_EQ(pr::suggested_save_path("", "", "/home"), "/home/cloud.copc.laz");
}

TEST(SavePanel, TheJobWritesTheCloudAndSaysSo) {
  const fs::path d = scratch("write");
  auto cloud = std::make_shared<pr::PointCloud>(pr::make_scene("terrain", 20'000));
  pr::SaveJob job;
  const std::string path = (d / "terrain.laz").string();
  ASSERT_TRUE(job.start(cloud, path));
  EXPECT_TRUE(job.busy());
  EXPECT_TRUE(job.reads(cloud.get()));
  EXPECT_FALSE(job.start(cloud, (d / "again.laz").string()));  // one save at a time
  const pr::SaveJob::Result r = wait_for(job);
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_FALSE(job.busy());
  EXPECT_FALSE(job.reads(cloud.get()));
  EXPECT_EQ(r.written.points, 20'000u);
  EXPECT_EQ(r.written.bytes, fs::file_size(path));
  EXPECT_EQ(pr::save_message(r).rfind("saved " + path + ": 20000 points, ", 0), 0u)
      << pr::save_message(r);
  pr::PointCloud back;
  std::string err;
  ASSERT_TRUE(pr::load_point_cloud(path, back, nullptr, &err)) << err;
  EXPECT_EQ(back.size(), cloud->size());
  fs::remove_all(d);
}

TEST(SavePanel, ACancelledOrFailedSaveSaysWhyAndLeavesNothing) {
  const fs::path d = scratch("cancel");
  auto cloud = std::make_shared<pr::PointCloud>(pr::make_scene("terrain", 200'000));
  pr::SaveJob job;
  const std::string path = (d / "terrain.copc.laz").string();
  ASSERT_TRUE(job.start(cloud, path));
  job.cancel();
  pr::SaveJob::Result r = wait_for(job);
  EXPECT_FALSE(r.ok);
  EXPECT_TRUE(r.cancelled);
  EXPECT_EQ(pr::save_message(r), "save cancelled: " + path + " not written");
  EXPECT_TRUE(fs::is_empty(d));
  // A folder that does not exist: the converter's one line, naming the file.
  const std::string nowhere = (d / "no" / "such" / "x.las").string();
  ASSERT_TRUE(job.start(cloud, nowhere));
  r = wait_for(job);
  EXPECT_FALSE(r.ok);
  EXPECT_FALSE(r.cancelled);
  EXPECT_EQ(pr::save_message(r).rfind("save: ", 0), 0u);
  EXPECT_NE(pr::save_message(r).find("x.las"), std::string::npos) << pr::save_message(r);
  fs::remove_all(d);
}
