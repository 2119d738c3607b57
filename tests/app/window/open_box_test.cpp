// The panel's Open section driven as a user drives it, with the pointer, the wheel and the
// keyboard: a path typed and opened with the Open button or with Enter, a folder of COPC tiles
// opened as one survey, a .vpc picked from the folder list, and a URL opened from the command
// line that stays a URL in Recent files and opens again from there. The files (a LAS file, COPC
// tiles, a .vpc) are written for each test into a temporary folder.
#include <unistd.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <memory>

#include "engine/io/convert.h"
#include "engine/io/io.h"
#include "engine/scenes.h"
#include "nginx_server.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// Steps run one after another, one call a frame: each returns true when it is done.
using Step = std::function<bool(pr::ViewerTesting&)>;

struct Script {
  std::vector<Step> steps;
  size_t at = 0;
  /// Runs the current step; true once every step is done.
  bool run(pr::ViewerTesting& v) {
    if (at < steps.size() && steps[at](v)) ++at;
    return at == steps.size();
  }
};

/// A click on the panel's item `name` (PanelClick), failing the test when it gives up.
Step click(const std::string& name) {
  auto c = std::make_shared<PanelClick>(name);
  return [c](pr::ViewerTesting& v) {
    if (c->failed()) {
      ADD_FAILURE() << "the panel's " << c->name() << " was not drawn whole within 200 frames";
      v.request_quit();
      return true;
    }
    return c->step(v);
  };
}

/// `n` frames of nothing (what a step did shows by then).
Step wait_frames(int n) {
  auto left = std::make_shared<int>(n);
  return [left](pr::ViewerTesting&) { return --*left < 0; };
}

/// Typing `text` into the item that has the keyboard.
Step type(const std::string& text) {
  return [text](pr::ViewerTesting&) {
    type_text(text);
    return true;
  };
}

/// Enter pressed, and released on the next frame.
Step press_enter() {
  auto down = std::make_shared<bool>(false);
  return [down](pr::ViewerTesting&) {
    SDL_Event e = key_event(SDLK_RETURN, SDL_SCANCODE_RETURN, !*down);
    SDL_PushEvent(&e);
    if (*down) return true;
    *down = true;
    return false;
  };
}

/// Runs `v` through `script` once the first cloud is on screen, then quits a few frames after
/// the script's end and `done` (also at frame 3000). Returns whether the script ran whole and
/// `done` held.
bool run_script(pr::ViewerTesting& v, Script& script,
                std::function<bool(pr::ViewerTesting&)> done) {
  bool started = false, finished = false;
  int end_frame = -1;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 3000) vw.request_quit();
    if (!started) {
      started = !vw.cloud_busy() && (vw.cloud_points() > 0 || vw.streaming()) && frame > 3;
      if (!started) return;
    }
    if (end_frame < 0 && script.run(vw) && done(vw)) end_frame = frame;
    if (end_frame >= 0 && frame >= end_frame + 2) {
      finished = true;
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  return finished;
}

class OpenBox : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pr_open_box_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  /// A LAS file of `points` terrain points.
  std::string write_las(const std::string& name, uint64_t points) const {
    const std::string path = (dir_ / name).string();
    std::string err;
    EXPECT_TRUE(pr::save_las(path, pr::make_scene("terrain", points), 0, &err)) << err;
    return path;
  }
  /// A COPC file of `points` terrain points (seed `seed`), in folder `sub`.
  std::string write_copc(const std::string& sub, const std::string& name, uint64_t points,
                         uint32_t seed) const {
    fs::create_directories(dir_ / sub);
    const std::string path = (dir_ / sub / name).string();
    std::string err;
    EXPECT_TRUE(pr::save_point_cloud(pr::make_scene("terrain", points, seed), path, {}, nullptr,
                                     nullptr, &err))
        << err;
    return path;
  }
  /// The Open box lists `folder` when the viewer opens (the settings file's open_dir).
  static void list_folder_first(const fs::path& config, const fs::path& folder) {
    fs::create_directories(config / "pointraster");
    std::ofstream(config / "pointraster" / "settings.ini")
        << "open_dir=" << folder.string() << "\n";
  }

  fs::path dir_;
};

