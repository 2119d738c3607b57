// list_survey and parse_vpc (engine/io/survey.h): .vpc files written here (relative, absolute and
// URL hrefs; 3D and 2D proj:bbox; point counts; assets found by key, role or media type), one in
// the form PDAL wrench's build_vpc writes, malformed ones (each with its one-line message naming
// the file and the item), folders of COPC files (links to the COPC files of tests/data) and several
// inputs in order.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "engine/io/survey.h"
#include "nginx_server.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

class SurveyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("pr_survey_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& text) const {
    const fs::path path = dir_ / name;
    fs::create_directories(path.parent_path());
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
  }

  /// list_survey's message for `inputs`, which must fail.
  static std::string failure(const std::vector<std::string>& inputs) {
    std::vector<SurveyTile> tiles;
    std::string error;
    EXPECT_FALSE(list_survey(inputs, tiles, &error));
    EXPECT_EQ(error.find('\n'), std::string::npos) << error;
    return error;
  }

  fs::path dir_;
};

/// One STAC Item: `assets` and `properties` as JSON text.
std::string item(const std::string& id, const std::string& assets, const std::string& properties) {
  return R"({"type": "Feature", "stac_version": "1.0.0", "id": ")" + id + R"(", "assets": )" +
         assets + R"(, "properties": )" + properties + "}";
}

std::string data_asset(const std::string& href) {
  return R"({"data": {"href": ")" + href + R"(", "roles": ["data"]}})";
}

std::string collection(const std::vector<std::string>& items) {
  std::string text = R"({"type": "FeatureCollection", "features": [)";
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ",\n" : "\n") + items[i];
  return text + "]}\n";
}

