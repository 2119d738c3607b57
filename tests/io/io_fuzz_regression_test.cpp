// Replays the inputs kept in tests/fuzz/regressions/<target>/ (inputs on which the fuzzers found a
// reader crashing): each must parse or fail cleanly with a one-line message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "../fuzz/e57_pages.h"
#include "engine/io/base/io_common.h"
#include "engine/io/io.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

TEST(IoFuzzRegressions, KeptInputsParseOrFailCleanly) {
  const fs::path dir = fs::path(__FILE__).parent_path().parent_path() / "fuzz" / "regressions";
  ASSERT_TRUE(fs::is_directory(dir)) << dir << " not found (it is part of the source tree)";
  const std::map<std::string, std::pair<FileFormat, const char*>> targets = {
      {"ply", {FileFormat::kPly, "fuzz.ply"}}, {"las", {FileFormat::kLas, "fuzz.las"}},
      {"pcd", {FileFormat::kPcd, "fuzz.pcd"}}, {"pts", {FileFormat::kPts, "fuzz.pts"}},
      {"xyz", {FileFormat::kXyz, "fuzz.xyz"}}, {"e57", {FileFormat::kE57, "fuzz.e57"}},
      {"laz", {FileFormat::kLaz, "fuzz.laz"}}, {"detect", {FileFormat::kUnknown, "fuzz.bin"}}};
  // Under the fuzzers' memory limit (their LLVMFuzzerInitialize()), as they found these inputs.
  io::set_memory_limit(uint64_t{1} << 30);
  size_t replayed = 0;
  for (const auto& sub : fs::directory_iterator(dir)) {
    const auto t = targets.find(sub.path().filename().string());
    if (!sub.is_directory() || t == targets.end()) continue;
    for (const auto& f : fs::directory_iterator(sub.path())) {
      SCOPED_TRACE(f.path().string());
      std::ifstream in(f.path(), std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(in)), {});
      // As the fuzz target does: E57 inputs ending in an odd byte get their checksums rewritten.
      if (t->second.first == FileFormat::kE57 && !bytes.empty() && (bytes.back() & 1))
        test::e57_fix_checksums(reinterpret_cast<uint8_t*>(bytes.data()), bytes.size());
      PointCloud c;
      FileInfo info;
      std::string err;
      const bool ok = parse_point_cloud(bytes.data(), bytes.size(), t->second.second,
                                        t->second.first, c, &info, &err);
      if (ok) {
        EXPECT_EQ(info.points, c.size());  // none for a file without points
        for (const std::string& w : info.warnings) EXPECT_EQ(w.find('\n'), std::string::npos) << w;
      } else {
        EXPECT_TRUE(c.empty());
        EXPECT_FALSE(err.empty());
        EXPECT_EQ(err.find('\n'), std::string::npos) << err;
      }
      ++replayed;
    }
  }
  io::set_memory_limit(0);
  EXPECT_GT(replayed, 0u) << "no regression inputs under " << dir;
}

}  // namespace
}  // namespace pr
