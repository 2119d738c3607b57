// Headless streaming (app/headless.cpp with engine/io/stream.h): a COPC file streamed with a
// budget of all its points and --sse 0 draws the image of the file read whole, pixel for pixel,
// also over https:// with --ca-file and through redirects, and with a scene file's hidden
// classes, a clip box or a named field's colors too; --pick names the point the file read whole
// names; the summary line reports the streamed nodes; bad inputs (an untrusted certificate, a
// redirect loop) exit 1 with a message.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "engine/io/io.h"
#include "extra_bytes_copc.h"
#include "headless.h"
#include "headless_test_util.h"
#include "info.h"
#include "nginx_server.h"
#include "options.h"
#include "scene_file.h"
#include "test_certs.h"
#include "testdata.h"

namespace fs = std::filesystem;

using pr::test::camera_for;
using pr::test::count_pixels;
using pr::test::expect_same_images;
using pr::test::parsed;
using pr::test::run;
using pr::test::run_err;
using pr::test::summary_value;

namespace {

fs::path scratch_dir() {
  const fs::path d = fs::temp_directory_path() / ("pr_stream_test_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

/// nginx serving `root` over TLS with `cert` and `key`; null (and the test skipped or failed
/// with the reason) when it cannot start.
std::unique_ptr<pr::test::NginxServer> tls_server(const std::string& root, const std::string& cert,
                                                  const std::string& key,
                                                  const std::string& extra = "") {
  auto server = std::make_unique<pr::test::NginxServer>(root, extra);
  server->use_tls(cert, key);
  std::string error;
  EXPECT_TRUE(server->start(&error)) << error;
  if (!error.empty()) return nullptr;
  return server;
}

}  // namespace

// Streamed with every point allowed and no screen-space error, the image is the whole file's.
TEST(StreamHeadless, AllNodesGiveTheWholeFilesImage) {
  // Color modes that depend on each point alone (an automatic range from a sample of the
  // points would sample the pool's order, not the file's).
  for (const auto& [name, color] : {std::pair{"laz/lone-star.copc.laz", "classification"},
                                    std::pair{"laz/simple_with_page.copc.laz", "rgb"}}) {
    REQUIRE_TESTDATA("laz");
    const std::string path = pr::test::kData + "/" + name;
    const fs::path dir = scratch_dir();
    const std::string cam = camera_for(path);
    const std::vector<std::string> common = {"--headless", "--width",  "320", "--height",
                                             "240",        "--frames", "2",   "--camera",
                                             cam,          "--color",  color, path};
    std::string whole_out, stream_out;
    std::vector<std::string> whole = common, streamed = common;
    whole.insert(whole.end(), {"--stream", "off", "--screenshot", (dir / "whole.png").string()});
    streamed.insert(streamed.end(), {"--point-budget", "10M", "--sse", "0", "--screenshot",
                                     (dir / "stream.png").string()});
    ASSERT_EQ(run(whole, &whole_out), 0) << whole_out;
    ASSERT_EQ(run(streamed, &stream_out), 0) << stream_out;
    expect_same_images(dir / "whole.png", dir / "stream.png");
    pr::FileInfo info;
    pr::PointCloud cloud;
    std::string error;
    ASSERT_TRUE(pr::load_point_cloud(path, cloud, &info, &error));
    EXPECT_EQ(summary_value(stream_out, "lod_points"), double(info.points)) << stream_out;
    uint64_t nodes = 0;
    for (const pr::CopcLevel& l : info.copc.levels) nodes += l.nodes;
    EXPECT_EQ(summary_value(stream_out, "lod_nodes"), double(nodes)) << stream_out;
    EXPECT_GT(summary_value(stream_out, "bytes_read"), 0.0);
    EXPECT_GE(summary_value(stream_out, "converged_ms"),
              summary_value(stream_out, "first_image_ms"));
    fs::remove_all(dir);
  }
}

// The same file from a URL (nginx on loopback): the same image, and --info reads its header and
// root hierarchy page only.
TEST(StreamHeadless, AUrlGivesTheSameImageAsThePath) {
  REQUIRE_TESTDATA("laz");
  START_NGINX(server, pr::test::data_path("laz"), "");
  const std::string path = pr::test::kData + "/laz/simple_with_page.copc.laz";
  const std::string url = server.url("simple_with_page.copc.laz");
  const fs::path dir = scratch_dir();
  const std::string cam = camera_for(path);
  std::string out;
  for (const std::string& input : {path, url}) {
    const fs::path png = dir / (input == path ? "path.png" : "url.png");
    ASSERT_EQ(run({"--headless", "--width", "320", "--height", "240", "--frames", "1", "--camera",
                   cam, "--sse", "0", "--point-budget", "1M", "--screenshot", png.string(), input},
                  &out),
              0)
        << out;
    EXPECT_EQ(summary_value(out, "lod_points"), 1065.0) << out;
  }
  expect_same_images(dir / "path.png", dir / "url.png");
  fs::remove_all(dir);
}

// A small budget draws at most that many points; --no-wait draws without waiting.
TEST(StreamHeadless, BudgetAndNoWait) {
  REQUIRE_TESTDATA("laz");
  const std::string path = pr::test::kData + "/laz/lone-star.copc.laz";
  std::string out;
  ASSERT_EQ(run({"--headless", "--width", "160", "--height", "120", "--frames", "1",
                 "--point-budget", "100k", path},
                &out),
            0)
      << out;
  const double points = summary_value(out, "lod_points");
  EXPECT_GT(points, 0.0);
  EXPECT_LE(points, 100000.0 + 4096.0) << out;  // within the budget (slots of 4096 points)
  ASSERT_EQ(
      run({"--headless", "--width", "160", "--height", "120", "--frames", "3", "--no-wait", path},
          &out),
      0)
      << out;
  EXPECT_GE(summary_value(out, "first_image_ms"), 0.0) << out;
}

// Inputs that cannot stream exit 1 with a message.
TEST(StreamHeadless, BadInputsExitOne) {
  REQUIRE_TESTDATA("laz");
  REQUIRE_TESTDATA("las");
  const std::string copc = pr::test::kData + "/laz/lone-star.copc.laz";
  const std::string las = pr::test::kData + "/las/autzen_trim.las";
  std::string out;
  // Streamed and whole inputs together.
  EXPECT_EQ(run({"--headless", "--frames", "1", copc, las}, &out), 1);
  // A .vpc that is not JSON.
  const fs::path dir = scratch_dir();
  std::ofstream(dir / "broken.vpc") << "{ not json";
  EXPECT_EQ(run({"--headless", "--frames", "1", (dir / "broken.vpc").string()}, &out), 1);
  // A folder without COPC files.
  fs::create_directories(dir / "empty");
  EXPECT_EQ(run({"--headless", "--frames", "1", (dir / "empty").string()}, &out), 1);
  // A URL nobody answers (a closed port on this machine): one input says which and why.
  const std::string url = "http://127.0.0.1:9/x.copc.laz";
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"--headless", "--frames", "1", url}, &out), 1);
  std::string err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("pointraster: cannot open " + url + ": "), std::string::npos) << err;
  EXPECT_EQ(err.find("tile"), std::string::npos) << err;
  // A folder is a survey of tiles: none of them opens, and the first one's reason.
  fs::create_directories(dir / "tiles");
  std::ofstream(dir / "tiles" / "a.copc.laz") << "not a COPC file";
  testing::internal::CaptureStderr();
  EXPECT_EQ(run({"--headless", "--frames", "1", (dir / "tiles").string()}, &out), 1);
  err = testing::internal::GetCapturedStderr();
  EXPECT_NE(err.find("pointraster: no tile opens: "), std::string::npos) << err;
  EXPECT_NE(err.find("a.copc.laz"), std::string::npos) << err;
  fs::remove_all(dir);
}