TEST_F(SurveyTest, VpcHrefsCountsAndBoxes) {
  const std::string vpc = write(
      "sub/survey.vpc",
      collection({
          item(
              "a", data_asset("./a.copc.laz"),
              R"({"pc:count": 1234, "proj:bbox": [500000.5, 4100000, 10, 500100, 4100100.25, 80]})"),
          item("b", data_asset("../b.copc.laz"), R"({"pc:count": 7, "proj:bbox": [1, 2, 3, 4]})"),
          item("c", data_asset("/data/tiles/c.copc.laz"), R"({})"),
          item("d", data_asset("https://example.org/tiles/d.copc.laz?sig=1"),
               R"({"pc:count": 5e3})"),
          item("e", data_asset("tiles/e.copc.laz"), R"({"pc:count": null, "proj:bbox": null})"),
      }));
  std::vector<SurveyTile> tiles;
  std::string error;
  ASSERT_TRUE(list_survey({vpc}, tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 5u);
  EXPECT_EQ(tiles[0].href, (dir_ / "sub/a.copc.laz").string());
  EXPECT_EQ(tiles[1].href, (dir_ / "b.copc.laz").string());
  EXPECT_EQ(tiles[2].href, "/data/tiles/c.copc.laz");
  EXPECT_EQ(tiles[3].href, "https://example.org/tiles/d.copc.laz?sig=1");
  EXPECT_EQ(tiles[4].href, (dir_ / "sub/tiles/e.copc.laz").string());

  EXPECT_EQ(tiles[0].points, 1234u);
  ASSERT_FALSE(tiles[0].bounds.empty);
  EXPECT_EQ(tiles[0].bounds.min, glm::dvec3(500000.5, 4100000, 10));
  EXPECT_EQ(tiles[0].bounds.max, glm::dvec3(500100, 4100100.25, 80));
  // A 2D box leaves the heights, and so the box, unknown: the streamer reads the header.
  EXPECT_EQ(tiles[1].points, 7u);
  EXPECT_TRUE(tiles[1].bounds.empty);
  EXPECT_EQ(tiles[2].points, 0u);
  EXPECT_TRUE(tiles[2].bounds.empty);
  EXPECT_EQ(tiles[3].points, 5000u);
  EXPECT_EQ(tiles[4].points, 0u);
  EXPECT_TRUE(tiles[4].bounds.empty);
}

TEST(Survey, RelativeHrefsAgainstAUrl) {
  const std::string text = collection({
      item("a", data_asset("./a.copc.laz"), "{}"),
      item("b", data_asset("../other/b.copc.laz"), "{}"),
      item("c", data_asset("/root/c.copc.laz"), "{}"),
      item("d", data_asset("deeper/d.copc.laz"), "{}"),
      item("e", data_asset("http://elsewhere:8080/e.copc.laz"), "{}"),
  });
  for (const std::string base :
       {"https://host.test/data/survey", "https://host.test/data/survey/"}) {
    std::vector<SurveyTile> tiles;
    std::string error;
    ASSERT_TRUE(parse_vpc(text, base, tiles, &error)) << error;
    ASSERT_EQ(tiles.size(), 5u);
    EXPECT_EQ(tiles[0].href, "https://host.test/data/survey/a.copc.laz");
    EXPECT_EQ(tiles[1].href, "https://host.test/data/other/b.copc.laz");
    EXPECT_EQ(tiles[2].href, "https://host.test/root/c.copc.laz");
    EXPECT_EQ(tiles[3].href, "https://host.test/data/survey/deeper/d.copc.laz");
    EXPECT_EQ(tiles[4].href, "http://elsewhere:8080/e.copc.laz");
  }
}

TEST(Survey, DataAssetByKeyRoleOrMediaType) {
  const std::string text = collection({
      // No "data" key: the asset whose roles say data, not the overview listed first.
      item("by-role",
           R"({"preview": {"href": "./overview.copc.laz", "roles": ["overview"]},
               "points": {"href": "./role.copc.laz", "roles": ["data"]}})",
           "{}"),
      item("by-type",
           R"({"thumb": {"href": "./t.png", "type": "image/png"},
               "cloud": {"href": "./type.copc.laz", "type": "application/vnd.laszip+copc"}})",
           "{}"),
      // "data" wins over an earlier asset.
      item("by-key",
           R"({"overview": {"href": "./ov.copc.laz", "roles": ["overview"]},
               "data": {"href": "./key.copc.laz"}})",
           "{}"),
  });
  std::vector<SurveyTile> tiles;
  std::string error;
  ASSERT_TRUE(parse_vpc(text, "/surveys/x", tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 3u);
  EXPECT_EQ(tiles[0].href, "/surveys/x/role.copc.laz");
  EXPECT_EQ(tiles[1].href, "/surveys/x/type.copc.laz");
  EXPECT_EQ(tiles[2].href, "/surveys/x/key.copc.laz");
}

