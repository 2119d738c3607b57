// EPT datasets (engine/io/ept.h) and their streaming: PDAL's test datasets (laszip with a nested
// hierarchy, laszip with colors, zstandard, a binary one made from it) give their point counts
// and bounds; the streamed pool at full detail holds exactly the points of every node read into
// one cloud; the decoded nodes hold what laspy and NumPy + zstandard read (ept_reference.py); a
// URL served by nginx streams like the path; broken datasets give one line each and the rest
// draws; the conversion to COPC keeps every point.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <tuple>

#include <unistd.h>

#include "engine/io/convert.h"
#include "engine/io/ept.h"
#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "ept_data.h"
#include "nginx_server.h"
#include "run_command.h"
#include "stream_test_util.h"
#include "testdata.h"

#ifndef PR_TEST_PYTHON
#define PR_TEST_PYTHON ""
#endif

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::ept_path;

using Point = test::StreamPoint;
using test::points_of;
using test::stream_options;
using test::view_of;

std::unique_ptr<EptDataset> open_local(const std::string& input, std::string* error = nullptr) {
  std::string err;
  auto d = test::open_local_ept(input, &err);
  EXPECT_TRUE(d || error) << err;
  if (error) *error = err;
  return d;
}

/// Every node read through the reader into one cloud (load_point_cloud of the dataset).
PointCloud whole(const std::string& input, std::vector<std::string>* warnings = nullptr) {
  PointCloud c;
  FileInfo info;
  std::string err;
  EXPECT_TRUE(load_point_cloud(input, c, &info, &err)) << err;
  if (warnings) *warnings = info.warnings;
  return c;
}

fs::path scratch(const char* name) {
  const fs::path d = fs::temp_directory_path() / ("pr_ept_" + std::to_string(::getpid())) / name;
  fs::create_directories(d.parent_path());
  return d;
}

struct Dataset {
  const char* name;
  uint64_t points;  ///< the hierarchy's (and ept.json's) count
  const char* data_type;
  bool color;
};

const Dataset kDatasets[] = {{"lone-star-laszip", 518862, "laszip", false},
                             {"1.2-with-color", 1065, "laszip", true},
                             {"ellipsoid-zstandard", 100000, "zstandard", true}};

TEST(IoEpt, DatasetsGiveTheirCountsAndBounds) {
  REQUIRE_TESTDATA("ept");
  for (const Dataset& ds : kDatasets) {
    SCOPED_TRACE(ds.name);
    const auto d = open_local(ept_path(ds.name));
    ASSERT_TRUE(d);
    EXPECT_EQ(d->info().format, "EPT");
    EXPECT_EQ(d->info().points, ds.points);
    EXPECT_EQ(d->data_type(), ds.data_type);
    EXPECT_NE(d->info().version.find(ds.data_type), std::string::npos);
    EXPECT_EQ(d->info().has_color, ds.color);
    EXPECT_TRUE(d->info().has_intensity);
    std::vector<std::string> warnings;
    const PointCloud c = whole(ept_path(ds.name), &warnings);
    EXPECT_TRUE(warnings.empty()) << warnings[0];
    EXPECT_EQ(c.size(), ds.points);
    EXPECT_EQ(c.origin, d->origin());
    // The points lie in boundsConforming (EPT rounds it outwards to whole units).
    const Bounds b = c.world_bounds(), conforming = d->info().bounds;
    for (int k = 0; k < 3; ++k) {
      EXPECT_GE(b.min[k], conforming.min[k] - 1e-3);
      EXPECT_LE(b.max[k], conforming.max[k] + 1e-3);
      EXPECT_GT(b.max[k] - b.min[k], 0.5 * (conforming.max[k] - conforming.min[k]));
    }
  }
  // bcbf: 5 nodes down to depth 4, one point each at (1, 1, 999) in its integers.
  const PointCloud bcbf = whole(ept_path("bcbf"));
  ASSERT_EQ(bcbf.size(), 5u);
  const Bounds b = bcbf.world_bounds();
  EXPECT_EQ(b.min, glm::dvec3(1, 1, 999));
  EXPECT_EQ(b.max, glm::dvec3(1, 1, 999));
}