// A COPC file over https:// (nginx with TLS, its certificate signed by an authority the test
// makes): with --ca-file the image is the path's, straight and through a redirect, and --info
// reads it; without --ca-file, from a server whose certificate names another host, and through a
// redirect loop, the open fails with one line and exit 1.
TEST(StreamHeadless, HttpsWithCaFileAndRedirects) {
  REQUIRE_TESTDATA("laz");
  if (const std::string why = pr::test::NginxServer::unavailable(); !why.empty()) {
    if (pr::test::nginx_required()) FAIL() << why << " (required under CI)";
    GTEST_SKIP() << why;
  }
  const fs::path dir = scratch_dir();
  fs::create_directories(dir / "certs");
  MAKE_TEST_CERTS(certs, (dir / "certs").string());
  const std::string name = "simple_with_page.copc.laz", path = pr::test::kData + "/laz/" + name;
  auto server = tls_server(pr::test::data_path("laz"), certs.server, certs.server_key,
                           "location = /moved.copc.laz { return 302 /" + name +
                               "; } location = /loop.copc.laz { return 301 /loop.copc.laz; }");
  ASSERT_TRUE(server);
  const std::string url = server->url(name);
  const std::string cam = camera_for(path);
  const std::vector<std::string> common = {
      "--headless", "--width", "320", "--height",       "240", "--frames",    "1", "--camera",
      cam,          "--sse",   "0",   "--point-budget", "1M",  "--screenshot"};
  std::string out;
  for (const auto& [input, png] : {std::pair{path, "path.png"}, std::pair{url, "url.png"},
                                   std::pair{server->url("moved.copc.laz"), "moved.png"}}) {
    std::vector<std::string> args = common;
    args.insert(args.end(), {(dir / png).string(), "--ca-file", certs.ca, input});
    ASSERT_EQ(run(args, &out), 0) << input << ": " << out;
    EXPECT_EQ(summary_value(out, "lod_points"), 1065.0) << out;
  }
  expect_same_images(dir / "path.png", dir / "url.png");
  expect_same_images(dir / "path.png", dir / "moved.png");

  testing::internal::CaptureStdout();
  EXPECT_EQ(pr::run_info(parsed({"--info", "--ca-file", certs.ca, url})), 0);
  out = testing::internal::GetCapturedStdout();
  EXPECT_NE(out.find("points      1065"), std::string::npos) << out;

  // The system's store alone does not trust the test's authority.
  std::string err;
  const std::vector<std::string> plain = {"--headless", "--frames", "1"};
  std::vector<std::string> args = plain;
  args.push_back(url);
  EXPECT_EQ(run_err(args, &err), 1);
  EXPECT_EQ(
      err.rfind("pointraster: cannot open " + url + ": the server's certificate is not trusted (",
                0),
      0u)
      << err;
  EXPECT_NE(err.find("); pass --ca-file with the authority that signed it\n"), std::string::npos)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

  const std::string loop = server->url("loop.copc.laz");
  args = plain;
  args.insert(args.end(), {"--ca-file", certs.ca, loop});
  EXPECT_EQ(run_err(args, &err), 1);
  EXPECT_EQ(err,
            "pointraster: cannot open " + loop + ": more than 5 redirects (a redirect loop?)\n");

  auto elsewhere = tls_server(pr::test::data_path("laz"), certs.elsewhere, certs.elsewhere_key);
  ASSERT_TRUE(elsewhere);
  const std::string other = elsewhere->url(name);
  args = plain;
  args.insert(args.end(), {"--ca-file", certs.ca, other});
  EXPECT_EQ(run_err(args, &err), 1);
  EXPECT_EQ(err.rfind("pointraster: cannot open " + other +
                          ": the server's certificate is made for another host (",
                      0),
            0u)
      << err;
  EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;

  pr::Options o;
  std::string error;
  EXPECT_NE(pr::parse_arguments({"--ca-file", (dir / "absent.pem").string()}, o, &error), 0);
  EXPECT_NE(error.find("--ca-file"), std::string::npos) << error;
  fs::remove_all(dir);
}