// The form PDAL wrench's build_vpc writes (src/vpc.cpp, VirtualPointCloud::write): STAC 1.0.0
// items with the pointcloud and projection extensions, a WGS 84 geometry and bbox, the native
// proj:geometry and 3D proj:bbox, pc:schemas, an empty links array, a data asset and an overview.
TEST_F(SurveyTest, WrenchBuildVpcOutput) {
  const std::string wrench = R"({"type":"FeatureCollection","features":[{"type":"Feature",
"stac_version":"1.0.0","stac_extensions":[
"https://stac-extensions.github.io/pointcloud/v1.0.0/schema.json",
"https://stac-extensions.github.io/projection/v1.1.0/schema.json"],"id":"tile_0_0",
"geometry":{"type":"Polygon","coordinates":[[[-123.07,44.05,0],[-123.07,44.06,0],
[-123.06,44.06,0],[-123.06,44.05,0],[-123.07,44.05,0]]]},"bbox":[-123.07,44.05,0,-123.06,44.06,0],
"properties":{"datetime":"2023-01-01T00:00:00Z","pc:count":262144,"pc:type":"lidar",
"pc:encoding":"?","pc:schemas":[{"name":"X","size":8,"type":"floating"},
{"name":"Y","size":8,"type":"floating"},{"name":"Z","size":8,"type":"floating"}],
"proj:wkt2":"PROJCRS[\"NAD83 / Oregon GIC Lambert (ft)\"]","proj:geometry":{"type":"Polygon",
"coordinates":[[[635577.79,848882.15,0],[635577.79,853537.66,0],[639003.73,853537.66,0],
[639003.73,848882.15,0],[635577.79,848882.15,0]]]},
"proj:bbox":[635577.79,848882.15,406.14,639003.73,853537.66,615.26]},"links":[],
"assets":{"data":{"href":"./tiles/tile_0_0.copc.laz","roles":["data"]},
"overview":{"href":"./survey-overview.copc.laz","roles":["overview"]}}},
{"type":"Feature","stac_version":"1.0.0","stac_extensions":[
"https://stac-extensions.github.io/pointcloud/v1.0.0/schema.json",
"https://stac-extensions.github.io/projection/v1.1.0/schema.json"],"id":"tile_0_1",
"geometry":{"type":"Polygon","coordinates":[[[-123.07,44.06,0],[-123.07,44.07,0],
[-123.06,44.07,0],[-123.06,44.06,0],[-123.07,44.06,0]]]},"bbox":[-123.07,44.06,0,-123.06,44.07,0],
"properties":{"datetime":"2023-01-01T00:00:00Z","pc:count":1000,"pc:type":"lidar",
"pc:encoding":"?","pc:schemas":[],"proj:wkt2":"","proj:geometry":{"type":"Polygon",
"coordinates":[[[635577.79,853537.66,0],[635577.79,855000,0],[639003.73,855000,0],
[639003.73,853537.66,0],[635577.79,853537.66,0]]]},
"proj:bbox":[635577.79,853537.66,390,639003.73,855000,600.5]},"links":[],
"assets":{"data":{"href":"./tiles/tile_0_1.copc.laz","roles":["data"]}}}]}
)";
  const std::string vpc = write("survey.vpc", wrench);
  std::vector<SurveyTile> tiles;
  std::string error;
  ASSERT_TRUE(list_survey({vpc}, tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 2u);
  EXPECT_EQ(tiles[0].href, (dir_ / "tiles/tile_0_0.copc.laz").string());
  EXPECT_EQ(tiles[0].points, 262144u);
  EXPECT_EQ(tiles[0].bounds.min, glm::dvec3(635577.79, 848882.15, 406.14));
  EXPECT_EQ(tiles[0].bounds.max, glm::dvec3(639003.73, 853537.66, 615.26));
  EXPECT_EQ(tiles[1].href, (dir_ / "tiles/tile_0_1.copc.laz").string());
  EXPECT_EQ(tiles[1].points, 1000u);
  EXPECT_EQ(tiles[1].bounds.min, glm::dvec3(635577.79, 853537.66, 390));
  EXPECT_EQ(tiles[1].bounds.max, glm::dvec3(639003.73, 855000, 600.5));
}