TEST(IoEpt, StreamedAtFullDetailHoldsEveryNodesPoints) {
  REQUIRE_TESTDATA("ept");
  const fs::path binary = scratch("ellipsoid-binary");
  ASSERT_TRUE(test::make_binary_ept(binary));
  std::vector<std::string> inputs;
  for (const Dataset& ds : kDatasets) inputs.push_back(ept_path(ds.name));
  inputs.push_back(binary.string());
  inputs.push_back(ept_path("lone-star-laszip") + "/ept.json");  // the file, not the folder
  for (const std::string& input : inputs) {
    SCOPED_TRACE(input);
    const PointCloud all = whole(input);
    ASSERT_GT(all.size(), 0u);
    EXPECT_TRUE(is_streamed_input(input));
    StreamingScene scene(stream_options(all.size()));
    std::string error;
    ASSERT_TRUE(scene.open({input}, &error)) << error;
    EXPECT_EQ(scene.info().format, "EPT");
    EXPECT_EQ(scene.info().points, all.size());
    EXPECT_EQ(scene.info().origin, all.origin);
    ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 30.0));
    EXPECT_TRUE(points_of(scene.pool()) == points_of(all));
    EXPECT_EQ(scene.stats().points_drawn, all.size());
    EXPECT_EQ(scene.stats().nodes_failed, 0u);
    EXPECT_GT(scene.stats().bytes_read, 0u);
    const std::vector<std::string> messages = scene.take_messages();
    EXPECT_TRUE(messages.empty()) << messages[0];
  }
  // The binary node holds the zstandard node's records: the same points.
  EXPECT_TRUE(points_of(whole(binary.string())) ==
              points_of(whole(ept_path("ellipsoid-zstandard"))));
  fs::remove_all(binary);
}

TEST(IoEpt, NodesHoldWhatLaspyAndZstandardRead) {
  const std::string python = PR_TEST_PYTHON;
  if (python.empty())
    GTEST_SKIP() << "no Python with laspy and zstandard (configure with -DPR_TEST_PYTHON=...)";
  REQUIRE_TESTDATA("ept");
  const std::string script = (fs::path(__FILE__).parent_path() / "ept_reference.py").string();
  const fs::path table = scratch("reference.bin");
  const std::pair<const char*, CopcKey> nodes[] = {{"lone-star-laszip", {0, 0, 0, 0}},
                                                   {"lone-star-laszip", {1, 1, 1, 1}},
                                                   {"lone-star-laszip", {3, 5, 4, 3}},
                                                   {"1.2-with-color", {0, 0, 0, 0}},
                                                   {"ellipsoid-zstandard", {0, 0, 0, 0}}};
  for (const auto& [name, key] : nodes) {
    const std::string k = std::to_string(key.level) + "-" + std::to_string(key.x) + "-" +
                          std::to_string(key.y) + "-" + std::to_string(key.z);
    SCOPED_TRACE(std::string(name) + " " + k);
    std::string out;
    ASSERT_TRUE(test::run_command(
        python + " " + script + " " + ept_path(name) + " " + k + " " + table.string(), out))
        << out;
    const std::vector<char> raw = test::read_bytes(table);
    std::vector<double> ref(raw.size() / 8);
    std::memcpy(ref.data(), raw.data(), ref.size() * 8);
    const size_t n = ref.size() / 12;
    const auto d = open_local(ept_path(name));
    ASSERT_TRUE(d);
    PointCloud c;
    std::string err;
    ASSERT_TRUE(d->read_node(key, int64_t(n), d->origin(), c, &err)) << err;
    ASSERT_EQ(c.size(), n);
    // Colors: 16-bit channels to 8 bits unless none of the node exceeds 255.
    double max_channel = 0.0;
    for (size_t i = 0; i < n; ++i)
      for (int k3 = 9; k3 < 12; ++k3) max_channel = std::max(max_channel, ref[i * 12 + size_t(k3)]);
    const int shift = max_channel > 255.0 ? 8 : 0;
    size_t bad = 0;
    for (size_t i = 0; i < n && bad < 5; ++i) {
      const double* r = &ref[i * 12];
      const glm::dvec3 o = d->origin();
      const Float3 p = c.positions[i];
      const bool same =
          p.x == float(r[0] - o.x) && p.y == float(r[1] - o.y) && p.z == float(r[2] - o.z) &&
          c.intensity[i] == float(r[3]) && c.classification[i] == uint8_t(r[4]) &&
          c.returns[i] == pack_returns(unsigned(r[5]), unsigned(r[6])) &&
          c.point_source[i] == uint16_t(r[7]) &&
          (c.gps_time.empty() ? r[8] == 0.0 : c.gps_time[i] == r[8]) &&
          (!d->info().has_color ||
           c.colors[i] == rgba(uint8_t(unsigned(r[9]) >> shift), uint8_t(unsigned(r[10]) >> shift),
                               uint8_t(unsigned(r[11]) >> shift)));
      if (!same) {
        ++bad;
        ADD_FAILURE() << "point " << i << " differs: x " << r[0] << " intensity " << r[3]
                      << " class " << r[4] << " red " << r[9];
      }
    }
  }
  fs::remove(table);
}