namespace {

/// A scene file (docs/SCENE.md) that hides `classes`, for the FILEs given beside it.
std::string hiding_scene(const fs::path& dir, const std::string& classes) {
  const fs::path p = dir / "hide.json";
  std::ofstream(p)
      << R"({"format": "pointraster scene", "version": 1, "color": {"hidden_classes": [)" << classes
      << "]}}\n";
  return p.string();
}

/// The number after `key=` on the "pick" line, or NaN.
double pick_value(const std::string& out, const std::string& key) {
  std::smatch line, m;
  if (!std::regex_search(out, line, std::regex("(^|\n)pick ([^\n]*)"))) return std::nan("");
  const std::string words = " " + line[2].str();
  const std::regex re(" " + key + "=([0-9.e+-]+)");
  return std::regex_search(words, m, re) ? std::stod(m[1]) : std::nan("");
}

}  // namespace

// A scene file's hidden classes apply to a streamed file as to the file read whole: the same
// image, which differs from the one with every class.
TEST(StreamHeadless, HiddenClassesGiveTheWholeFilesImage) {
  REQUIRE_TESTDATA("laz");
  const std::string path = pr::test::kData + "/laz/simple_with_page.copc.laz";
  const fs::path dir = scratch_dir();
  const std::string cam = camera_for(path);
  const std::string scene = hiding_scene(dir, "2");
  const std::vector<std::string> common = {"--headless", "--width",  "320", "--height",
                                           "240",        "--frames", "1",   "--camera",
                                           cam,          "--color",  "rgb", path};
  std::string out;
  auto draw = [&](const std::vector<std::string>& extra, const std::string& png) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--screenshot", (dir / png).string()});
    ASSERT_EQ(run(args, &out), 0) << out;
  };
  draw({scene, "--stream", "off"}, "whole.png");
  draw({scene, "--point-budget", "1M", "--sse", "0"}, "stream.png");
  draw({"--point-budget", "1M", "--sse", "0"}, "every_class.png");
  expect_same_images(dir / "whole.png", dir / "stream.png");
  pr::Image a, b;
  std::string error;
  ASSERT_TRUE(pr::read_png((dir / "stream.png").string(), a, &error)) << error;
  ASSERT_TRUE(pr::read_png((dir / "every_class.png").string(), b, &error)) << error;
  EXPECT_NE(a.rgba, b.rgba) << "class 2 is drawn in the view";
  fs::remove_all(dir);
}

