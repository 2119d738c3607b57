// EPT datasets through the program: --headless streamed with every point allowed and --sse 0
// draws the image of the dataset read whole (--stream off: every node into one cloud), for
// laszip, binary and zstandard nodes; a URL (nginx on loopback) draws the path's image; --info
// names the format, points, bounds, dataType and attributes; --convert to COPC keeps every point.
// A dataset's directory (a path, a URL ending in '/') opens as its ept.json does in each of them;
// a directory without ept.json is one line.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include "engine/io/io.h"
#include "ept_data.h"
#include "headless.h"
#include "headless_test_util.h"
#include "info.h"
#include "nginx_server.h"
#include "options.h"
#include "pointraster_bin.h"
#include "testdata.h"

namespace fs = std::filesystem;
using pr::test::camera_for;
using pr::test::ept_path;
using pr::test::expect_same_images;
using pr::test::run;
using pr::test::summary_value;

namespace {

fs::path scratch_dir() {
  const fs::path d = fs::temp_directory_path() / ("pr_ept_app_" + std::to_string(getpid()));
  fs::create_directories(d);
  return d;
}

/// Renders `input` headless into `png`: whole (--stream off) or streamed at full detail.
void render(const std::string& input, const std::string& cam, const std::string& color,
            bool streamed, const fs::path& png, std::string* out) {
  std::vector<std::string> args = {
      "--headless", "--width", "320",     "--height", "240",          "--frames",   "2",
      "--camera",   cam,       "--color", color,      "--screenshot", png.string(), input};
  if (streamed)
    args.insert(args.end(), {"--point-budget", "10M", "--sse", "0"});
  else
    args.insert(args.end(), {"--stream", "off"});
  ASSERT_EQ(run(args, out), 0) << *out;
}

}  // namespace

TEST(EptHeadless, StreamedAtFullDetailGivesTheWholeDatasetsImage) {
  REQUIRE_TESTDATA("ept");
  const fs::path dir = scratch_dir();
  ASSERT_TRUE(pr::test::make_binary_ept(dir / "ellipsoid-binary"));
  const std::pair<std::string, const char*> cases[] = {
      {ept_path("lone-star-laszip"), "classification"},
      {ept_path("1.2-with-color") + "/ept.json", "rgb"},
      {ept_path("ellipsoid-zstandard"), "rgb"},
      {(dir / "ellipsoid-binary").string(), "rgb"}};
  for (const auto& [input, color] : cases) {
    SCOPED_TRACE(input);
    const std::string cam = camera_for(input);
    std::string whole_out, stream_out;
    render(input, cam, color, false, dir / "whole.png", &whole_out);
    render(input, cam, color, true, dir / "stream.png", &stream_out);
    expect_same_images(dir / "whole.png", dir / "stream.png");
    pr::PointCloud cloud;
    std::string error;
    ASSERT_TRUE(pr::load_point_cloud(input, cloud, nullptr, &error)) << error;
    EXPECT_EQ(summary_value(stream_out, "lod_points"), double(cloud.size())) << stream_out;
    EXPECT_GT(summary_value(stream_out, "bytes_read"), 0.0) << stream_out;
  }
  fs::remove_all(dir);
}

TEST(EptHeadless, AUrlGivesTheSameImageAsThePath) {
  REQUIRE_TESTDATA("ept");
  START_NGINX(server, pr::test::data_path("ept"), "");
  const fs::path dir = scratch_dir();
  // Color modes of each point alone (an automatic range would sample the pool's order, which
  // differs from run to run as nodes arrive).
  for (const auto& [name, color, points] :
       {std::tuple{"lone-star-laszip", "classification", 518862.0},
        std::tuple{"ellipsoid-zstandard", "rgb", 100000.0}}) {
    SCOPED_TRACE(name);
    const std::string path = ept_path(name);
    const std::string cam = camera_for(path);
    std::string out;
    render(path, cam, color, true, dir / "path.png", &out);
    render(server.url(std::string(name) + "/ept.json"), cam, color, true, dir / "url.png", &out);
    EXPECT_EQ(summary_value(out, "lod_points"), points) << out;
    expect_same_images(dir / "path.png", dir / "url.png");
  }
  fs::remove_all(dir);
}

