// An EPT dataset in a running window: it opens streamed as a COPC file does and, with a budget
// above its points and no screen-space error, converges to every point of every node; a dataset
// whose only node holds another count than its hierarchy says draws nothing and says so, and the
// window keeps running.
#include "ept_data.h"
#include "window_support.h"

using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// Runs the viewer on `input` until its stream converges (a few frames more); its statistics.
pr::StreamStats converged_stats(const std::string& input, const char* config, bool& streamed,
                                std::string& status) {
  fresh_config(config);
  pr::Options o = scripted_files({input});
  o.point_budget = 10'000'000;
  o.sse = 0.0;
  pr::ViewerTesting v(o);
  std::string err;
  EXPECT_TRUE(v.open(&err)) << err;
  pr::StreamStats stats;
  int converged_frame = -1;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    const pr::StreamStats st = vw.stream_stats();
    if (converged_frame < 0 && vw.streaming() && st.converged) converged_frame = frame;
    if (converged_frame >= 0 && frame > converged_frame + 3) {
      streamed = true;
      stats = vw.stream_stats();
      status = vw.status();
      vw.request_quit();
    }
    if (frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  return stats;
}

}  // namespace

TEST(Window, StreamsAnEptDatasetAsACopcFile) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("ept");
  bool streamed = false;
  std::string status;
  const pr::StreamStats st =
      converged_stats(ept_path("lone-star-laszip") + "/ept.json", "ept", streamed, status);
  ASSERT_TRUE(streamed) << status;
  EXPECT_EQ(st.points_drawn, 518862u);
  EXPECT_EQ(st.nodes_drawn, 13u);
  EXPECT_EQ(st.nodes_failed, 0u);
  EXPECT_GT(st.bytes_read, 0u);
}

TEST(Window, AnEptNodeOfTheWrongCountIsSkippedAndSaid) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("ept");
  bool streamed = false;
  std::string status;
  const pr::StreamStats st =
      converged_stats(ept_path("bad-pointcount/laszip"), "eptbad", streamed, status);
  ASSERT_TRUE(streamed) << status;
  EXPECT_EQ(st.points_drawn, 0u);
  EXPECT_EQ(st.nodes_failed, 1u);
  EXPECT_NE(status.find("0-0-0-0"), std::string::npos) << status;
}
