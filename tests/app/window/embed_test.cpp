// The viewer embedded (viewer.h's requests): a thread of the test's own drives the window while
// the frame loop runs on the test's main thread: clouds given in memory (before open() and
// while running, framed or keeping the view), screenshots, clicks that pick, a file opened, the
// close; what the window shows read back.
#include <chrono>
#include <filesystem>
#include <functional>
#include <future>
#include <random>
#include <thread>

#include <unistd.h>

#include "engine/io/load.h"
#include "viewer/viewer.h"
#include "window_support.h"

using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// n points in the cube of half-size 1 about (1000, 2000, 30), one color.
pr::PointCloud cube(size_t n, uint32_t color, double east, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  pr::PointCloud c;
  c.origin = {1000.0 + east, 2000.0, 30.0};
  c.positions.resize(n);
  for (pr::Float3& p : c.positions) p = {u(rng), u(rng), u(rng)};
  c.colors.assign(n, color);
  return c;
}

/// Waits (polling) until `ready`, for at most 30 s.
bool wait_until(const std::function<bool()>& ready) {
  const auto end = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (!ready()) {
    if (std::chrono::steady_clock::now() > end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

/// A screenshot asked for from this thread, read back; false when it failed or never came.
bool screenshot(pr::Viewer& v, const std::string& path, pr::Image* img) {
  auto done = std::make_shared<std::promise<std::string>>();
  std::future<std::string> result = done->get_future();
  v.request_screenshot(path, [done](const std::string& error) { done->set_value(error); });
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    ADD_FAILURE() << "no screenshot of " << path;
    return false;
  }
  const std::string error = result.get();
  EXPECT_EQ(error, "");
  std::string why;
  EXPECT_TRUE(pr::read_png(path, *img, &why)) << why;
  return error.empty() && why.empty();
}

bool is_color(uint32_t px, int channel) {
  int c[3] = {int(px & 255), int((px >> 8) & 255), int((px >> 16) & 255)};
  for (int k = 0; k < 3; ++k)
    if (k == channel ? c[k] < 150 : c[k] > 60) return false;
  return true;
}

/// Pixels of `channel`'s pure color, and their mean column.
size_t count_color(const pr::Image& img, int channel, double* mean_x = nullptr) {
  size_t n = 0;
  double sum = 0.0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x)
      if (is_color(img.at(x, y), channel)) {
        ++n;
        sum += x;
      }
  if (mean_x) *mean_x = n ? sum / double(n) : 0.0;
  return n;
}

constexpr uint32_t kRed = pr::rgba(255, 0, 0), kGreen = pr::rgba(0, 255, 0),
                   kBlue = pr::rgba(0, 0, 255);
constexpr int kWidth = 640, kHeight = 400;

/// The script the other thread runs; every wait that fails ends it (the window closes anyway).
void drive(pr::Viewer& v, const std::filesystem::path& dir) {
  // The first cloud: the green one given last before open(), not the red one it replaced, nor
  // the options' scene.
  ASSERT_TRUE(wait_until([&] { return v.shown().points == 30'000; }));
  pr::Image first, kept, framed;
  ASSERT_TRUE(screenshot(v, (dir / "first.png").string(), &first));
  double first_x = 0, kept_x = 0, framed_x = 0;
  EXPECT_GT(count_color(first, 1, &first_x), 500u);
  EXPECT_EQ(count_color(first, 0), 0u);

  // Moved east with the view kept: further right in the image.
  v.set_cloud(cube(29'000, kRed, 1.5, 2), true);
  ASSERT_TRUE(wait_until([&] { return v.shown().points == 29'000; }));
  ASSERT_TRUE(screenshot(v, (dir / "kept.png").string(), &kept));
  EXPECT_GT(count_color(kept, 0, &kept_x), 200u);
  EXPECT_EQ(count_color(kept, 1), 0u);
  EXPECT_GT(kept_x, first_x + 10);

  // Framed (the default): where the first one was.
  v.set_cloud(cube(28'000, kBlue, 1.5, 3));
  ASSERT_TRUE(wait_until([&] { return v.shown().points == 28'000; }));
  ASSERT_TRUE(screenshot(v, (dir / "framed.png").string(), &framed));
  EXPECT_GT(count_color(framed, 2, &framed_x), 500u);
  EXPECT_NEAR(framed_x, first_x, 5.0);

  // A click on a blue pixel (the image is the window right of the panel) picks a point of the
  // cube; a second one measures from it.
  const int offset = kWidth - framed.width;
  int px = -1, py = -1;
  for (int y = framed.height / 2; y < framed.height && px < 0; ++y)
    for (int x = framed.width / 2; x < framed.width && px < 0; ++x)
      if (is_color(framed.at(x, y), 2)) px = x, py = y;
  ASSERT_GE(px, 0);
  v.click(offset + px, py);
  v.click(offset + px - 5, py - 5);
  ASSERT_TRUE(wait_until([&] { return v.shown().picks.size() == 2; }));
  for (const pr::PickResult& p : v.shown().picks) {
    EXPECT_NEAR(p.world.x, 1001.5, 1.0 + 1e-3);
    EXPECT_NEAR(p.world.y, 2000.0, 1.0 + 1e-3);
    EXPECT_NEAR(p.world.z, 30.0, 1.0 + 1e-3);
  }

  // A file, read as the Open box reads it.
  const std::string file = data_path("ply") + "/simple_binary.ply";
  pr::PointCloud expect;
  std::string why;
  ASSERT_TRUE(pr::load_point_cloud(file, expect, nullptr, &why)) << why;
  v.request_open({file});
  ASSERT_TRUE(wait_until([&] { return v.shown().points == expect.size(); }));
}

}  // namespace

TEST(Window, EmbeddedViewerTakesRequestsFromAnotherThread) {
  REQUIRE_DISPLAY();
  fresh_config("embed");
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("pr-embed-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  pr::Options o = scripted(0, kWidth, kHeight, 1000);
  o.ui_scale = 0.5f;
  o.color = "rgb";  // the clouds' one color drawn (a cloud of one color starts in elevation)
  pr::Viewer v(o);
  v.set_cloud(cube(10'000, kRed, 0.0, 0));
  v.set_cloud(cube(30'000, kGreen, 0.0, 1));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  std::thread driver([&] {
    drive(v, dir);
    v.request_close();
  });
  EXPECT_EQ(v.run(), 0);
  driver.join();
  std::filesystem::remove_all(dir);
}

TEST(Window, AGivenCloudWithoutColorsListsNoneAsAFileWithoutColorsDoes) {
  REQUIRE_DISPLAY();
  fresh_config("embed-colors");
  pr::ViewerTesting v(scripted(0, 320, 200, 1000));
  v.set_cloud(cube(2000, 0, 0.0, 4));
  v.set_cloud(cube(3000, 0, 0.0, 5));
  v.set_cloud([] {  // no colors: white, listed "none"
    pr::PointCloud c = cube(4000, 0, 0.0, 6);
    c.colors.clear();
    return c;
  }());
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int stage = 0;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (stage == 0 && !vw.cloud_busy() && vw.cloud_points() == 4000) {
      // The newest of the clouds given before open() is the first.
      const auto attrs = vw.point_attributes(0);
      ASSERT_FALSE(attrs.empty());
      EXPECT_EQ(attrs[0], std::make_pair(std::string("rgb"), std::string("none")));
      EXPECT_EQ(vw.status().find("points: 4000 points ready"), 0u) << vw.status();
      pr::PointCloud colored = cube(5000, 0, 0.0, 7);
      for (size_t i = 0; i < colored.size(); ++i) colored.colors[i] = pr::rgba(uint8_t(i), 9, 200);
      vw.set_cloud(std::move(colored));
      stage = 1;
    } else if (stage == 1 && !vw.cloud_busy() && vw.cloud_points() == 5000) {
      EXPECT_EQ(vw.color_mode(), "rgb");  // colors of their own: drawn as given
      const auto attrs = vw.point_attributes(0);
      ASSERT_FALSE(attrs.empty());
      EXPECT_EQ(attrs[0].first, "rgb");
      EXPECT_NE(attrs[0].second, "none");
      // A view of points given in memory names no file, and says so.
      const std::string view = (std::filesystem::temp_directory_path() /
                                ("pr-embed-view-" + std::to_string(getpid()) + ".json"))
                                   .string();
      EXPECT_TRUE(vw.save_view(view)) << vw.status();
      EXPECT_NE(vw.status().find("without its points (they came from memory"), std::string::npos)
          << vw.status();
      std::filesystem::remove(view);
      stage = 2;
      vw.request_quit();
    }
    if (frame > 5000) vw.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_EQ(stage, 2);
}
