// The Open box's folder list (app/viewer/open_box.h): folders first, then the files a reader takes
// and .vpc surveys and EPT descriptions (ept.json), by name, hidden ones and other files left out;
// the COPC files counted, so that the folder can open as one survey of them.
#include "viewer/open_box.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

namespace fs = std::filesystem;

namespace {

TEST(OpenBoxListing, FoldersThenCloudFilesAndSurveysWithTheCopcFilesCounted) {
  const fs::path dir = fs::temp_directory_path() / ("pr_open_box_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "tiles");
  fs::create_directories(dir / ".hidden_folder");
  for (const char* name : {"b.copc.laz", "A.COPC.LAZ", "survey.vpc", "plain.las", "notes.md",
                           ".hidden.las", "scan.e57", "ept.json"})
    std::ofstream(dir / name) << "x";
  pr::OpenBox box;
  box.dir = dir.string();
  std::string err;
  ASSERT_TRUE(box.refresh(&err)) << err;
  std::vector<std::pair<std::string, bool>> expected = {
      {"tiles", true},      {"A.COPC.LAZ", false}, {"b.copc.laz", false}, {"ept.json", false},
      {"plain.las", false}, {"scan.e57", false},   {"survey.vpc", false}};
  EXPECT_EQ(box.listing, expected);
  EXPECT_EQ(box.copc_files, 2u);
  // A folder without COPC files has none to open as a survey.
  box.dir = (dir / "tiles").string();
  ASSERT_TRUE(box.refresh(&err)) << err;
  EXPECT_TRUE(box.listing.empty());
  EXPECT_EQ(box.copc_files, 0u);
  // An unreadable folder says so, by name.
  box.dir = (dir / "absent").string();
  EXPECT_FALSE(box.refresh(&err));
  EXPECT_NE(err.find("absent"), std::string::npos) << err;
  fs::remove_all(dir);
}

}  // namespace