TEST(IoEpt, UrlStreamsLikeThePath) {
  REQUIRE_TESTDATA("ept");
  START_NGINX(server, test::data_path("ept"), "");
  for (const char* name : {"lone-star-laszip", "ellipsoid-zstandard"}) {
    SCOPED_TRACE(name);
    const PointCloud all = whole(ept_path(name));
    StreamingScene scene(stream_options(all.size()));
    std::string error;
    const std::string url = server.url(std::string(name) + "/ept.json");
    EXPECT_TRUE(is_streamed_input(url));
    ASSERT_TRUE(scene.open({url}, &error)) << error;
    EXPECT_EQ(scene.info().origin, all.origin);
    ASSERT_TRUE(scene.wait_converged(view_of(scene.info().bounds), 30.0));
    EXPECT_TRUE(points_of(scene.pool()) == points_of(all));
    EXPECT_TRUE(scene.take_messages().empty());
  }
  // Each file is read whole: a first request of up to 16 KiB (the source's probe), and one more
  // for the rest of a larger file. lone-star: ept.json, 6 hierarchy files, 13 nodes;
  // ellipsoid: ept.json, 1 hierarchy file, 1 node.
  uint64_t connections = 0, requests = 0;
  std::string error;
  ASSERT_TRUE(server.counts(&connections, &requests, &error)) << error;
  EXPECT_LE(requests, 2u * (20 + 3));
  std::printf("EPT over HTTP: %llu requests on %llu connections\n",
              static_cast<unsigned long long>(requests),
              static_cast<unsigned long long>(connections));
}

/// Streams `inputs` at full detail; the points drawn and the messages.
size_t stream_points(const std::vector<std::string>& inputs, std::vector<std::string>& messages) {
  const test::Streamed s = test::stream_converged(inputs);
  EXPECT_TRUE(s.opened) << s.error;
  messages = s.messages;
  return s.points.size();
}

TEST(IoEpt, BadPointCountIsOneLineAndNothingElseBreaks) {
  REQUIRE_TESTDATA("ept");
  // The hierarchy says 1000 points, the node's LAZ file holds 1065.
  const std::string bad = ept_path("bad-pointcount/laszip");
  std::vector<std::string> messages;
  EXPECT_EQ(stream_points({bad}, messages), 0u);
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_NE(messages[0].find("0-0-0-0"), std::string::npos) << messages[0];
  EXPECT_NE(messages[0].find("1065"), std::string::npos) << messages[0];
  EXPECT_EQ(messages[0].find('\n'), std::string::npos);
  std::vector<std::string> warnings;
  EXPECT_EQ(whole(bad, &warnings).size(), 0u);
  EXPECT_EQ(warnings.size(), 1u);
  // With a sound dataset beside it, that one draws whole.
  EXPECT_EQ(stream_points({bad, ept_path("1.2-with-color")}, messages), 1065u);
  EXPECT_EQ(messages.size(), 1u);
}