// --pick on a streamed file names the point the file read whole names there: the file's
// coordinates (the pool's position plus the origin, in double) and its class.
TEST(StreamHeadless, PickGivesTheFilesCoordinates) {
  REQUIRE_TESTDATA("laz");
  const std::string path = pr::test::kData + "/laz/1.2-with-color.copc.laz";
  const std::string cam = camera_for(path);
  const fs::path dir = scratch_dir();
  std::string whole, streamed;
  // A pixel the file's points cover: the first lit one of the whole file's image.
  ASSERT_EQ(run({"--headless", "--width", "320", "--height", "240", "--frames", "1", "--camera",
                 cam, "--stream", "off", path, "--screenshot", (dir / "whole.png").string()},
                &whole),
            0)
      << whole;
  pr::Image img;
  std::string error;
  ASSERT_TRUE(pr::read_png((dir / "whole.png").string(), img, &error)) << error;
  fs::remove_all(dir);
  size_t at = 0;
  while (at < img.rgba.size() && img.rgba[at] == img.rgba[0]) ++at;
  ASSERT_LT(at, img.rgba.size());
  const std::string pixel =
      std::to_string(at % size_t(img.width)) + "," + std::to_string(at / size_t(img.width));
  const std::vector<std::string> common = {"--headless", "--width",  "320", "--height",
                                           "240",        "--frames", "1",   "--camera",
                                           cam,          "--pick",   pixel, path};
  std::vector<std::string> args = common;
  args.insert(args.end(), {"--stream", "off"});
  ASSERT_EQ(run(args, &whole), 0) << whole;
  args = common;
  args.insert(args.end(), {"--point-budget", "1M", "--sse", "0"});
  ASSERT_EQ(run(args, &streamed), 0) << streamed;
  ASSERT_FALSE(std::isnan(pick_value(whole, "x"))) << whole;
  for (const char* key : {"x", "y", "z", "class"})
    EXPECT_EQ(pick_value(streamed, key), pick_value(whole, key)) << key << "\n" << streamed;
  // A point of the file: its coordinates on the file's grid (scale 0.01).
  pr::PointCloud cloud;
  ASSERT_TRUE(pr::load_point_cloud(path, cloud, nullptr, &error)) << error;
  const glm::dvec3 picked(pick_value(streamed, "x"), pick_value(streamed, "y"),
                          pick_value(streamed, "z"));
  double nearest = 1e30;
  for (const pr::Float3& p : cloud.positions)
    nearest = std::min(nearest, glm::length(cloud.origin + glm::dvec3(p.x, p.y, p.z) - picked));
  EXPECT_LT(nearest, 1e-3);
}