TEST(EptHeadless, ADirectoryPathOrUrlOpensAsItsEptJson) {
  REQUIRE_TESTDATA("ept");
  START_NGINX(server, pr::test::data_path("ept"), "");
  const fs::path dir = scratch_dir();
  const std::string json = ept_path("ellipsoid-zstandard") + "/ept.json";
  const std::string cam = camera_for(json);
  std::string out;
  render(json, cam, "rgb", true, dir / "json.png", &out);
  for (const std::string& input :
       {ept_path("ellipsoid-zstandard") + "/", server.url("ellipsoid-zstandard/")}) {
    SCOPED_TRACE(input);
    render(input, cam, "rgb", true, dir / "dir.png", &out);
    EXPECT_EQ(summary_value(out, "lod_points"), 100000.0) << out;
    expect_same_images(dir / "json.png", dir / "dir.png");
    const pr::FileReport r = pr::describe_file(input, {});
    ASSERT_TRUE(r.ok) << r.error;
    EXPECT_EQ(r.info.format, "EPT");
    EXPECT_EQ(r.info.points, 100000u);
  }
  // Read whole too (--stream off) from the folder.
  render(ept_path("ellipsoid-zstandard") + "/", cam, "rgb", false, dir / "whole.png", &out);
  expect_same_images(dir / "json.png", dir / "whole.png");
  // A directory without ept.json, on disk and on the server: one line each, exit 1.
  for (const std::string& input : {pr::test::data_path("ept"), server.url("bad-pointcount/")}) {
    SCOPED_TRACE(input);
    std::string err;
    EXPECT_EQ(pr::test::run_err({"--headless", "--frames", "1", input}, &err), 1);
    EXPECT_NE(err.find(input), std::string::npos) << err;
    EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << err;
    const pr::FileReport r = pr::describe_file(input, {});
    EXPECT_FALSE(r.ok);
    EXPECT_NE(r.error.find("ept.json"), std::string::npos) << r.error;
    EXPECT_EQ(r.error.find('\n'), std::string::npos) << r.error;
  }
  fs::remove_all(dir);
}

TEST(EptInfo, NamesFormatPointsBoundsDataTypeAndAttributes) {
  REQUIRE_TESTDATA("ept");
  const pr::FileReport r = pr::describe_file(ept_path("ellipsoid-zstandard"), {});
  ASSERT_TRUE(r.ok) << r.error;
  const std::string text = pr::info_text(r.info);
  EXPECT_NE(text.find("  format      EPT 1.0.0, zstandard, span 128, EPSG:3857\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  points      100000\n"), std::string::npos) << text;
  EXPECT_NE(text.find("  bounds min  -8242747.000000 4966505.000000 -51.000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  bounds max  -8242445.000000 4966707.000000 51.000000\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("  attributes  color intensity classification\n"), std::string::npos) << text;
  const std::string json = pr::info_json(r);
  EXPECT_NE(json.find("\"format\":\"EPT\""), std::string::npos) << json;
  // A description that does not hold: one line, no report.
  const fs::path dir = scratch_dir() / "bad";
  fs::create_directories(dir);
  pr::test::write_bytes(dir / "ept.json", "{\"schema\": []}");
  const pr::FileReport bad = pr::describe_file(dir.string(), {});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("ept.json: no schema"), std::string::npos) << bad.error;
  fs::remove_all(dir.parent_path());
}

TEST(EptConvert, ToCopcKeepsEveryPoint) {
  REQUIRE_TESTDATA("ept");
  const fs::path dir = scratch_dir();
  const fs::path out = dir / "ellipsoid.copc.laz";
  // The dataset's folder, named with its slash.
  const std::string cmd = pr::test::pointraster_bin() + " --convert " + out.string() + " " +
                          ept_path("ellipsoid-zstandard") + "/ > " + (dir / "log.txt").string() +
                          " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << pr::test::read_text(dir / "log.txt");
  const pr::FileReport r = pr::describe_file(out.string(), {});
  ASSERT_TRUE(r.ok) << r.error;
  EXPECT_EQ(r.info.points, 100000u);
  EXPECT_TRUE(r.info.copc.present);
  EXPECT_TRUE(r.info.has_color);
  fs::remove_all(dir);
}
