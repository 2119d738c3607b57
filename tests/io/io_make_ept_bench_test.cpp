// make_ept_bench (bench/io/make_ept_bench.cpp): the EPT dataset it writes from a COPC file, as
// binary, zstandard and laszip, with one hierarchy file and with a file every level, streamed at
// full detail gives exactly the points the COPC file streamed the same way gives (positions as
// floats from the same origin, colors and every attribute), and its ept.json the COPC file's
// count, bounds, root cube and root spacing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "engine/io/ept.h"
#include "engine/io/laz.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/stream.h"
#include "ept_data.h"
#include "run_command.h"
#include "stream_test_util.h"
#include "testdata.h"

#ifdef PR_MAKE_EPT_BENCH_BIN

namespace pr {
namespace {

namespace fs = std::filesystem;

/// The tool beside this test executable (both in bin/), else the build tree's.
std::string make_ept_bench_bin() {
  std::error_code ec;
  const fs::path beside = fs::read_symlink("/proc/self/exe", ec).parent_path() / "make_ept_bench";
  if (!ec && fs::exists(beside)) return beside.string();
  return PR_MAKE_EPT_BENCH_BIN;
}

using test::run_command;

/// `input` streamed at full detail (a budget of every point, sse 0) until it converges, every
/// node read.
test::Streamed stream(const std::string& input, uint64_t points) {
  const test::Streamed s = test::stream_converged({input}, points);
  EXPECT_TRUE(s.opened) << s.error;
  EXPECT_EQ(s.nodes_failed, 0u);
  EXPECT_TRUE(s.messages.empty()) << s.messages[0];
  return s;
}

fs::path scratch(const std::string& name) {
  return fs::temp_directory_path() / ("pr_make_ept_" + std::to_string(::getpid())) / name;
}

TEST(IoMakeEptBench, DatasetStreamsTheCopcFilesPoints) {
  REQUIRE_TESTDATA("laz");
  // lone-star: point format 6, 518,862 points over 3 levels; simple_with_page: format 7 (colors)
  // with a child hierarchy page.
  for (const char* file : {"lone-star.copc.laz", "simple_with_page.copc.laz"}) {
    const std::string copc = test::data_path("laz") + "/" + file;
    std::string err;
    const auto copc_file = CopcFile::open(open_byte_source(copc, &err), &err);
    ASSERT_TRUE(copc_file) << err;
    const FileInfo& ci = copc_file->info();
    const test::Streamed want = stream(copc, ci.points);
    ASSERT_EQ(want.points.size(), ci.points);
    for (const char* type : {"binary", "zstandard", "laszip"}) {
      for (const char* step : {"0", "1"}) {
        SCOPED_TRACE(std::string(file) + " " + type + " --hierarchy-step " + step);
        const fs::path out = scratch(std::string(file) + "-" + type + "-" + step);
        std::string log;
        ASSERT_TRUE(run_command(make_ept_bench_bin() + " " + copc + " " + out.string() +
                                    " --threads 2 --data-type " + type + " --hierarchy-step " +
                                    step,
                                log))
            << log;
        // One hierarchy file, or (a file every level) one for every node below the root.
        size_t hierarchy_files = 0;
        for (const auto& e : fs::directory_iterator(out / "ept-hierarchy")) {
          (void)e;
          ++hierarchy_files;
        }
        EXPECT_EQ(hierarchy_files == 1, std::string(step) == "0") << hierarchy_files;
        const auto d = test::open_local_ept(out.string(), &err);
        ASSERT_TRUE(d) << err;
        EXPECT_EQ(d->data_type(), type);
        EXPECT_EQ(d->info().points, ci.points);
        EXPECT_EQ(d->info().bounds.min, ci.bounds.min);
        EXPECT_EQ(d->info().bounds.max, ci.bounds.max);
        EXPECT_EQ(d->origin(), copc_file->origin());
        // The cube as its min and max corners: its centre and half size again, to a few ulps of
        // the corners' coordinates.
        const double ulps = 1e-14 * (glm::length(ci.copc.center) + ci.copc.halfsize);
        for (int k = 0; k < 3; ++k) EXPECT_NEAR(d->info().copc.center[k], ci.copc.center[k], ulps);
        EXPECT_NEAR(d->info().copc.halfsize, ci.copc.halfsize, ulps);
        EXPECT_NEAR(d->info().copc.spacing, ci.copc.spacing, 1e-9 * ci.copc.spacing);
        EXPECT_EQ(d->info().has_color, ci.has_color);
        const test::Streamed got = stream(out.string(), ci.points);
        EXPECT_EQ(got.info.format, "EPT");
        EXPECT_EQ(got.info.origin, want.info.origin);
        EXPECT_EQ(got.points.size(), want.points.size());
        EXPECT_TRUE(got.points == want.points);
      }
    }
  }
  fs::remove_all(scratch(""));
}

/// The records of `bytes` (`length` bytes each), each the bytes [0, `keep`) of it, sorted.
std::vector<std::string> sorted_records(const std::vector<uint8_t>& bytes, size_t length,
                                        size_t keep) {
  std::vector<std::string> out;
  for (size_t at = 0; at + length <= bytes.size(); at += length)
    out.emplace_back(reinterpret_cast<const char*>(&bytes[at]), keep);
  std::sort(out.begin(), out.end());
  return out;
}

TEST(IoMakeEptBench, NodesHoldTheFilesOwnRecords) {
  REQUIRE_TESTDATA("laz");
  // The integers X, Y, Z of every binary record, and every byte of every laszip node's records,
  // are those of the COPC file's records (all nodes together: the same multiset).
  for (const char* file : {"lone-star.copc.laz", "simple_with_page.copc.laz"}) {
    SCOPED_TRACE(file);
    const std::string copc = test::data_path("laz") + "/" + file;
    std::vector<uint8_t> records;
    size_t length = 0;
    std::string err;
    ASSERT_TRUE(decompress_laz(copc, records, &length, &err)) << err;
    const size_t points = records.size() / length;
    ASSERT_GT(points, 0u);
    for (const char* type : {"binary", "laszip"}) {
      SCOPED_TRACE(type);
      const fs::path out = scratch(std::string(file) + "-records-" + type);
      std::string log;
      ASSERT_TRUE(run_command(
          make_ept_bench_bin() + " " + copc + " " + out.string() + " --data-type " + type, log))
          << log;
      const auto d = test::open_local_ept(out.string(), &err);
      ASSERT_TRUE(d) << err;
      std::vector<uint8_t> all, node;
      for (const auto& e : fs::directory_iterator(out / "ept-data")) {
        size_t node_length = 0;
        if (std::string(type) == "laszip") {
          ASSERT_TRUE(decompress_laz(e.path().string(), node, &node_length, &err)) << err;
          ASSERT_EQ(node_length, length);
        } else {
          ASSERT_TRUE(read_local_file(e.path().string(), node, &err, nullptr)) << err;
        }
        all.insert(all.end(), node.begin(), node.end());
      }
      const bool laz = std::string(type) == "laszip";
      const size_t keep = laz ? length : 12;
      const std::vector<std::string> got =
          sorted_records(all, laz ? length : d->record_bytes(), keep);
      EXPECT_EQ(got.size(), points);
      EXPECT_TRUE(got == sorted_records(records, length, keep));
    }
  }
  fs::remove_all(scratch(""));
}

TEST(IoMakeEptBench, InputThatIsNoCopcFileGivesOneLine) {
  REQUIRE_TESTDATA("laz");
  const fs::path out = scratch("not-copc");
  std::string log;
  EXPECT_FALSE(run_command(
      make_ept_bench_bin() + " " + test::data_path("laz") + "/simple.laz " + out.string(), log));
  EXPECT_NE(log.find("simple.laz"), std::string::npos) << log;
  EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), 1) << log;
  EXPECT_FALSE(fs::exists(out / "ept.json"));
  EXPECT_FALSE(run_command(make_ept_bench_bin() + " " + test::data_path("laz") +
                               "/lone-star.copc.laz " + out.string() + " --data-type xml",
                           log));
  EXPECT_NE(log.find("xml"), std::string::npos) << log;
  fs::remove_all(scratch(""));
}

}  // namespace
}  // namespace pr

#endif  // PR_MAKE_EPT_BENCH_BIN