// A clip box and hidden classes together: the streamed image (nodes outside the box not read)
// equals the whole file's with both, and differs from each one alone.
TEST(StreamHeadless, ClipAndClassFilterCombine) {
  REQUIRE_TESTDATA("laz");
  const std::string path = pr::test::kData + "/laz/simple_with_page.copc.laz";
  const fs::path dir = scratch_dir();
  const std::string cam = camera_for(path);
  const std::string scene = hiding_scene(dir, "2");
  pr::PointCloud cloud;
  std::string error;
  ASSERT_TRUE(pr::load_point_cloud(path, cloud, nullptr, &error)) << error;
  const pr::Bounds b = cloud.world_bounds();
  // The western half of the cloud, every height.
  char clip[256];
  std::snprintf(clip, sizeof clip, "%.6f,%.6f,%.6f,%.6f,%.6f,%.6f", b.min.x + 0.25 * b.size().x,
                b.center().y, b.center().z, 0.5 * b.size().x, 1.1 * b.size().y,
                1.1 * b.size().z + 1.0);
  const std::vector<std::string> common = {
      "--headless", "--width", "640",     "--height", "480",          "--frames", "1",
      "--camera",   cam,       "--color", "rgb",      "--point-size", "3",        path};
  std::string out;
  auto draw = [&](const std::vector<std::string>& extra, const std::string& png) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--screenshot", (dir / png).string()});
    ASSERT_EQ(run(args, &out), 0) << out;
  };
  draw({scene, "--clip-box", clip, "--stream", "off"}, "whole.png");
  draw({scene, "--clip-box", clip, "--point-budget", "1M", "--sse", "0"}, "both.png");
  draw({"--clip-box", clip, "--point-budget", "1M", "--sse", "0"}, "clip.png");
  draw({scene, "--point-budget", "1M", "--sse", "0"}, "classes.png");
  expect_same_images(dir / "whole.png", dir / "both.png");
  pr::Image both, clipped, classes;
  ASSERT_TRUE(pr::read_png((dir / "both.png").string(), both, &error)) << error;
  ASSERT_TRUE(pr::read_png((dir / "clip.png").string(), clipped, &error)) << error;
  ASSERT_TRUE(pr::read_png((dir / "classes.png").string(), classes, &error)) << error;
  EXPECT_NE(both.rgba, clipped.rgba);
  EXPECT_NE(both.rgba, classes.rgba);
  fs::remove_all(dir);
}

// A COPC file's extra bytes color a streamed file as they color the file read whole: the field's
// range over every point once the view has converged, the same image.
TEST(StreamHeadless, AFieldColorsTheStreamedFileAsTheWholeFile) {
  REQUIRE_TESTDATA("las");
  const fs::path dir = scratch_dir();
  std::string copc, error;
  ASSERT_TRUE(pr::test::extra_bytes_copc(dir, false, &copc, &error)) << error;
  const std::string cam = camera_for(copc);
  std::string out;
  for (const char* field : {"Time", "Intensity"}) {
    const std::vector<std::string> common = {"--headless", "--width",  "320", "--height",
                                             "240",        "--frames", "1",   "--camera",
                                             cam,          "--color",  field, copc};
    std::vector<std::string> args = common;
    args.insert(args.end(), {"--stream", "off", "--screenshot", (dir / "whole.png").string()});
    ASSERT_EQ(run(args, &out), 0) << out;
    args = common;
    args.insert(args.end(), {"--point-budget", "1M", "--sse", "0", "--screenshot",
                             (dir / "stream.png").string()});
    ASSERT_EQ(run(args, &out), 0) << out;
    expect_same_images(dir / "whole.png", dir / "stream.png");
  }
  fs::remove_all(dir);
}

// A field whose extra-bytes descriptor declares a range is colored over that range while
// streaming: the image of the file read whole with that range set by hand, not its own.
TEST(StreamHeadless, AFieldsDeclaredRangeColorsTheStream) {
  REQUIRE_TESTDATA("las");
  const fs::path dir = scratch_dir();
  std::string copc, error;
  ASSERT_TRUE(pr::test::extra_bytes_copc(dir, true, &copc, &error)) << error;
  const fs::path ranged = dir / "ranged.json";
  std::ofstream(ranged) << R"({"format": "pointraster scene", "version": 1, "color": {"range": [)"
                        << pr::test::kDeclaredTimeLo << ", " << pr::test::kDeclaredTimeHi
                        << "]}}\n";
  const std::string cam = camera_for(copc);
  const std::vector<std::string> common = {"--headless", "--width",  "320",  "--height",
                                           "240",        "--frames", "1",    "--camera",
                                           cam,          "--color",  "Time", copc};
  std::string out;
  auto draw = [&](const std::vector<std::string>& extra, const std::string& png) {
    std::vector<std::string> args = common;
    args.insert(args.end(), extra.begin(), extra.end());
    args.insert(args.end(), {"--screenshot", (dir / png).string()});
    ASSERT_EQ(run(args, &out), 0) << out;
  };
  draw({"--point-budget", "1M", "--sse", "0"}, "stream.png");
  draw({ranged.string(), "--stream", "off"}, "declared.png");
  draw({"--stream", "off"}, "own.png");
  expect_same_images(dir / "declared.png", dir / "stream.png");
  pr::Image a, b;
  ASSERT_TRUE(pr::read_png((dir / "stream.png").string(), a, &error)) << error;
  ASSERT_TRUE(pr::read_png((dir / "own.png").string(), b, &error)) << error;
  EXPECT_NE(a.rgba, b.rgba) << "the declared range differs from the points' own";
  fs::remove_all(dir);
}
