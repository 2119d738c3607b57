// Large plain LAS files load progressively: an even subset (CloudJob::kPreviewPoints) is on screen
// while the whole file loads, the whole cloud then replaces it in the same view; cancelling in
// between keeps the subset, and another file opens after it. The LAS file (8M points of the
// terrain scene) is written once for the suite into a temporary folder.
#include <unistd.h>

#include <cstdio>

#include "engine/io/io.h"
#include "engine/scenes.h"
#include "viewer/cloud_job.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

constexpr uint64_t kLargePoints = 8'000'000;

class Progressive : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = fs::temp_directory_path() / ("pr_progressive_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
    std::string err;
    const pr::PointCloud large = pr::make_scene("terrain", kLargePoints);
    if (!pr::save_las((dir_ / "large.las").string(), large, 0, &err)) error_ = err;
    const pr::PointCloud small = pr::make_scene("terrain", 200'000, 2);
    if (!pr::save_las((dir_ / "small.las").string(), small, 2, &err)) error_ = err;
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }

  static std::string large() { return (dir_ / "large.las").string(); }
  static std::string small() { return (dir_ / "small.las").string(); }

  static fs::path dir_;
  static std::string error_;
};

fs::path Progressive::dir_;
std::string Progressive::error_;

TEST_F(Progressive, PreviewOptionsSpreadTheSubsetOverPlainLasFiles) {
  ASSERT_TRUE(error_.empty()) << error_;
  const uint64_t kPreview = pr::CloudJob::kPreviewPoints;
  std::vector<pr::LoadOptions> p = pr::preview_options({large()}, {});
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].max_points, kPreview);
  // Two files share the preview by the points each gives.
  p = pr::preview_options({large(), small()}, {});
  ASSERT_EQ(p.size(), 2u);
  const double total = double(kLargePoints + 200'000);
  EXPECT_EQ(p[0].max_points, uint64_t(double(kPreview) * double(kLargePoints) / total));
  EXPECT_EQ(p[1].max_points, uint64_t(double(kPreview) * 200'000.0 / total));
  // A point budget the preview would not save much of, a small file, and a missing one: none.
  pr::LoadOptions budget;
  budget.max_points = pr::CloudJob::kPreviewMinPoints;
  EXPECT_TRUE(pr::preview_options({large()}, budget).empty());
  budget.max_points = 2 * pr::CloudJob::kPreviewMinPoints;
  p = pr::preview_options({large()}, budget);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].max_points, kPreview);
  EXPECT_TRUE(pr::preview_options({small()}, {}).empty());
  EXPECT_TRUE(pr::preview_options({large(), (dir_ / "absent.las").string()}, {}).empty());
  // A COPC file streams, or reads its top levels for a budget: no preview. A plain LAZ file
  // gets one of whole chunks (the test data's are too small to need it).
  REQUIRE_TESTDATA("laz");
  const std::string copc = data_path("laz") + "/lone-star.copc.laz";
  const std::string laz = data_path("laz") + "/autzen_trim.laz";
  EXPECT_TRUE(pr::preview_options({large(), copc}, {}).empty());
  p = pr::preview_options({large(), laz}, {});
  ASSERT_EQ(p.size(), 2u);
  EXPECT_FALSE(p[0].whole_chunks);
  EXPECT_TRUE(p[1].whole_chunks);
  EXPECT_GE(p[1].max_points, 1u);
}