TEST(IoEpt, BrokenNodesAndHierarchiesGiveOneLineEachAndTheRestDraws) {
  REQUIRE_TESTDATA("ept");
  const uint64_t all = 518862;
  const fs::path dir = scratch("lone-star");
  struct Case {
    const char* what;
    std::function<void(const fs::path&)> damage;
    uint64_t lost;
    const char* named;
  };
  const Case cases[] = {
      {"a node that does not decode",
       [](const fs::path& d) { test::write_bytes(d / "ept-data/1-0-0-0.laz", "LASF garbage"); },
       22108, "1-0-0-0"},
      {"a missing node file", [](const fs::path& d) { fs::remove(d / "ept-data/1-1-0-0.laz"); },
       37195, "1-1-0-0"},
      {"a missing hierarchy file",
       [](const fs::path& d) { fs::remove(d / "ept-hierarchy/2-2-2-1.json"); }, 85048 + 18266,
       "2-2-2-1"},
      {"a hierarchy file that is no JSON",
       [](const fs::path& d) { test::write_bytes(d / "ept-hierarchy/2-2-2-2.json", "{\"2-2-"); },
       59398 + 21327, "2-2-2-2"},
      {"a key outside the cube",
       [](const fs::path& d) {
         test::write_bytes(d / "ept-hierarchy/2-3-3-1.json", "{\"2-3-3-1\":41734,\"2-4-0-0\":5}");
       },
       0, "2-4-0-0"},
      {"key text that is no key",
       [](const fs::path& d) {
         test::write_bytes(d / "ept-hierarchy/2-3-3-1.json", "{\"2-3-3-1\":41734,\"banana\":5}");
       },
       0, "banana"},
      {"a key outside its file's subtree",
       [](const fs::path& d) {
         test::write_bytes(d / "ept-hierarchy/2-3-3-1.json", "{\"2-3-3-1\":41734,\"1-0-0-0\":5}");
       },
       0, "1-0-0-0"},
      {"a count beyond 2^63",
       [](const fs::path& d) {
         test::write_bytes(d / "ept-hierarchy/2-3-3-1.json",
                           "{\"2-3-3-1\":41734,\"3-6-6-2\":18446744073709551615}");
       },
       0, "3-6-6-2 has the count"},
      {"a count that is no count",
       [](const fs::path& d) {
         test::write_bytes(d / "ept-hierarchy/2-3-3-1.json",
                           "{\"2-3-3-1\":41734,\"3-6-6-2\":\"many\"}");
       },
       0, "3-6-6-2 has the count"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    test::copy_ept("lone-star-laszip", dir);
    c.damage(dir);
    std::vector<std::string> messages;
    EXPECT_EQ(stream_points({dir.string()}, messages), all - c.lost);
    ASSERT_EQ(messages.size(), 1u) << messages[0] << " / " << messages.back();
    EXPECT_NE(messages[0].find(c.named), std::string::npos) << messages[0];
    EXPECT_EQ(messages[0].find('\n'), std::string::npos);
    std::vector<std::string> warnings;
    EXPECT_EQ(whole(dir.string(), &warnings).size(), all - c.lost);
    EXPECT_EQ(warnings.size(), 1u);
  }
  fs::remove_all(dir);
}

TEST(IoEpt, BadDescriptionsAreOneLine) {
  REQUIRE_TESTDATA("ept");
  const fs::path dir = scratch("bad-json");
  const std::string good = test::read_text(ept_path("bcbf") + "/ept.json");
  auto with = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    if (at != std::string::npos) s.replace(at, from.size(), to);
    return s;
  };
  const std::pair<std::string, std::string> cases[] = {
      {with("{ \"name\": \"Z\", \"size\": 4, \"type\": \"signed\" }",
            "{ \"name\": \"W\", \"size\": 4, \"type\": \"signed\" }"),
       "no X, Y and Z"},
      {with("\"name\": \"Z\", \"size\": 4, \"type\": \"signed\"",
            "\"name\": \"Z\", \"size\": 4, \"type\": \"complex\""),
       "unknown type 'complex'"},
      {with("\"name\": \"Z\", \"size\": 4, \"type\": \"signed\"",
            "\"name\": \"Z\", \"size\": 3, \"type\": \"signed\""),
       "size 3"},
      {with("\"dataType\": \"binary\"", "\"dataType\": \"gzip\""), "dataType 'gzip'"},
      // A file's string holding a line break (as a fuzzer wrote one) is shown on the one line.
      {with("\"name\": \"Z\", \"size\": 4, \"type\": \"signed\"",
            "\"name\": \"Z\\nW\", \"size\": 4, \"type\": \"sig\\nned\""),
       "dimension Z?W has the unknown type 'sig?ned'"},
      {with("[-1000, -1000, -1000, 1000, 1000, 1000],\n  \"boundsC",
            "[1000, -1000, -1000, 1000, 1000, 1000],\n  \"boundsC"),
       "bounds"},
      {"{ not json", "not valid JSON"},
  };
  for (const auto& [text, expected] : cases) {
    SCOPED_TRACE(expected);
    fs::create_directories(dir);
    test::write_bytes(dir / "ept.json", text);
    std::string err;
    EXPECT_FALSE(open_local(dir.string(), &err));
    EXPECT_NE(err.find(expected), std::string::npos) << err;
    EXPECT_NE(err.find("ept.json"), std::string::npos) << err;
    EXPECT_EQ(err.find('\n'), std::string::npos) << err;
    // Beside a sound dataset, the survey opens; the bad one is named once.
    std::vector<std::string> messages;
    EXPECT_EQ(stream_points({dir.string(), ept_path("1.2-with-color")}, messages), 1065u);
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_NE(messages[0].find(expected), std::string::npos) << messages[0];
  }
  fs::remove_all(dir);
}

