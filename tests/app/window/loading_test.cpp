// Loading in a running window: errors shown, dropped and opened files, scenes regenerated and
// cancelled in the background, files read in part read further.
#include <cstdio>
#include <fstream>

#include "engine/io/convert.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

TEST(Window, LoadErrorsAreShownAndTheWindowKeepsRunning) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("loaderr");
  const fs::path bad = d / "broken.ply";
  {
    std::FILE* f = std::fopen(bad.c_str(), "w");
    std::fputs("ply\nformat ascii 1.0\nelement vertex 5\nproperty float x\nend_header\n1\n", f);
    std::fclose(f);
  }
  pr::Options o = scripted(5, 480, 320, 0);
  o.points.reset();
  o.files = {bad.string()};
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  EXPECT_EQ(v.run(), 1);  // a scripted run whose files fail exits 1, after running its frames
  EXPECT_NE(v.status().find("broken.ply"), std::string::npos) << v.status();
  EXPECT_EQ(v.cloud_points(), 0u);
}

TEST(Window, OpensADroppedFileInTheBackground) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path las = fs::path(pr::test::data_path("las")) / "autzen_trim.las";
  fresh_config("open");
  pr::ViewerTesting v(scripted(0, 640, 400, 50'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  uint64_t scene_points = 0, full_drawn = 0, subset_drawn = 0;
  int subset_frame = -1, full_w = 0, full_h = 0, asked_frame = 0;
  std::vector<uint32_t> full_img;
  bool asked = false;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (!asked && !vw.cloud_busy() && frame > 2) {
      scene_points = vw.cloud_points();
      // Dropped on the window, as a file manager does: SDL_DROPFILE (SDL owns the string until
      // the handler frees it) then SDL_DROPCOMPLETE.
      SDL_Event e{};
      e.type = SDL_DROPFILE;
      e.drop.file = SDL_strdup(las.c_str());
      e.drop.windowID = SDL_GetWindowID(vw.window());
      SDL_PushEvent(&e);
      SDL_Event c{};
      c.type = SDL_DROPCOMPLETE;
      c.drop.windowID = e.drop.windowID;
      SDL_PushEvent(&c);
      asked = true;
      asked_frame = frame;
    } else if (asked && frame >= asked_frame + 2 && !vw.cloud_busy() && subset_frame < 0) {
      full_drawn = vw.points_drawn();
      vw.read_image(full_img, full_w, full_h);
      vw.set_point_count(5000);  // the slider: an even subset of the loaded cloud
      subset_frame = frame;
    } else if (subset_frame >= 0 && frame == subset_frame + 2) {
      subset_drawn = vw.points_drawn();
      vw.request_quit();
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&h), 0);
  EXPECT_EQ(scene_points, 50'000u);
  EXPECT_GT(v.cloud_points(), 10'000u) << v.status();
  EXPECT_EQ(full_drawn, v.cloud_points());
  EXPECT_EQ(subset_drawn, 5000u);
  ASSERT_EQ(full_img.size(), size_t(full_w) * size_t(full_h));
  EXPECT_GT(count_not(full_img, full_w, 0, 0, full_w, full_h, kBackground),
            size_t(full_w * full_h / 50));
}

TEST(Window, SceneRegeneratesInTheBackgroundWhileTheOldOneIsDrawn) {
  REQUIRE_DISPLAY();
  fresh_config("regen");
  pr::ViewerTesting v(scripted(0, 640, 400, 100'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int asked_at = -1, busy_frames = 0;
  uint64_t drawn_while_busy = 0;
  glm::dvec3 cam_before{0.0};
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (asked_at < 0 && !vw.cloud_busy() && frame > 2) {
      cam_before = vw.camera().position;
      vw.set_point_count(3'000'000);
      asked_at = frame;
      EXPECT_TRUE(vw.cloud_busy());
    } else if (asked_at >= 0 && vw.cloud_busy()) {
      ++busy_frames;
      drawn_while_busy = vw.points_drawn();
    } else if (asked_at >= 0 && frame > asked_at + 1) {
      if (vw.points_drawn() == 3'000'000u || frame > asked_at + 4000) vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&h), 0);
  // Frames kept coming while the new scene was made, showing the old cloud.
  EXPECT_GE(busy_frames, 1);
  EXPECT_EQ(drawn_while_busy, 100'000u);
  EXPECT_EQ(v.cloud_points(), 3'000'000u);
  EXPECT_EQ(v.points_drawn(), 3'000'000u);
  EXPECT_EQ(v.camera().position, cam_before);  // a new density, the same view
}

TEST(Window, CancelStopsARegenerationAndKeepsTheCloudOnScreen) {
  REQUIRE_DISPLAY();
  fresh_config("cancel");
  pr::ViewerTesting v(scripted(0, 640, 400, 100'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int asked_at = -1, cancelled_at = -1, done_at = -1;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (asked_at < 0 && !vw.cloud_busy() && frame > 2) {
      vw.set_point_count(80'000'000);  // seconds of work on two cores: 20 slices of 4M points
      asked_at = frame;
    } else if (asked_at >= 0 && cancelled_at < 0 && frame > asked_at + 1) {
      EXPECT_TRUE(vw.cloud_busy());
      vw.cancel_cloud_job();  // the progress bar's Cancel button
      cancelled_at = frame;
    } else if (cancelled_at >= 0 && !vw.cloud_busy() && done_at < 0) {
      done_at = frame;
    } else if (done_at >= 0 && frame > done_at + 2) {
      vw.request_quit();
    }
    if (frame > 20000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&h), 0);
  EXPECT_GE(done_at, 0) << "the job never finished";
  EXPECT_NE(v.status().find("cancelled"), std::string::npos) << v.status();
  // The old cloud stayed and is still drawn.
  EXPECT_EQ(v.cloud_points(), 100'000u);
  EXPECT_EQ(v.points_drawn(), 100'000u);
}

// A COPC survey read whole (--stream off) from its top level (--max-depth 0) shows its overview;
// "Read more" reads the next level and "Read everything" the rest, in the background, the view
// kept; then nothing is left to read.
TEST(Window, ReadMoreRefinesACopcFileKeepingTheView) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("laz");
  const fs::path copc = fs::path(pr::test::data_path("laz")) / "lone-star.copc.laz";
  fresh_config("read_more");
  pr::Options o = scripted_files({copc.string()});
  o.max_depth = 0;
  o.stream = false;  // read whole, to a depth (streamed, the view decides what is read)
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int stage = 0;
  uint64_t counts[3] = {0, 0, 0};
  glm::dvec3 position[3];
  bool started[2] = {false, false}, refused = true;
  std::string last_status;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 6000) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0) return;
    if (stage < 3 && counts[stage] == 0) {
      counts[stage] = vw.cloud_points();
      position[stage] = vw.camera().position;
      if (stage < 2) started[stage] = vw.read_more(stage == 1);
      if (stage == 2) {
        refused = vw.read_more(false);
        last_status = vw.status();
        vw.request_quit();
      }
      ++stage;
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(stage, 3) << v.status();
  EXPECT_TRUE(started[0]);
  EXPECT_TRUE(started[1]);
  EXPECT_EQ(counts[0], 58393u) << "level 0";  // laspy's CopcReader.level_query(0)
  EXPECT_EQ(counts[1], 58393u + 105600u) << "levels 0-1";
  EXPECT_EQ(counts[2], 518862u) << "every level";
  EXPECT_EQ(position[1], position[0]) << "reading more moved the camera";
  EXPECT_EQ(position[2], position[0]);
  EXPECT_FALSE(refused);
  EXPECT_NE(last_status.find("every point"), std::string::npos) << last_status;
}

// A file opened from the panel (or dropped) keeps the point budget (--max-points sets the Open
// box's budget); "Read more" then reads twice the points, the view kept.
TEST(Window, OpenedFilesKeepTheBudgetAndReadMoreDoublesIt) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path las = fs::path(pr::test::data_path("las")) / "autzen_trim.las";
  fresh_config("open_budget");
  pr::Options o = scripted(0, 640, 400, 20'000);  // starts with a scene
  o.max_points = 1000;
  pr::ViewerTesting v(o);
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int stage = 0;
  uint64_t opened = 0, more = 0;
  glm::dvec3 before{0.0}, after{1.0};
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 6000) vw.request_quit();
    if (vw.cloud_busy() || vw.cloud_points() == 0) return;
    if (stage == 0) {
      ASSERT_TRUE(vw.open_files({las.string()}));
      stage = 1;
    } else if (stage == 1) {
      opened = vw.cloud_points();
      before = vw.camera().position;
      ASSERT_TRUE(vw.read_more(false)) << vw.status();
      stage = 2;
    } else if (stage == 2) {
      more = vw.cloud_points();
      after = vw.camera().position;
      stage = 3;
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(stage, 3) << v.status();
  EXPECT_EQ(opened, 1000u);
  EXPECT_EQ(more, 2000u);
  EXPECT_EQ(after, before);
}

// A LAS file cut short opens with the points it holds, and once it is loaded the status line
// shows the reader's warning.
TEST(Window, AFileReadWithAWarningShowsItInTheStatusLine) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path las = fs::path(pr::test::data_path("las")) / "autzen_trim.las";
  const fs::path d = fresh_config("warning");
  const fs::path cut = d / "cut.las";
  fs::copy_file(las, cut);
  fs::resize_file(cut, fs::file_size(las) * 3 / 4);
  pr::ViewerTesting v(scripted_files({cut.string()}));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::string status;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000 || (!vw.cloud_busy() && vw.cloud_points() > 0)) {
      status = vw.status();
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_GT(v.cloud_points(), 0u) << status;
  EXPECT_NE(status.find("points ready"), std::string::npos) << status;
  EXPECT_NE(status.find("warning: " + cut.string()), std::string::npos) << status;
  EXPECT_NE(status.find(": cut short: "), std::string::npos) << status;
}

/// A PLY file of `n` points (ascii), cut inside its line `cut_line` when that is below n.
fs::path small_ply(const fs::path& dir, const char* name, int n, int cut_line) {
  std::string text = "ply\nformat ascii 1.0\nelement vertex " + std::to_string(n) +
                     "\nproperty float x\nproperty float y\nproperty float z\nend_header\n";
  for (int i = 0; i < n && i < cut_line; ++i) {
    char line[32];  // snprintf: GCC 12 warns (-Wstringop-overflow) on the strings added up
    std::snprintf(line, sizeof line, "%d %d 1\n", i % 10, i / 10);
    text += line;
  }
  if (cut_line < n) text += "7.";  // the line the file ends inside
  const fs::path p = dir / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}

/// Opens `files` in a scripted window and runs until they are read (or streamed): the status
/// line then, and the points on screen.
std::string status_after_opening(const std::vector<std::string>& files, uint64_t* points) {
  pr::ViewerTesting v(scripted_files(files));
  std::string err;
  EXPECT_TRUE(v.open(&err)) << err;
  std::string status;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 4000 || (frame > 2 && !vw.cloud_busy() && !vw.stream_opening())) {
      status = vw.status();
      vw.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  // A streamed survey's pool is in slots (NaN between nodes): what it holds is what the stream drew.
  *points = v.streaming() ? v.stream_stats().points_drawn : v.cloud_points();
  return status;
}

// A file without points, opened first: the status line says there is nothing to show, the view
// stays empty and the run ends well (a COPC file of 0 points, streamed, too). Opened over a
// cloud: that cloud stays on screen. A file cut short: its points before the cut are drawn, its
// warning on the status line.
TEST(Window, AFileWithoutPointsShowsNothingAndSaysSo) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("empty");
  const fs::path empty = small_ply(d, "empty.ply", 0, 0);
  const fs::path cut = small_ply(d, "cut.ply", 100, 60);
  const fs::path copc = d / "empty.copc.laz";
  std::string err;
  ASSERT_TRUE(pr::convert_point_clouds({empty.string()}, copc.string(), {}, nullptr, nullptr, &err))
      << err;
  uint64_t shown = 1;
  EXPECT_EQ(status_after_opening({empty.string()}, &shown),
            "empty.ply holds no points: nothing to show");
  EXPECT_EQ(shown, 0u);
  shown = 1;
  EXPECT_EQ(status_after_opening({copc.string()}, &shown),
            copc.string() + " holds no points: nothing to show");
  EXPECT_EQ(shown, 0u);
  pr::ViewerTesting v(scripted(0, 480, 320, 20'000));
  ASSERT_TRUE(v.open(&err)) << err;
  int stage = 0;
  std::string statuses[2];
  uint64_t points[2] = {0, 0};
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (frame > 6000) vw.request_quit();
    if (frame < 3 || vw.cloud_busy()) return;
    if (stage == 1 || stage == 3) {
      statuses[stage / 2] = vw.status();
      points[stage / 2] = vw.cloud_points();
    }
    if (stage == 0) {
      EXPECT_TRUE(vw.open_files({empty.string()}));
    } else if (stage == 2) {
      EXPECT_TRUE(vw.open_files({cut.string()}));
    }
    if (stage == 3) vw.request_quit();
    ++stage;
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(stage, 4) << v.status();
  EXPECT_EQ(points[0], 20'000u);  // the scene stays
  EXPECT_EQ(statuses[0], "empty.ply holds no points: nothing to show (the cloud on screen stays)");
  EXPECT_EQ(points[1], 60u);
  EXPECT_NE(statuses[1].find("cut.ply: 60 points ready"), std::string::npos) << statuses[1];
  EXPECT_NE(statuses[1].find("; warning: " + cut.string() +
                             ": cut short: 60 of 100 points decoded (the vertex lines end early)"),
            std::string::npos)
      << statuses[1];
  EXPECT_EQ(v.points_drawn(), 60u);
}
