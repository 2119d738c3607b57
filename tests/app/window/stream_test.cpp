// Streamed surveys in a running window: a COPC file opens streamed, converges, draws what its
// budget allows, changes budget live, and gives way to a file read whole; the Streaming section
// says what is drawn, what the view selects and the budget in words that read right when the
// pool keeps more than the view selects.
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "engine/io/convert.h"
#include "engine/scenes.h"
#include "nginx_server.h"
#include "progress_bar.h"
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

namespace {

/// A count as the panel prints it (950, 12.3k, 4.56M, 1.20G).
double count_value(const std::string& number, const std::string& suffix) {
  const double x = std::strtod(number.c_str(), nullptr);
  return suffix == "k" ? x * 1e3 : suffix == "M" ? x * 1e6 : suffix == "G" ? x * 1e9 : x;
}

/// Every "A ... of B" in `line` (the count before " of " and the one after it) with A > B.
std::vector<std::string> parts_over_wholes(const std::string& line) {
  static const std::regex kPartOfWhole(
      R"(([0-9][0-9.]*)([kMG]?)[^0-9]* of [^0-9]*([0-9][0-9.]*)([kMG]?))");
  std::vector<std::string> bad;
  for (std::sregex_iterator it(line.begin(), line.end(), kPartOfWhole), end; it != end; ++it) {
    const std::smatch& m = *it;
    if (count_value(m[1], m[2]) > count_value(m[3], m[4])) bad.push_back(m.str());
  }
  return bad;
}

}  // namespace

TEST(Window, TheStreamingFiguresSayWhatIsDrawnWhatTheViewSelectsAndTheBudget) {
  REQUIRE_DISPLAY();
  // A survey of 300k points drawn within a budget of 100k.
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_words_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string copc = (dir / "terrain.copc.laz").string();
  std::string err;
  ASSERT_TRUE(
      pr::save_point_cloud(pr::make_scene("terrain", 300'000), copc, {}, nullptr, nullptr, &err))
      << err;
  fresh_config("stream_words");
  pr::Options o = scripted_files({copc});
  o.point_budget = 100'000;
  pr::ViewerTesting v(o);
  ASSERT_TRUE(v.open(&err)) << err;
  std::vector<std::string> lines_seen, lines_away;
  pr::StreamStats seen, away;
  int phase = 0, phase_frame = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    const pr::StreamStats st = vw.stream_stats();
    if (phase == 0 && vw.streaming() && st.converged && frame > phase_frame + 2) {
      seen = st;
      lines_seen = vw.stream_lines();
      // Turned away from the survey: the view selects less, and the pool keeps what it drew
      // until the room is needed.
      vw.camera().turn(3.14159265358979, 0.0);
      phase = 1;
      phase_frame = frame;
    } else if (phase == 1 && st.converged && frame > phase_frame + 3) {
      away = st;
      lines_away = vw.stream_lines();
      vw.request_quit();
    }
    if (frame > 3000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  fs::remove_all(dir);
  ASSERT_FALSE(lines_away.empty()) << v.status();
  EXPECT_GT(seen.points_drawn, 0u);
  EXPECT_LE(seen.points_selected, 100'000u);
  // What made the words read wrong: more drawn than the view selects.
  ASSERT_GT(away.points_drawn, away.points_selected);
  for (const auto* lines : {&lines_seen, &lines_away}) {
    std::string all;
    for (const std::string& line : *lines) {
      all += line + "\n";
      EXPECT_TRUE(parts_over_wholes(line).empty()) << "a count above its whole: \"" << line << "\"";
    }
    const pr::StreamStats& st = lines == &lines_seen ? seen : away;
    // Each figure by its name: the points drawn, the points the view selects, the budget.
    EXPECT_NE(all.find("drawn: " + pr::human_points(double(st.points_drawn)) + " points"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("selects " + pr::human_points(double(st.points_selected)) + " points"),
              std::string::npos)
        << all;
    EXPECT_NE(all.find("budget " + pr::human_points(100'000.0)), std::string::npos) << all;
  }
}

// One input that cannot open says which and why; a survey none of whose tiles opens says so.
TEST(Window, AnInputThatFailsToOpenSaysWhichAndWhy) {
  REQUIRE_DISPLAY();
  const fs::path dir = fs::temp_directory_path() / ("pr_stream_fail_" + std::to_string(getpid()));
  fs::create_directories(dir / "tiles");
  std::ofstream(dir / "not-copc.copc.laz") << "this is no COPC file";
  std::ofstream(dir / "tiles" / "a.copc.laz") << "nor is this";
  std::ofstream(dir / "tiles" / "b.copc.laz") << "nor this";
  START_NGINX(server, dir.string(), "");
  const std::string missing = server.url("missing.copc.laz");
  const std::string not_copc = server.url("not-copc.copc.laz");
  const std::string folder = (dir / "tiles").string();
  fresh_config("stream_fail");
  pr::ViewerTesting v(scripted(0, 480, 320, 20'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  const std::vector<std::string> inputs = {missing, not_copc, folder};
  std::vector<std::string> said;
  size_t next = 0;
  int asked_frame = -1;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 3000) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0 || frame < asked_frame + 2) return;
    if (asked_frame >= 0) said.push_back(vw.status());
    if (next == inputs.size()) {
      vw.request_quit();
      return;
    }
    vw.open_files({inputs[next++]});
    asked_frame = frame;
  };
  EXPECT_EQ(v.run(&hooks), 0);
  fs::remove_all(dir);
  ASSERT_EQ(said.size(), 3u);
  // A URL not on the server: the URL and the server's answer, not "no tile".
  EXPECT_EQ(said[0].rfind("cannot open " + missing + ": ", 0), 0u) << said[0];
  EXPECT_NE(said[0].find("404"), std::string::npos) << said[0];
  EXPECT_EQ(said[0].find("tile"), std::string::npos) << said[0];
  // A URL whose file is not COPC: the URL and what is wrong with it.
  EXPECT_EQ(said[1].rfind("cannot open " + not_copc + ": ", 0), 0u) << said[1];
  EXPECT_EQ(said[1].find("tile"), std::string::npos) << said[1];
  // A folder is a survey: none of its tiles opens, and the first one's reason.
  EXPECT_EQ(said[2].rfind("no tile opens: ", 0), 0u) << said[2];
  EXPECT_NE(said[2].find("a.copc.laz"), std::string::npos) << said[2];
  EXPECT_FALSE(v.streaming());
  EXPECT_EQ(v.cloud_points(), 20'000u);  // the scene stays on screen
}
