// The table of formats (engine/io/formats.h): every extension of every format resolves to it, the
// content of a file beats a wrong extension, and a file no reader takes is refused with a clear
// message, through detection and through loading.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>
#include <string>
#include <vector>

#include "engine/io/io.h"

namespace pr {
namespace {

std::string upper(std::string s) {
  for (char& c : s) c = char(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

/// The first bytes of a LAS file (a 227-byte 1.2 header), point format 3, compressed or not.
std::string las_header(bool compressed) {
  std::string h(227, '\0');
  std::memcpy(h.data(), "LASF", 4);
  h[24] = 1, h[25] = 2;
  h[94] = char(227);
  h[104] = char(compressed ? 0x83 : 0x03);
  return h;
}

const std::string kPly = "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\nend_header\n";
const std::string kPcd = "# a comment\nVERSION .7\nFIELDS x y z\n";
const std::string kE57 = std::string("ASTM-E57") + std::string(56, '\0');
const std::string kXyz = "1 2 3\n4 5 6\n";
const std::string kPts = "2\n1 2 3\n4 5 6\n";

FileFormat detect(const std::string& bytes, const std::string& name) {
  return detect_format(bytes.data(), bytes.size(), name);
}

TEST(IoFormatTable, EveryExtensionOfEveryFormatResolvesToIt) {
  ASSERT_FALSE(formats().empty());
  std::set<std::string> seen;
  for (const FormatEntry& f : formats()) {
    ASSERT_FALSE(f.extensions.empty()) << f.name;
    for (const char* ext : f.extensions) {
      EXPECT_TRUE(seen.insert(ext).second) << ext << " belongs to two formats";
      for (const std::string& name :
           {std::string("survey") + ext, "/data/tiles/a.b" + upper(ext)}) {
        EXPECT_EQ(find_format_by_path(name), &f) << name;
        EXPECT_TRUE(is_point_cloud_file(name)) << name;
      }
    }
  }
  for (const char* name : {"COPC", "LAZ", "LAS", "PLY", "PCD", "E57", "PTS", "XYZ", "VPC"})
    EXPECT_TRUE(std::any_of(formats().begin(), formats().end(), [&](const FormatEntry& f) {
      return std::string(f.name) == name;
    })) << name;
}

TEST(IoFormatTable, TheLongestExtensionWinsAndNamesNeedAStem) {
  EXPECT_STREQ(find_format_by_path("x.copc.laz")->name, "COPC");
  EXPECT_STREQ(find_format_by_path("X.COPC.LAZ")->name, "COPC");
  EXPECT_STREQ(find_format_by_path("x.laz")->name, "LAZ");
  EXPECT_STREQ(find_format_by_path("copc.laz")->name, "LAZ");
  EXPECT_STREQ(find_format_by_path("x.csv")->name, "XYZ");
  EXPECT_EQ(find_format_by_path(".las"), nullptr);
  EXPECT_EQ(find_format_by_path("/data/.las"), nullptr);
  EXPECT_EQ(find_format_by_path("x.las/notes"), nullptr);
  EXPECT_EQ(find_format_by_path("x.lasx"), nullptr);
  EXPECT_EQ(find_format_by_path("readme.md"), nullptr);
  EXPECT_EQ(find_format_by_path(""), nullptr);
  EXPECT_FALSE(is_point_cloud_file("image.png"));
  EXPECT_TRUE(is_point_cloud_file("survey.vpc"));
  EXPECT_TRUE(is_point_cloud_file("tile.copc.laz"));
  // A folder survey's tiles: COPC files alone, whatever the case of the name.
  EXPECT_TRUE(is_tile_file("tile.copc.laz"));
  EXPECT_TRUE(is_tile_file("TILE.COPC.LAZ"));
  EXPECT_FALSE(is_tile_file("tile.laz"));
  EXPECT_FALSE(is_tile_file("survey.vpc"));
  EXPECT_FALSE(is_tile_file("scan.las"));
}

TEST(IoFormatTable, ReadersNamesAndWriters) {
  // A reader's entry is its own, not that of another format it reads (COPC is read as LAZ).
  for (FileFormat f : {FileFormat::kPly, FileFormat::kLas, FileFormat::kLaz, FileFormat::kPcd,
                       FileFormat::kPts, FileFormat::kXyz, FileFormat::kE57}) {
    const FormatEntry* e = find_format(f);
    ASSERT_NE(e, nullptr);
    EXPECT_EQ(e->format, f);
    EXPECT_NE(e->read, nullptr) << e->name;
    EXPECT_STREQ(format_name(f), e->name);
  }
  EXPECT_STREQ(format_name(FileFormat::kLaz), "LAZ");
  EXPECT_EQ(find_format(FileFormat::kUnknown), nullptr);
  EXPECT_STREQ(format_name(FileFormat::kUnknown), "unknown");
  const FormatEntry* copc = find_format_by_path("a.copc.laz");
  EXPECT_EQ(copc->format, FileFormat::kLaz);
  EXPECT_TRUE(copc->streams);
  const FormatEntry* vpc = find_format_by_path("a.vpc");
  EXPECT_EQ(vpc->read, nullptr);
  EXPECT_TRUE(vpc->survey());
  EXPECT_FALSE(copc->survey());
  EXPECT_EQ(copc->write, ConvertOutput::kCopc);
  EXPECT_EQ(find_format_by_path("a.laz")->write, ConvertOutput::kLaz);
  EXPECT_EQ(find_format_by_path("a.las")->write, ConvertOutput::kLas);
  EXPECT_EQ(find_format_by_path("a.ply")->write, ConvertOutput::kNone);
  EXPECT_EQ(convert_suffixes(), ".copc.laz (COPC), .laz, .las");
}

TEST(IoFormatTable, ContentBeatsAWrongExtension) {
  EXPECT_EQ(detect(kPly, "x.las"), FileFormat::kPly);
  EXPECT_EQ(detect(las_header(false), "x.ply"), FileFormat::kLas);
  EXPECT_EQ(detect(las_header(true), "x.las"), FileFormat::kLaz);
  EXPECT_EQ(detect(las_header(true), "x.copc.laz"), FileFormat::kLaz);
  EXPECT_EQ(detect(kPcd, "x.xyz"), FileFormat::kPcd);
  EXPECT_EQ(detect(kE57, "x.txt"), FileFormat::kE57);
  // Content alone: the signatures, nothing for text.
  EXPECT_EQ(detect_format(kPly.data(), kPly.size()), FileFormat::kPly);
  EXPECT_EQ(detect_format(kXyz.data(), kXyz.size()), FileFormat::kUnknown);
}

TEST(IoFormatTable, TextByNameAndByItsFirstLine) {
  EXPECT_EQ(detect(kXyz, "x.pts"), FileFormat::kPts);
  EXPECT_EQ(detect(kPts, "x.xyz"), FileFormat::kPts);
  EXPECT_EQ(detect(kXyz, "x.xyz"), FileFormat::kXyz);
  EXPECT_EQ(detect(kXyz, "x.csv"), FileFormat::kXyz);
  EXPECT_EQ(detect(kXyz, "points"), FileFormat::kXyz);
}

TEST(IoFormatTable, ANamedFormatWithoutItsSignatureIsRefused) {
  for (const FormatEntry& f : formats()) {
    if (!f.signature) continue;
    const std::string name = std::string("x") + f.extensions[0];
    EXPECT_EQ(detect(kXyz, name), FileFormat::kUnknown) << name;
    ASSERT_NE(f.refusal, nullptr) << f.name;
    EXPECT_EQ(unknown_format_message(name), f.refusal);
  }
  EXPECT_EQ(unknown_format_message("x.ply"), "not a PLY file: it does not start with 'ply'");
  EXPECT_EQ(unknown_format_message("x.copc.laz"), "not a LAS file: it does not start with 'LASF'");
}

TEST(IoFormatTable, UnknownContentAndSurveysSayWhy) {
  const std::string garbage("\x01\x02\x00\xff garbage", 12);
  EXPECT_EQ(detect(garbage, "x.bin"), FileFormat::kUnknown);
  EXPECT_EQ(unknown_format_message("x.bin"),
            "unknown file format (not PLY, LAS, LAZ, PCD, E57, PTS or XYZ/TXT/CSV)");
  PointCloud cloud;
  std::string error;
  EXPECT_FALSE(parse_point_cloud(garbage.data(), garbage.size(), "x.bin", FileFormat::kUnknown,
                                 cloud, nullptr, &error));
  EXPECT_EQ(error, "x.bin: unknown file format (not PLY, LAS, LAZ, PCD, E57, PTS or XYZ/TXT/CSV)");
  // A virtual point cloud is text, but no reader takes it whole: it streams.
  const std::string vpc = R"({"type": "FeatureCollection", "features": []})";
  EXPECT_EQ(detect(vpc, "survey.vpc"), FileFormat::kUnknown);
  EXPECT_FALSE(parse_point_cloud(vpc.data(), vpc.size(), "survey.vpc", FileFormat::kUnknown, cloud,
                                 nullptr, &error));
  EXPECT_EQ(error, std::string("survey.vpc: ") + find_format_by_path("survey.vpc")->refusal);
}

TEST(IoFormatTable, TheLoaderNamesTheFormatFromTheTable) {
  PointCloud cloud;
  FileInfo info;
  std::string error;
  ASSERT_TRUE(parse_point_cloud(kPts.data(), kPts.size(), "x.pts", FileFormat::kUnknown, cloud,
                                &info, &error))
      << error;
  EXPECT_EQ(info.format, "PTS");
  ASSERT_TRUE(parse_point_cloud(kXyz.data(), kXyz.size(), "x.txt", FileFormat::kUnknown, cloud,
                                &info, &error))
      << error;
  EXPECT_EQ(info.format, "XYZ");
}

}  // namespace
}  // namespace pr
