// Streamed surveys in a running window: a COPC file opens streamed, converges, draws what its
// budget allows, changes budget live, and gives way to a file read whole.
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

TEST(Window, StreamsACopcFileWithinItsBudget) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  REQUIRE_TESTDATA("las");
  const std::string copc = data_path("laz") + "/lone-star.copc.laz";
  const std::string las = data_path("las") + "/autzen_trim.las";
  fresh_config("stream");
  pr::Options o = scripted_files({copc});
  o.point_budget = 10'000'000;
  o.sse = 0.0;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  pr::StreamStats full, small;
  uint64_t drawn_full = 0, drawn_small = 0, drawn_las = 0;
  bool streamed = false, las_streamed = true;
  int phase = 0, phase_frame = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    const pr::StreamStats st = vw.stream_stats();
    if (phase == 0 && vw.streaming() && st.converged && frame > phase_frame + 2) {
      streamed = true;
      full = st;
      drawn_full = vw.points_drawn();
      pr::StreamOptions so = vw.stream_options();
      so.point_budget = 100'000;
      vw.set_stream_options(so);
      phase = 1;
      phase_frame = frame;
    } else if (phase == 1 && st.converged && frame > phase_frame + 3) {
      small = st;
      drawn_small = vw.points_drawn();
      vw.open_files({las});
      phase = 2;
      phase_frame = frame;
    } else if (phase == 2 && !vw.cloud_busy() && !vw.streaming() && vw.cloud_points() > 0 &&
               frame > phase_frame + 3) {
      las_streamed = vw.streaming();
      drawn_las = vw.points_drawn();
      vw.request_quit();
    }
    if (frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_TRUE(streamed) << v.status();
  // Every point of the file with a budget above its size and no screen-space error.
  EXPECT_EQ(full.points_drawn, 518862u);
  // The renderer walks the pool's batches that hold them (free room inside a batch is NaN).
  EXPECT_GE(drawn_full, 518862u);
  EXPECT_EQ(full.nodes_drawn, 15u);
  EXPECT_GT(full.bytes_read, 0u);
  // A smaller budget: at most that many points (whole nodes), the coarsest first.
  EXPECT_GT(small.points_drawn, 0u);
  EXPECT_LE(small.points_drawn, 100'000u);
  EXPECT_GE(drawn_small, small.points_drawn);
  EXPECT_LT(drawn_small, drawn_full);
  // A LAS file opened meanwhile is read whole and replaces the survey.
  EXPECT_FALSE(las_streamed);
  EXPECT_GT(drawn_las, 0u) << v.status();
}

TEST(Window, AStreamThatCannotOpenIsShownAndTheWindowKeepsRunning) {
  REQUIRE_DISPLAY();
  fresh_config("streamerr");
  pr::ViewerTesting v(scripted(0, 480, 320, 20'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  bool asked = false;
  pr::ViewerHooks hooks;
  int asked_frame = 0;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (!asked && !vw.cloud_busy() && vw.cloud_points() > 0) {
      asked = vw.open_files({"http://127.0.0.1:9/nothing.copc.laz"});
      asked_frame = frame;
    }
    if (asked && frame > asked_frame + 2 && !vw.stream_opening()) vw.request_quit();
    if (frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_TRUE(asked);
  EXPECT_FALSE(v.streaming());
  EXPECT_NE(v.status().find("127.0.0.1:9"), std::string::npos) << v.status();
  EXPECT_EQ(v.cloud_points(), 20'000u);  // the scene stays on screen
}