TEST_F(SurveyTest, MalformedVpcSaysWhatAndWhere) {
  const std::string bad_json =
      write("broken.vpc", R"({"type": "FeatureCollection", "features": [)");
  std::string error = failure({bad_json});
  EXPECT_NE(error.find(bad_json + ": not valid JSON"), std::string::npos) << error;
  EXPECT_NE(error.find("parse error"), std::string::npos) << error;  // nlohmann's own words

  const std::string stac_collection =
      write("collection.vpc", R"({"type": "Collection", "id": "x", "links": []})");
  error = failure({stac_collection});
  EXPECT_EQ(error, stac_collection + ": not a virtual point cloud (no GeoJSON FeatureCollection)");

  error = failure({write("array.vpc", "[1, 2]")});
  EXPECT_NE(error.find("not a virtual point cloud"), std::string::npos) << error;

  const std::string empty = write("empty.vpc", R"({"type": "FeatureCollection", "features": []})");
  EXPECT_EQ(failure({empty}), empty + ": the FeatureCollection lists no items (features)");

  const std::string overview_only = write(
      "overview.vpc",
      collection(
          {item("good", data_asset("./g.copc.laz"), "{}"),
           item("tile-7", R"({"ov": {"href": "./o.copc.laz", "roles": ["overview"]}})", "{}")}));
  EXPECT_EQ(failure({overview_only}),
            overview_only + ": item 'tile-7' has no data asset (assets.data.href)");

  const std::string no_id =
      write("noid.vpc", collection({item("a", data_asset("./a.copc.laz"), "{}"),
                                    R"({"type": "Feature", "assets": {"data": {"href": 3}}})"}));
  EXPECT_EQ(failure({no_id}), no_id + ": item 2 has no data asset (assets.data.href)");

  const std::string not_feature = write("point.vpc", collection({R"({"type": "Point"})"}));
  EXPECT_EQ(failure({not_feature}), not_feature + ": item 1 is not a Feature");

  for (const char* count : {"-5", "\"many\"", "1.5", "[1]"}) {
    const std::string vpc =
        write("count.vpc", collection({item("c", data_asset("./c.copc.laz"),
                                            std::string("{\"pc:count\": ") + count + "}")}));
    EXPECT_EQ(failure({vpc}), vpc + ": item 'c': pc:count is not a whole number >= 0") << count;
  }
  for (const char* box : {"[1, 2, 3, 4, 5]", "[0, 0, 0, -1, 1, 1]", "[0, \"a\", 1, 2]", "{}",
                          "[0, 0, 0, 1, 1, 1e999]"}) {
    const std::string vpc =
        write("box.vpc", collection({item("b", data_asset("./b.copc.laz"),
                                          std::string("{\"proj:bbox\": ") + box + "}")}));
    std::string message = failure({vpc});
    // 1e999 is no double: nlohmann reports it as a parse error, which names the file too.
    EXPECT_EQ(message.rfind(vpc + ": ", 0), 0u) << message;
    if (std::string(box).find("e999") == std::string::npos) {
      EXPECT_EQ(message, vpc + ": item 'b': proj:bbox is not 4 or 6 finite numbers, min <= max")
          << box;
    }
  }
  const std::string missing = (dir_ / "absent.vpc").string();
  EXPECT_EQ(failure({missing}), missing + ": no such file");
}