TEST_F(Progressive, ASubsetIsDrawnBeforeTheWholeFileInTheSameView) {
  REQUIRE_DISPLAY();
  ASSERT_TRUE(error_.empty()) << error_;
  fresh_config("progressive");
  pr::ViewerTesting v(scripted_files({large()}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int preview_frame = -1, moved_frame = -1, done_frame = -1;
  uint64_t preview_points = 0, preview_drawn = 0;
  size_t preview_lit = 0;
  std::string preview_status;
  glm::dvec3 moved{0.0};
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (preview_frame < 0 && vw.cloud_busy() && vw.cloud_points() > 0) {
      preview_frame = frame;
      preview_points = vw.cloud_points();
      preview_status = vw.status();
    } else if (preview_frame >= 0 && moved_frame < 0 && frame >= preview_frame + 2 &&
               vw.cloud_busy()) {
      // The subset is on screen: drawn, and the view can move meanwhile.
      preview_drawn = vw.points_drawn();
      std::vector<uint32_t> px;
      int w = 0, hh = 0;
      if (vw.read_image(px, w, hh)) preview_lit = count_not(px, w, 0, 0, w, hh, kBackground);
      vw.camera().position += glm::dvec3(1.0, 2.0, 3.0);
      moved = vw.camera().position;
      moved_frame = frame;
    } else if (done_frame < 0 && !vw.cloud_busy() && vw.cloud_points() == kLargePoints) {
      done_frame = frame;
    } else if (done_frame >= 0 && frame >= done_frame + 2) {
      vw.request_quit();
    }
    if (frame > 20000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&h), 0);
  ASSERT_GE(preview_frame, 0) << "no subset was shown while the file loaded: " << v.status();
  EXPECT_EQ(preview_points, pr::CloudJob::kPreviewPoints);
  EXPECT_NE(preview_status.find("while the whole file loads"), std::string::npos) << preview_status;
  ASSERT_GE(moved_frame, 0) << "the whole file arrived within two frames of the subset";
  EXPECT_EQ(preview_drawn, pr::CloudJob::kPreviewPoints);
  EXPECT_GT(preview_lit, size_t(640 * 400 / 50));
  ASSERT_GE(done_frame, 0) << v.status();
  EXPECT_EQ(v.points_drawn(), kLargePoints);
  EXPECT_EQ(v.camera().position, moved);  // the whole cloud kept the view moved meanwhile
  EXPECT_NE(v.status().find("8000000 points ready"), std::string::npos) << v.status();
}

TEST_F(Progressive, CancelKeepsTheSubsetAndAnotherFileOpens) {
  REQUIRE_DISPLAY();
  ASSERT_TRUE(error_.empty()) << error_;
  fresh_config("progressive_cancel");
  pr::ViewerTesting v(scripted_files({large()}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int cancelled_frame = -1, idle_frame = -1, opened_frame = -1;
  uint64_t kept_points = 0, kept_drawn = 0;
  std::string cancel_status;
  bool opened = false;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (cancelled_frame < 0 && vw.cloud_busy() && vw.cloud_points() > 0) {
      vw.cancel_cloud_job();  // the progress bar's Cancel
      cancelled_frame = frame;
    } else if (cancelled_frame >= 0 && idle_frame < 0 && !vw.cloud_busy()) {
      idle_frame = frame;
    } else if (idle_frame >= 0 && !opened && frame >= idle_frame + 2) {
      kept_points = vw.cloud_points();
      kept_drawn = vw.points_drawn();
      cancel_status = vw.status();
      opened = vw.open_files({small()});
      opened_frame = frame;
    } else if (opened && frame > opened_frame && !vw.cloud_busy()) {
      vw.request_quit();
    }
    if (frame > 20000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&h), 0);
  ASSERT_GE(cancelled_frame, 0) << "no subset was shown while the file loaded: " << v.status();
  ASSERT_GE(idle_frame, 0);
  EXPECT_EQ(kept_points, pr::CloudJob::kPreviewPoints);
  EXPECT_EQ(kept_drawn, pr::CloudJob::kPreviewPoints);
  EXPECT_NE(cancel_status.find("cancelled"), std::string::npos) << cancel_status;
  EXPECT_TRUE(opened);
  EXPECT_EQ(v.cloud_points(), 200'000u) << v.status();
  EXPECT_EQ(v.points_drawn(), 200'000u);
}

}  // namespace