TEST(IoEpt, ServerErrorsAreOneLineAndTheRestDraws) {
  REQUIRE_TESTDATA("ept");
  const fs::path dir = scratch("served");
  test::copy_ept("lone-star-laszip", dir / "lone-star");
  fs::remove(dir / "lone-star/ept-data/1-0-1-0.laz");        // 404
  fs::remove(dir / "lone-star/ept-hierarchy/2-3-2-1.json");  // 404
  START_NGINX(server, dir.string(), "");
  std::vector<std::string> messages;
  EXPECT_EQ(stream_points({server.url("lone-star/ept.json")}, messages), 518862u - 25867 - 37423);
  ASSERT_EQ(messages.size(), 2u);
  std::sort(messages.begin(), messages.end());
  EXPECT_NE(messages[0].find("1-0-1-0"), std::string::npos) << messages[0];
  EXPECT_NE(messages[1].find("2-3-2-1"), std::string::npos) << messages[1];
  for (const std::string& m : messages) EXPECT_NE(m.find("404"), std::string::npos) << m;
  // ept.json itself not found: the open fails with one line.
  StreamingScene scene(stream_options(1000));
  std::string error;
  EXPECT_FALSE(scene.open({server.url("nothing/ept.json")}, &error));
  EXPECT_NE(error.find("404"), std::string::npos) << error;
  fs::remove_all(dir);
}

TEST(IoEpt, ConvertsToCopcWithEveryPoint) {
  REQUIRE_TESTDATA("ept");
  const fs::path out = scratch("lone-star.copc.laz");
  ConvertResult result;
  std::string error;
  ASSERT_TRUE(convert_point_clouds({ept_path("lone-star-laszip")}, out.string(), {}, nullptr,
                                   &result, &error))
      << error;
  EXPECT_EQ(result.points, 518862u);
  PointCloud c;
  FileInfo info;
  ASSERT_TRUE(load_point_cloud(out.string(), c, &info, &error)) << error;
  EXPECT_EQ(c.size(), 518862u);
  EXPECT_TRUE(info.copc.present);
  fs::remove(out);
}

}  // namespace
}  // namespace pr
