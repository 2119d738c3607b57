// EPT datasets and surveys named by the forms their hosts give out: a dataset's directory (a path
// or a URL ending in '/': its ept.json looked for in it) and a presigned URL, whose query goes with
// every file the dataset or the .vpc leads to (nginx on 127.0.0.1 answering 403 to a request
// without the token). Each streams exactly the points of the dataset read whole; a directory
// without ept.json and a 403 are one line.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <unistd.h>

#include "engine/io/base/io_common.h"
#include "engine/io/ept.h"
#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "ept_data.h"
#include "nginx_server.h"
#include "stream_test_util.h"
#include "testdata.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::ept_path;
using test::points_of;

/// nginx answers 403 unless the request's query holds token=s3cret (its status page aside).
const char* const kTokenConfig = "location / { if ($arg_token != \"s3cret\") { return 403; } }";

using test::Streamed;

Streamed stream(const std::vector<std::string>& inputs) {
  return test::stream_converged(inputs);
}

std::vector<test::StreamPoint> whole(const std::string& input) {
  PointCloud c;
  std::string err;
  EXPECT_TRUE(load_point_cloud(input, c, nullptr, &err)) << err;
  return points_of(c);
}

fs::path scratch(const char* name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_ept_url_" + std::to_string(::getpid())) / name;
  fs::create_directories(d);
  return d;
}

TEST(IoEptUrl, DirectoryNamesTheEptJsonInIt) {
  EXPECT_EQ(ept_json_of("http://h.org/survey/"), "http://h.org/survey/ept.json");
  EXPECT_EQ(ept_json_of("https://h.org/a/b/?token=1&x=2#here"),
            "https://h.org/a/b/ept.json?token=1&x=2");
  EXPECT_EQ(ept_json_of("http://h.org/a/ept.json?X-Amz-Signature=ab"),
            "http://h.org/a/ept.json?X-Amz-Signature=ab");
  EXPECT_EQ(ept_json_of("http://h.org/a.copc.laz?token=1"), "");
  EXPECT_EQ(ept_json_of("http://h.org/a/ept.json.bak"), "");
}

TEST(IoEptUrl, MessagesShowNoQueryOfAUrl) {
  using io::redact_url_queries;
  EXPECT_EQ(redact_url_queries("https://h.org/a/ept.json?X-Amz-Signature=ab12&t=9: HTTP 403"),
            "https://h.org/a/ept.json?...: HTTP 403");
  EXPECT_EQ(redact_url_queries("tile 2 (http://h/b.laz?token=s3cret), http://h/c.laz?k=1"),
            "tile 2 (http://h/b.laz?...), http://h/c.laz?...");
  EXPECT_EQ(redact_url_queries("http://h/a.laz: cut short? 3 of 4"),
            "http://h/a.laz: cut short? 3 of 4");
  EXPECT_EQ(redact_url_queries("/data/what?.laz: no such file"), "/data/what?.laz: no such file");
}

TEST(IoEptUrl, DirectoryPathAndUrlStreamTheDataset) {
  REQUIRE_TESTDATA("ept");
  START_NGINX(server, test::data_path("ept"), "");
  for (const char* name : {"lone-star-laszip", "ellipsoid-zstandard"}) {
    SCOPED_TRACE(name);
    const std::vector<test::StreamPoint> all = whole(ept_path(name));
    ASSERT_FALSE(all.empty());
    for (const std::string& input :
         {ept_path(name), ept_path(name) + "/", server.url(std::string(name) + "/")}) {
      SCOPED_TRACE(input);
      EXPECT_TRUE(is_streamed_input(input));
      const Streamed s = stream({input});
      ASSERT_TRUE(s.opened) << s.error;
      EXPECT_TRUE(s.points == all);
      EXPECT_TRUE(s.messages.empty()) << s.messages[0];
    }
  }
  // A directory without ept.json, on disk and on the server: one line each.
  const Streamed disk = stream({test::data_path("ept")});
  EXPECT_FALSE(disk.opened);
  EXPECT_NE(disk.error.find("no ept.json"), std::string::npos) << disk.error;
  EXPECT_EQ(disk.error.find('\n'), std::string::npos) << disk.error;
  const Streamed served = stream({server.url("bad-pointcount/")});
  EXPECT_FALSE(served.opened);
  EXPECT_NE(served.error.find("bad-pointcount/ept.json"), std::string::npos) << served.error;
  EXPECT_NE(served.error.find("404"), std::string::npos) << served.error;
  EXPECT_EQ(served.error.find('\n'), std::string::npos) << served.error;
}

