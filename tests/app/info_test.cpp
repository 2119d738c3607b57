// --info (app/info.cpp) on real files: the JSON line parsed back with nlohmann-json, and the text.
#include "info.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/io/copc.h"
#include "engine/io/load.h"
#include "engine/io/open_byte_source.h"
#include "testdata.h"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // keys in the order written

namespace {

json describe_json(const std::string& path, const pr::LoadOptions& options = {}) {
  const std::string line = pr::info_json(pr::describe_file(path, options));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  return json::parse(line);
}

std::vector<std::string> keys(const json& j) {
  std::vector<std::string> k;
  for (auto it = j.begin(); it != j.end(); ++it) k.push_back(it.key());
  return k;
}

/// A copy of autzen_trim.las cut after its header and `records` point records, with the
/// header's point count set to `declared` (the legacy 32-bit count at byte 107).
std::string cut_las(const std::string& name, size_t records, uint32_t declared) {
  std::ifstream in(pr::test::data_path("las") + "/autzen_trim.las", std::ios::binary);
  std::string d((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  uint32_t offset = 0;
  uint16_t record_length = 0;
  std::memcpy(&offset, d.data() + 96, 4);
  std::memcpy(&record_length, d.data() + 105, 2);
  d.resize(offset + records * record_length);
  std::memcpy(d.data() + 107, &declared, 4);
  const fs::path dir = fs::temp_directory_path() / ("pr_info_test_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / name).string();
  std::ofstream(path, std::ios::binary) << d;
  return path;
}

}  // namespace

TEST(Info, JsonOfALasFile) {
  REQUIRE_TESTDATA("las");
  const std::string path = pr::test::data_path("las") + "/autzen_trim.las";
  const json j = describe_json(path);
  EXPECT_EQ(keys(j), (std::vector<std::string>{"file", "format", "version", "points", "bounds_min",
                                               "bounds_max", "origin", "has_color", "has_intensity",
                                               "has_classification", "seconds"}));
  EXPECT_EQ(j["file"], path);
  EXPECT_EQ(j["format"], "LAS");
  EXPECT_EQ(j["version"], "1.2 format 3");
  EXPECT_EQ(j["points"], 110000);
  for (int a = 0; a < 3; ++a) {
    EXPECT_LT(j["bounds_min"][a].get<double>(), j["bounds_max"][a].get<double>());
    EXPECT_TRUE(j["origin"][a].is_number_integer()) << j["origin"];  // whole numbers: 636594
  }
  EXPECT_NEAR(j["bounds_min"][0].get<double>(), 636001.76, 1e-6);
  EXPECT_NEAR(j["bounds_max"][2].get<double>(), 520.51, 1e-6);
  EXPECT_EQ(j["origin"], json::array({636594, 849215, 460}));
  EXPECT_TRUE(j["has_color"].get<bool>());
  EXPECT_TRUE(j["has_intensity"].get<bool>());
  EXPECT_TRUE(j["has_classification"].get<bool>());
  EXPECT_GT(j["seconds"].get<double>(), 0.0);
}

TEST(Info, JsonOfACopcFileAndAnE57File) {
  REQUIRE_TESTDATA("laz");
  REQUIRE_TESTDATA("e57");
  const json c = describe_json(pr::test::data_path("laz") + "/1.2-with-color.copc.laz");
  ASSERT_TRUE(c.contains("copc")) << c;
  EXPECT_EQ(keys(c["copc"]), (std::vector<std::string>{"center", "halfsize", "spacing", "levels"}));
  uint64_t points = 0;
  for (const json& level : c["copc"]["levels"]) {
    EXPECT_TRUE(level["read"].get<bool>());
    points += level["points"].get<uint64_t>();
  }
  EXPECT_EQ(points, c["points"].get<uint64_t>());
  const json e = describe_json(pr::test::data_path("e57") + "/A_B.e57");
  EXPECT_EQ(e["format"], "E57");
  ASSERT_EQ(e["scans"].size(), 2u) << e;
  EXPECT_EQ(keys(e["scans"][0]), (std::vector<std::string>{"name", "records", "points", "read"}));
  EXPECT_EQ(e["scans"][0]["points"].get<uint64_t>() + e["scans"][1]["points"].get<uint64_t>(),
            e["points"].get<uint64_t>());
}

TEST(Info, AFileThatCannotBeReadGivesFileAndError) {
  const pr::FileReport r = pr::describe_file("/nonexistent/x.las", {});
  EXPECT_FALSE(r.ok);
  const json j = json::parse(pr::info_json(r));
  EXPECT_EQ(keys(j), (std::vector<std::string>{"file", "error"}));
  EXPECT_NE(j["error"].get<std::string>().find("x.las"), std::string::npos);
  // A path that is not UTF-8 is written, not thrown on.
  pr::FileReport odd = r;
  odd.info.file = "/tmp/\xff\xfe.las";
  EXPECT_NO_THROW(json::parse(pr::info_json(odd)));
}

TEST(Info, ACutShortLasFileWarnsAndAnEmptyOneHasZeroPoints) {
  REQUIRE_TESTDATA("las");
  const pr::FileReport cut = pr::describe_file(cut_las("cut.las", 5, 110000), {});
  ASSERT_TRUE(cut.ok) << cut.error;
  const json j = json::parse(pr::info_json(cut));
  EXPECT_EQ(j["points"], 5);
  ASSERT_EQ(j["warnings"].size(), 1u) << j;
  EXPECT_EQ(j["warnings"][0].get<std::string>(),
            cut.info.file + ": cut short: 5 of 110,000 points decoded (the point data ends early)");
  EXPECT_NE(pr::info_text(cut.info).find("  warning     "), std::string::npos);
  const pr::FileReport empty = pr::describe_file(cut_las("empty.las", 0, 0), {});
  ASSERT_TRUE(empty.ok) << empty.error;
  EXPECT_EQ(json::parse(pr::info_json(empty))["points"], 0);
  EXPECT_FALSE(json::parse(pr::info_json(empty)).contains("warnings"));
  EXPECT_NE(pr::info_text(empty.info).find("\n  points      0\n"), std::string::npos);
  fs::remove_all(fs::path(cut.info.file).parent_path());
}

// Every format: a file without points is described with 0 points and its format, no warning; a
// file cut short with the points before the cut and its one warning, in the text and the JSON.
TEST(Info, FilesWithoutPointsAndFilesCutShortInEveryFormat) {
  const fs::path dir = fs::temp_directory_path() / ("pr_info_empty_" + std::to_string(getpid()));
  fs::create_directories(dir);
  auto file = [&](const std::string& name, const std::string& bytes) {
    std::ofstream((dir / name).string(), std::ios::binary) << bytes;
    return (dir / name).string();
  };
  pr::PointCloud none;
  std::string err;
  ASSERT_TRUE(pr::save_las((dir / "empty.las").string(), none, 6, &err)) << err;
  ASSERT_TRUE(
      pr::save_ply((dir / "empty_be.ply").string(), none, pr::PlyEncoding::kBinaryBigEndian, &err))
      << err;
  ASSERT_TRUE(pr::save_pcd((dir / "empty.pcd").string(), none, true, &err)) << err;
  const std::pair<std::string, const char*> empty[] = {
      {(dir / "empty.las").string(), "LAS"},  {(dir / "empty_be.ply").string(), "PLY"},
      {(dir / "empty.pcd").string(), "PCD"},  {file("empty.xyz", ""), "XYZ"},
      {file("header.csv", "x,y,z\n"), "XYZ"}, {file("zero.pts", "0\n"), "PTS"},
  };
  for (const auto& [path, format] : empty) {
    SCOPED_TRACE(path);
    const pr::FileReport r = pr::describe_file(path, {});
    ASSERT_TRUE(r.ok) << r.error;
    const json j = json::parse(pr::info_json(r));
    EXPECT_EQ(j["format"], format);
    EXPECT_EQ(j["points"], 0);
    EXPECT_FALSE(j.contains("warnings")) << j;
    const std::string t = pr::info_text(r.info);
    EXPECT_EQ(t.rfind(path + "\n  format      " + format + " ", 0), 0u) << t;
    EXPECT_NE(t.find("\n  points      0\n"), std::string::npos) << t;
    EXPECT_EQ(t.find("warning"), std::string::npos) << t;
  }
  const std::pair<std::string, std::string> cut[] = {
      {file("cut.xyz", "1 2 3\n4 5 6\n7 8"),
       ": cut short: 2 points decoded (the last line ends mid-line)"},
      {file("cut.pts", "4\n1 2 3\n4 5 6\n7 8 9\n"),
       ": cut short: 3 of 4 points decoded (the last PTS block ends early)"},
      {file("cut.ply",
            "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
            "property float z\nend_header\n1 2 3\n4 5"),
       ": cut short: 1 of 3 points decoded (the vertex lines end early)"},
  };
  for (const auto& [path, warning] : cut) {
    SCOPED_TRACE(path);
    const pr::FileReport r = pr::describe_file(path, {});
    ASSERT_TRUE(r.ok) << r.error;
    const json j = json::parse(pr::info_json(r));
    EXPECT_EQ(j["points"], r.info.points);
    EXPECT_EQ(j["warnings"], json::array({path + warning})) << j;
    EXPECT_NE(pr::info_text(r.info).find("\n  warning     " + path + warning + "\n"),
              std::string::npos);
  }
  fs::remove_all(dir);
}

TEST(Info, TextOfALasFile) {
  REQUIRE_TESTDATA("las");
  const pr::FileReport r = pr::describe_file(pr::test::data_path("las") + "/autzen_trim.las", {});
  ASSERT_TRUE(r.ok) << r.error;
  const std::string t = pr::info_text(r.info);
  EXPECT_EQ(t.rfind(r.info.file + "\n  format      LAS 1.2 format 3\n  points      110000\n", 0),
            0u)
      << t;
  EXPECT_NE(t.find("\n  origin      636594.000000 849215.000000 460.000000\n"), std::string::npos);
  EXPECT_NE(t.find("\n  attributes  color intensity classification\n"), std::string::npos);
  EXPECT_NE(t.find("\n  load time   "), std::string::npos);
}

// A local COPC file is described from its header and hierarchy, as a URL is: not one point is
// decoded. Its nodes' bytes overwritten with garbage, --info still says what the intact file
// says (a load of the damaged file, which decodes them, does not).
TEST(Info, ALocalCopcFileIsDescribedWithoutDecodingItsPoints) {
  REQUIRE_TESTDATA("laz");
  const std::string original = pr::test::data_path("laz") + "/lone-star.copc.laz";
  const fs::path dir = fs::temp_directory_path() / ("pr_info_copc_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string damaged = (dir / "damaged.copc.laz").string();
  fs::copy_file(original, damaged, fs::copy_options::overwrite_existing);
  {
    std::string err;
    std::unique_ptr<pr::CopcFile> file =
        pr::CopcFile::open(pr::open_byte_source(original, &err), &err);
    ASSERT_TRUE(file) << err;
    std::vector<pr::CopcEntry> entries;
    ASSERT_TRUE(file->read_page(file->root_page(), entries, nullptr, &err)) << err;
    std::fstream f(damaged, std::ios::binary | std::ios::in | std::ios::out);
    size_t nodes = 0;
    for (const pr::CopcEntry& e : entries) {
      if (e.is_page() || e.point_count == 0) continue;
      f.seekp(std::streamoff(e.offset));
      f.write(std::string(size_t(e.byte_size), '\xA5').data(), e.byte_size);
      ++nodes;
    }
    ASSERT_GT(nodes, 1u);
  }
  const json a = describe_json(original), b = describe_json(damaged);
  for (const char* key : {"format", "version", "points", "bounds_min", "bounds_max", "origin",
                          "has_color", "has_intensity", "has_classification", "copc"})
    EXPECT_EQ(a[key], b[key]) << key;
  EXPECT_FALSE(b.contains("warnings")) << b;
  EXPECT_EQ(a["points"], 518862);
  EXPECT_EQ(a["version"], "1.4 format 6, LASzip 3.4r3 layered, 15 chunks (variable), COPC");
  // Decoding the damaged nodes fails or warns: --info did not decode them.
  pr::PointCloud cloud;
  pr::FileInfo info;
  std::string err;
  const bool loaded = pr::load_point_cloud(damaged, cloud, &info, &err);
  EXPECT_TRUE(!loaded || !info.warnings.empty()) << "the garbage decoded cleanly";
  // A budget marks the levels a load would read, and counts their points.
  pr::LoadOptions budget;
  budget.max_points = 200'000;
  const json c = describe_json(damaged, budget);
  ASSERT_EQ(c["copc"]["levels"].size(), 3u) << c;
  EXPECT_TRUE(c["copc"]["levels"][0]["read"].get<bool>());
  EXPECT_TRUE(c["copc"]["levels"][1]["read"].get<bool>());
  EXPECT_FALSE(c["copc"]["levels"][2]["read"].get<bool>());
  EXPECT_EQ(c["points"], c["copc"]["levels"][0]["points"].get<uint64_t>() +
                             c["copc"]["levels"][1]["points"].get<uint64_t>());
  fs::remove_all(dir);
}

TEST(Info, TextOfACopcFileListsEveryLevel) {
  REQUIRE_TESTDATA("laz");
  const pr::FileReport r =
      pr::describe_file(pr::test::data_path("laz") + "/1.2-with-color.copc.laz", {});
  ASSERT_TRUE(r.ok) << r.error;
  const pr::CopcInfo& c = r.info.copc;
  ASSERT_TRUE(c.present);
  ASSERT_FALSE(c.levels.empty());
  const std::string t = pr::info_text(r.info);
  uint64_t nodes = 0, points = 0;
  for (size_t l = 0; l < c.levels.size(); ++l) {
    nodes += c.levels[l].nodes;
    // Each level's line: its nodes, points and point spacing (the root's halved per level).
    char line[128];
    std::snprintf(line, sizeof line, "\n    level %-3zu %u nodes, %llu points, spacing %g\n", l,
                  c.levels[l].nodes, (unsigned long long)c.levels[l].points,
                  c.spacing / double(1u << l));
    EXPECT_NE(t.find(line), std::string::npos) << line << " not in:\n" << t;
    points += c.levels[l].points;
  }
  EXPECT_EQ(points, r.info.points);
  EXPECT_NE(t.find("\n  copc        " + std::to_string(c.levels.size()) + " levels, " +
                   std::to_string(nodes) + " nodes, spacing "),
            std::string::npos)
      << t;
}

TEST(Info, AVirtualPointCloudSumsWhatItDeclaresOfItsTiles) {
  // The table of formats names .vpc a survey, never read whole: --info lists what it declares
  // and opens no tile (neither file exists).
  const fs::path dir = fs::temp_directory_path() / ("pr_info_vpc_" + std::to_string(getpid()));
  fs::create_directories(dir);
  const std::string path = (dir / "survey.vpc").string();
  std::ofstream(path) << R"({"type": "FeatureCollection", "features": [
    {"type": "Feature", "stac_version": "1.0.0", "id": "a",
     "assets": {"data": {"href": "./a.copc.laz", "roles": ["data"]}},
     "properties": {"pc:count": 1000, "proj:bbox": [10, 20, 1, 30, 40, 5]}},
    {"type": "Feature", "stac_version": "1.0.0", "id": "b",
     "assets": {"data": {"href": "./b.copc.laz", "roles": ["data"]}},
     "properties": {"pc:count": 234, "proj:bbox": [30, 20, 0, 50, 45, 2]}}]})";
  const pr::FileReport r = pr::describe_file(path, {});
  ASSERT_TRUE(r.ok) << r.error;
  const json j = json::parse(pr::info_json(r));
  EXPECT_EQ(j["format"], "VPC");
  EXPECT_EQ(j["version"], "2 tiles");
  EXPECT_EQ(j["points"], 1234);
  EXPECT_EQ(j["bounds_min"], json::array({10, 20, 0}));
  EXPECT_EQ(j["bounds_max"], json::array({50, 45, 5}));
  EXPECT_NE(pr::info_text(r.info).find("\n  format      VPC 2 tiles\n  points      1234\n"),
            std::string::npos);
  // A survey that does not parse fails with its one line.
  std::ofstream(path) << "{ not json";
  const pr::FileReport bad = pr::describe_file(path, {});
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.error.find("survey.vpc"), std::string::npos) << bad.error;
  fs::remove_all(dir);
}