/// A window tall enough for the panel's default height (640 px), with a small scene on screen.
pr::Options tall_window() {
  return scripted(0, 1000, 900, 20'000);
}

TEST_F(OpenBox, TheOpenButtonOpensThePathTyped) {
  REQUIRE_DISPLAY();
  const std::string las = write_las("typed.las", 50'000);
  fresh_config("open_button");
  pr::ViewerTesting v(tall_window());
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  Script s;
  s.steps = {click("open.header"), click("open.path"),   type(las),
             wait_frames(2),       click("open.button"), wait_frames(2)};
  const bool ran = run_script(v, s, [](pr::ViewerTesting& vw) { return !vw.cloud_busy(); });
  EXPECT_TRUE(ran);
  EXPECT_EQ(v.cloud_points(), 50'000u) << v.status();
  EXPECT_NE(v.status().find("typed.las"), std::string::npos) << v.status();
}

TEST_F(OpenBox, EnterInThePathFieldOpensIt) {
  REQUIRE_DISPLAY();
  const std::string las = write_las("entered.las", 40'000);
  fresh_config("open_enter");
  pr::ViewerTesting v(tall_window());
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  Script s;
  s.steps = {click("open.header"), click("open.path"), type(las),
             wait_frames(2),       press_enter(),      wait_frames(2)};
  const bool ran = run_script(v, s, [](pr::ViewerTesting& vw) { return !vw.cloud_busy(); });
  EXPECT_TRUE(ran);
  EXPECT_EQ(v.cloud_points(), 40'000u) << v.status();
  EXPECT_NE(v.status().find("entered.las"), std::string::npos) << v.status();
}

TEST_F(OpenBox, AFolderOfCopcTilesOpensAsOneSurvey) {
  REQUIRE_DISPLAY();
  write_copc("tiles", "a.copc.laz", 30'000, 1);
  write_copc("tiles", "b.copc.laz", 20'000, 2);
  list_folder_first(fresh_config("open_survey"), dir_ / "tiles");
  pr::ViewerTesting v(tall_window());
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  Script s;
  s.steps = {click("open.header"), click("open.survey"), wait_frames(2)};
  const bool ran = run_script(v, s, [](pr::ViewerTesting& vw) {
    return !vw.stream_opening() && vw.streaming() && vw.stream_stats().converged;
  });
  EXPECT_TRUE(ran) << v.status();
  ASSERT_TRUE(v.streaming()) << v.status();
  EXPECT_EQ(v.stream_stats().tiles, 2u);
  EXPECT_EQ(v.stream_stats().tiles_open, 2u);
  EXPECT_NE(v.status().find("50000 points in 2 tile(s)"), std::string::npos) << v.status();
}

TEST_F(OpenBox, AVpcInTheFolderListOpens) {
  REQUIRE_DISPLAY();
  write_copc("tiles", "a.copc.laz", 30'000, 1);
  write_copc("tiles", "b.copc.laz", 20'000, 2);
  std::ofstream(dir_ / "survey.vpc")
      << R"({"type": "FeatureCollection", "features": [)"
      << R"({"type": "Feature", "stac_version": "1.0.0", "id": "a", "properties": {},)"
      << R"( "assets": {"data": {"href": "tiles/a.copc.laz", "roles": ["data"]}}},)"
      << R"({"type": "Feature", "stac_version": "1.0.0", "id": "b", "properties": {},)"
      << R"( "assets": {"data": {"href": "tiles/b.copc.laz", "roles": ["data"]}}}]})"
      << "\n";
  list_folder_first(fresh_config("open_vpc"), dir_);
  pr::ViewerTesting v(tall_window());
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  Script s;
  s.steps = {click("open.header"), click("open.entry:survey.vpc"), wait_frames(2),
             click("open.button"), wait_frames(2)};
  const bool ran = run_script(v, s, [](pr::ViewerTesting& vw) {
    return !vw.stream_opening() && vw.streaming() && vw.stream_stats().converged;
  });
  EXPECT_TRUE(ran) << v.status();
  ASSERT_TRUE(v.streaming()) << v.status();
  EXPECT_EQ(v.stream_stats().tiles, 2u);
  EXPECT_NE(v.status().find("survey.vpc"), std::string::npos) << v.status();
}

TEST_F(OpenBox, AUrlStaysAUrlInRecentFilesAndOpensFromThere) {
  REQUIRE_DISPLAY();
  write_copc("served", "city.copc.laz", 30'000, 1);
  const std::string las = write_las("other.las", 20'000);
  START_NGINX(server, dir_.string(), "");
  const std::string url = server.url("served/city.copc.laz");
  const fs::path config = fresh_config("open_recent_url");
  {
    pr::ViewerTesting v(scripted_files({url}));  // interactive: it writes the settings file
    std::string err;
    ASSERT_TRUE(v.open(&err)) << err;
    REQUIRE_PANEL_INPUT();
    std::vector<std::string> recent;
    bool las_shown = false;
    std::string entry;  // the URL's entry in Recent files
    PanelClick entry_click("");
    Script s;
    s.steps = {
        [&](pr::ViewerTesting& vw) {
          recent = vw.recent_files();
          return vw.open_files({las});  // a file on screen: the URL then opens again from Recent
        },
        [&](pr::ViewerTesting& vw) {
          las_shown = !vw.cloud_busy() && !vw.streaming() && vw.cloud_points() == 20'000;
          if (!las_shown) return false;
          const auto& now = vw.recent_files();
          for (size_t i = 0; i < now.size(); ++i)
            if (now[i] == url) entry = "open.recent." + std::to_string(i);
          entry_click = PanelClick(entry);
          return true;
        },
        click("open.header"),
        click("open.recent"),
        [&](pr::ViewerTesting& vw) {
          // Not in Recent files, or not drawn: the expectations below say so.
          return entry.empty() || entry_click.failed() || entry_click.step(vw);
        },
        wait_frames(2)};
    const bool ran = run_script(v, s, [](pr::ViewerTesting& vw) {
      return !vw.cloud_busy() && !vw.stream_opening() && vw.streaming();
    });
    ASSERT_FALSE(recent.empty());
    EXPECT_EQ(recent[0], url);
    EXPECT_TRUE(las_shown) << v.status();
    EXPECT_FALSE(entry.empty()) << "the URL is not in Recent files";
    EXPECT_TRUE(ran) << v.status();
    EXPECT_TRUE(v.streaming()) << v.status();
    EXPECT_NE(v.status().find(url + ": 30000 points in 1 tile(s), streamed"), std::string::npos)
        << v.status();
  }
  // The settings file, written as the window closed, keeps the URL as it is.
  std::ifstream in(config / "pointraster" / "settings.ini");
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("recent=" + url + "\n"), std::string::npos) << text;
}

}  // namespace