TEST_F(SurveyTest, FolderGivesItsCopcFilesSorted) {
  REQUIRE_TESTDATA("laz");
  const fs::path laz = fs::path(test::data_path("laz"));
  ASSERT_TRUE(fs::exists(laz / "simple.copc.laz"));
  ASSERT_TRUE(fs::exists(laz / "lone-star.copc.laz"));
  const fs::path folder = dir_ / "tiles";
  fs::create_directories(folder / "nested.copc.laz");  // a folder, not a file
  fs::create_symlink(laz / "simple.copc.laz", folder / "b_tile.copc.laz");
  fs::create_symlink(laz / "lone-star.copc.laz", folder / "a_tile.COPC.LAZ");
  fs::create_symlink(laz / "simple.copc.laz", folder / "c_plain.laz");  // not named COPC
  write("tiles/notes.txt", "not a tile");
  fs::create_directories(folder / "deeper");
  fs::create_symlink(laz / "simple.copc.laz", folder / "deeper" / "d.copc.laz");  // not listed

  std::vector<SurveyTile> tiles;
  std::string error;
  ASSERT_TRUE(list_survey({folder.string()}, tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 2u);
  EXPECT_EQ(tiles[0].href, (folder / "a_tile.COPC.LAZ").string());
  EXPECT_EQ(tiles[1].href, (folder / "b_tile.copc.laz").string());
  for (const SurveyTile& tile : tiles) {
    EXPECT_TRUE(tile.bounds.empty);
    EXPECT_EQ(tile.points, 0u);
  }

  const fs::path plain = dir_ / "plain";
  fs::create_directories(plain);
  fs::create_symlink(laz / "simple.copc.laz", plain / "simple.laz");
  EXPECT_EQ(failure({plain.string()}),
            plain.string() +
                ": the folder holds no ept.json (an EPT dataset) and no COPC files (*.copc.laz)");
}

TEST_F(SurveyTest, SeveralInputsInOrder) {
  REQUIRE_TESTDATA("laz");
  const std::string copc = test::data_path("laz") + "/simple.copc.laz";
  const fs::path folder = dir_ / "folder";
  fs::create_directories(folder);
  fs::create_symlink(copc, folder / "x.copc.laz");
  const std::string vpc =
      write("v.vpc", collection({item("v", data_asset("./v.copc.laz"), R"({"pc:count": 3})")}));
  const std::string url = "https://host.test/a.copc.laz";

  std::vector<SurveyTile> tiles{SurveyTile{"stale", {}, 1}};
  std::string error;
  ASSERT_TRUE(list_survey({copc, folder.string(), vpc, url}, tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 4u);
  EXPECT_EQ(tiles[0].href, copc);
  EXPECT_EQ(tiles[1].href, (folder / "x.copc.laz").string());
  EXPECT_EQ(tiles[2].href, (dir_ / "v.copc.laz").string());
  EXPECT_EQ(tiles[2].points, 3u);
  EXPECT_EQ(tiles[3].href, url);

  // One bad input fails the whole list, names that input, and leaves `tiles` as it was.
  const std::string missing = (dir_ / "nothing.copc.laz").string();
  error = failure({copc, missing});
  EXPECT_EQ(error, missing + ": no such file or folder");
  std::vector<SurveyTile> kept{SurveyTile{"kept", {}, 1}};
  EXPECT_FALSE(list_survey({copc, missing}, kept, &error));
  ASSERT_EQ(kept.size(), 1u);
  EXPECT_EQ(kept[0].href, "kept");
}

// A .vpc given as a URL is fetched whole; its relative hrefs become URLs beside it (with the query
// of a presigned .vpc URL; an absolute URL keeps its own), and a missing one or a broken one is
// named by its URL.
TEST_F(SurveyTest, VpcFromAUrl) {
  write("surveys/s1/survey.vpc",
        collection({item("a", data_asset("./a.copc.laz"),
                         R"({"pc:count": 10, "proj:bbox": [0, 0, 0, 1, 2, 3]})"),
                    item("b", data_asset("../other/b.copc.laz"), R"({"pc:count": 20})"),
                    item("c", data_asset("https://other.test/c.copc.laz"), "{}")}));
  write("surveys/broken.vpc", R"({"type": "FeatureCollection", "features": [{]})");
  START_NGINX(server, dir_.string(), "");

  const std::string url = server.url("surveys/s1/survey.vpc?X-Amz-Signature=abc");
  std::vector<SurveyTile> tiles;
  std::string error;
  ASSERT_TRUE(list_survey({url}, tiles, &error)) << error;
  ASSERT_EQ(tiles.size(), 3u);
  EXPECT_EQ(tiles[0].href, server.url("surveys/s1/a.copc.laz?X-Amz-Signature=abc"));
  EXPECT_EQ(tiles[0].points, 10u);
  EXPECT_EQ(tiles[0].bounds.max, glm::dvec3(1, 2, 3));
  EXPECT_EQ(tiles[1].href, server.url("surveys/other/b.copc.laz?X-Amz-Signature=abc"));
  EXPECT_EQ(tiles[1].points, 20u);
  EXPECT_EQ(tiles[2].href, "https://other.test/c.copc.laz");

  const std::string broken = server.url("surveys/broken.vpc");
  error = failure({broken});
  EXPECT_EQ(error.rfind(broken + ": not valid JSON: ", 0), 0u) << error;
  const std::string missing = server.url("surveys/missing.vpc");
  error = failure({missing});
  EXPECT_NE(error.find(missing), std::string::npos) << error;
  EXPECT_NE(error.find("404"), std::string::npos) << error;
}

}  // namespace
}  // namespace pr