TEST(IoEptUrl, PresignedQueryGoesWithEveryFileOfTheDataset) {
  REQUIRE_TESTDATA("ept");
  START_NGINX(server, test::data_path("ept"), kTokenConfig);
  for (const char* name : {"lone-star-laszip", "ellipsoid-zstandard"}) {
    SCOPED_TRACE(name);
    const std::vector<test::StreamPoint> all = whole(ept_path(name));
    for (const std::string& input : {server.url(std::string(name) + "/ept.json?token=s3cret"),
                                     server.url(std::string(name) + "/?token=s3cret")}) {
      SCOPED_TRACE(input);
      const Streamed s = stream({input});
      ASSERT_TRUE(s.opened) << s.error;
      EXPECT_TRUE(s.messages.empty()) << s.messages[0];
      EXPECT_TRUE(s.points == all);
    }
  }
  // Without the token, or with another: the server's 403 in one line.
  for (const std::string& input : {server.url("lone-star-laszip/ept.json"),
                                   server.url("lone-star-laszip/ept.json?token=guess")}) {
    const Streamed s = stream({input});
    EXPECT_FALSE(s.opened);
    EXPECT_NE(s.error.find("403"), std::string::npos) << s.error;
    EXPECT_EQ(s.error.find('\n'), std::string::npos) << s.error;
    EXPECT_EQ(s.error.find("guess"), std::string::npos) << s.error;  // no token in a message
  }
}

TEST(IoEptUrl, PresignedVpcSignsItsRelativeTiles) {
  REQUIRE_TESTDATA("ept");
  REQUIRE_TESTDATA("laz");
  // A survey of a COPC file and an EPT dataset beside its .vpc, hrefs relative; an absolute URL
  // keeps its own query.
  const fs::path root = scratch("vpc");
  fs::create_symlink(test::data_path("laz") + "/lone-star.copc.laz", root / "lone-star.copc.laz");
  fs::create_symlink(ept_path("ellipsoid-zstandard"), root / "ellipsoid");
  START_NGINX(server, root.string(), kTokenConfig);
  const std::string absolute = server.url("ellipsoid/ept.json?token=s3cret");
  std::ofstream(root / "survey.vpc")
      << R"({"type": "FeatureCollection", "features": [)"
      << R"({"type": "Feature", "id": "a", "assets": {"data": {"href": "lone-star.copc.laz"}}},)"
      << R"({"type": "Feature", "id": "b", "assets": {"data": {"href": "./ellipsoid/ept.json"}}},)"
      << R"({"type": "Feature", "id": "c", "assets": {"data": {"href": ")" << absolute
      << R"("}}}]})";
  std::vector<test::StreamPoint> all = whole(test::data_path("laz") + "/lone-star.copc.laz");
  const std::vector<test::StreamPoint> ellipsoid = whole(ept_path("ellipsoid-zstandard"));
  const Streamed s = stream({server.url("survey.vpc?token=s3cret")});
  ASSERT_TRUE(s.opened) << s.error;
  EXPECT_TRUE(s.messages.empty()) << s.messages[0];
  // The survey's origin is not the files' own: the counts of the three tiles.
  EXPECT_EQ(s.points.size(), all.size() + 2 * ellipsoid.size());
  // A tile missing on the server: its message names it without the token.
  std::ofstream(root / "partly.vpc")
      << R"({"type": "FeatureCollection", "features": [)"
      << R"({"type": "Feature", "id": "a", "assets": {"data": {"href": "lone-star.copc.laz"}}},)"
      << R"({"type": "Feature", "id": "m", "assets": {"data": {"href": "missing.copc.laz"}}}]})";
  const Streamed partly = stream({server.url("partly.vpc?token=s3cret")});
  ASSERT_TRUE(partly.opened) << partly.error;
  ASSERT_FALSE(partly.messages.empty());
  for (const std::string& m : partly.messages) {
    EXPECT_EQ(m.find("s3cret"), std::string::npos) << m;
    EXPECT_NE(m.find("missing.copc.laz?..."), std::string::npos) << m;
  }
  // Without the token the .vpc itself is refused, in one line.
  const Streamed refused = stream({server.url("survey.vpc")});
  EXPECT_FALSE(refused.opened);
  EXPECT_NE(refused.error.find("403"), std::string::npos) << refused.error;
  EXPECT_EQ(refused.error.find('\n'), std::string::npos) << refused.error;
  fs::remove_all(root.parent_path());
}

}  // namespace
}  // namespace pr
