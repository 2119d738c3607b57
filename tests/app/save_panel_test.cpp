// The viewer's Save section without a window (app/viewer/save_panel.cpp): the path it suggests,
// the job on a real cloud (written, read back, cancelled), and the line a save leaves.
#include "viewer/save_panel.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "engine/clip_polygon.h"
#include "engine/io/io.h"
#include "engine/scenes.h"
#include "nginx_server.h"

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

/// A clip box around the bounds, a fifth as wide along x: a selection of part of the file.
pr::Clip middle_fifth(const pr::Bounds& b) {
  pr::Clip clip;
  pr::ClipBox box = pr::clip_box_around(b.min, b.max);
  box.size.x *= 0.2;
  clip.boxes.push_back(box);
  return clip;
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

// A streamed survey's files converted by the job: with a selection, only what it keeps, the
// nodes outside it not read; Cancel leaves nothing.
TEST(SavePanel, TheJobConvertsFilesWithinASelectionAndCancels) {
  const std::string copc = std::string(PR_TESTDATA_DIR) + "/laz/lone-star.copc.laz";
  ASSERT_TRUE(fs::exists(copc)) << copc << " is absent: tests/data belongs to the checkout";
  const fs::path d = scratch("files");
  pr::PointCloud whole;
  std::string err;
  ASSERT_TRUE(pr::load_point_cloud(copc, whole, nullptr, &err)) << err;
  const pr::Bounds b = whole.world_bounds();
  const pr::Clip clip = middle_fifth(b);
  pr::ClipPolygon poly;
  const glm::dvec3 c = b.center(), e = b.max - b.min;
  poly.vertices = {{c.x - 0.1 * e.x, c.y - 0.1 * e.y},
                   {c.x + 0.1 * e.x, c.y - 0.1 * e.y},
                   {c.x, c.y + 0.1 * e.y}};
  const pr::Clip no_clip;
  for (const pr::ExportSelection sel :
       {pr::ExportSelection{&clip, nullptr}, pr::ExportSelection{&no_clip, &poly}}) {
    pr::ConvertOptions options;
    sel.apply(&options);
    ASSERT_TRUE(options.keep && options.keep_box);
    pr::SaveJob job;
    const std::string path = (d / "part.laz").string();
    ASSERT_TRUE(job.start_files({copc}, path, options));
    EXPECT_FALSE(job.reads(&whole));
    const pr::SaveJob::Result r = wait_for(job);
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_GT(r.written.points_skipped, 0u);
    EXPECT_NE(pr::save_message(r).find("not read"), std::string::npos) << pr::save_message(r);
    pr::PointCloud back;
    ASSERT_TRUE(pr::load_point_cloud(path, back, nullptr, &err)) << err;
    EXPECT_EQ(back.size(), r.written.points);
    EXPECT_GT(back.size(), 100u);
    EXPECT_LT(back.size(), whole.size());
    // Every point written is one the selection keeps (its world position within a rounding step).
    const auto keep = pr::export_keep(*sel.clip, sel.polygon);
    size_t kept = 0;
    for (size_t i = 0; i < whole.size(); ++i)
      kept += keep(whole.origin +
                   glm::dvec3(whole.positions[i].x, whole.positions[i].y, whole.positions[i].z));
    EXPECT_NEAR(double(back.size()), double(kept), 0.01 * double(kept));
    fs::remove(path);
  }
  // Cancelled: no file.
  pr::SaveJob job;
  const std::string path = (d / "all.copc.laz").string();
  ASSERT_TRUE(job.start_files({copc}, path));
  job.cancel();
  const pr::SaveJob::Result r = wait_for(job);
  EXPECT_TRUE(r.cancelled);
  EXPECT_TRUE(fs::is_empty(d));
  fs::remove_all(d);
}

// A survey on a server (nginx on 127.0.0.1) saved within a selection: the nodes the selection
// may keep read over HTTP at every level, the points it keeps written, as many as the local
// file's conversion writes.
TEST(SavePanel, ASurveyOnAServerIsSavedWithinTheSelection) {
  if (const std::string why = pr::test::NginxServer::unavailable(); !why.empty()) {
    if (pr::test::nginx_required()) FAIL() << why;
    GTEST_SKIP() << why;
  }
  const std::string dir = std::string(PR_TESTDATA_DIR) + "/laz";
  pr::test::NginxServer server(fs::absolute(dir).string());
  std::string err;
  ASSERT_TRUE(server.start(&err)) << err;
  const std::string copc = dir + "/lone-star.copc.laz";
  pr::PointCloud whole;
  ASSERT_TRUE(pr::load_point_cloud(copc, whole, nullptr, &err)) << err;
  const pr::Bounds b = whole.world_bounds();
  const pr::Clip clip = middle_fifth(b);
  pr::ConvertOptions options;
  pr::ExportSelection{&clip, nullptr}.apply(&options);
  const fs::path d = scratch("server");
  pr::SaveJob local, remote;
  ASSERT_TRUE(local.start_files({copc}, (d / "local.las").string(), options));
  const pr::SaveJob::Result lr = wait_for(local);
  ASSERT_TRUE(lr.ok) << lr.error;
  ASSERT_TRUE(remote.start_region({server.url("lone-star.copc.laz")}, (d / "remote.las").string(),
                                  options));
  const pr::SaveJob::Result rr = wait_for(remote);
  ASSERT_TRUE(rr.ok) << rr.error;
  EXPECT_GT(rr.written.points, 100u);
  EXPECT_LT(rr.written.points, whole.size());
  EXPECT_NEAR(double(rr.written.points), double(lr.written.points),
              0.002 * double(lr.written.points));
  pr::PointCloud back;
  ASSERT_TRUE(pr::load_point_cloud((d / "remote.las").string(), back, nullptr, &err)) << err;
  EXPECT_EQ(back.size(), rr.written.points);
  EXPECT_EQ(back.intensity.empty(), whole.intensity.empty());
  EXPECT_EQ(back.classification.empty(), whole.classification.empty());
  // A node that cannot be read (a URL the server does not have): one line, no file.
  pr::SaveJob missing;
  ASSERT_TRUE(
      missing.start_region({server.url("absent.copc.laz")}, (d / "absent.las").string(), options));
  const pr::SaveJob::Result mr = wait_for(missing);
  EXPECT_FALSE(mr.ok);
  EXPECT_FALSE(mr.error.empty());
  EXPECT_FALSE(fs::exists(d / "absent.las"));
  // Cancelled: no file.
  pr::SaveJob cancelled;
  ASSERT_TRUE(cancelled.start_region({server.url("lone-star.copc.laz")},
                                     (d / "cancelled.las").string(), options));
  cancelled.cancel();
  const pr::SaveJob::Result cr = wait_for(cancelled);
  EXPECT_TRUE(cr.cancelled || cr.ok);
  if (cr.cancelled) {
    EXPECT_FALSE(fs::exists(d / "cancelled.las"));
  }
  fs::remove_all(d);
}
