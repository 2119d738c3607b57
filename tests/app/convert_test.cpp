// `pointraster --convert` through the real program: real files from the test data in, the
// output read back with --info; a bad suffix, missing and unreadable inputs, and Ctrl-C leave no
// output behind.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "engine/scenes.h"
#include "pointraster_bin.h"
#include "testdata.h"

extern char** environ;

namespace fs = std::filesystem;
using json = nlohmann::json;
using pr::test::pointraster_bin;

namespace {

/// A fresh folder for one test.
fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_convert_test_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/// The program started with `args`, its stdout and stderr into files in `dir`.
struct Program {
  pid_t pid = -1;
  fs::path out, err;

  Program(const std::vector<std::string>& args, const fs::path& dir) {
    out = dir / "stdout.txt";
    err = dir / "stderr.txt";
    std::vector<std::string> all = {pointraster_bin()};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ) != 0) pid = -1;
    posix_spawn_file_actions_destroy(&fa);
  }

  /// The exit code, or 128 + the signal that ended it; -1 when it did not start.
  int wait() {
    if (pid < 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    pid = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  /// Whether it has not ended yet.
  bool running() {
    int status = 0;
    return pid >= 0 && waitpid(pid, &status, WNOHANG) == 0;
  }
  std::string stdout_text() const { return read_text(out); }
  std::string stderr_text() const { return read_text(err); }
};

struct Outcome {
  int rc;
  std::string out, err;
};

Outcome run(const std::vector<std::string>& args, const fs::path& dir) {
  Program p(args, dir);
  const int rc = p.wait();
  return {rc, p.stdout_text(), p.stderr_text()};
}

size_t lines(const std::string& s) {
  size_t n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

/// The files left in `dir` other than the program's stdout and stderr.
std::vector<std::string> leftovers(const fs::path& dir) {
  std::vector<std::string> left;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name != "stdout.txt" && name != "stderr.txt") left.push_back(e.path().string());
  }
  return left;
}

/// --info --json's object for `path`.
json info_json(const fs::path& path, const fs::path& dir) {
  const Outcome r = run({"--info", "--json", path.string()}, dir);
  EXPECT_EQ(r.rc, 0) << r.err;
  try {
    return json::parse(r.out);
  } catch (const json::exception& e) {
    ADD_FAILURE() << "--info --json printed no JSON: " << r.out << r.err;
    return json::object();
  }
}

/// A LAS 1.2 file of `n` points of format 0 (20-byte records) in a 1000 m square, random.
void write_las(const fs::path& path, uint32_t n) {
  std::string h(227, '\0');
  std::memcpy(h.data(), "LASF", 4);
  h[24] = 1;
  h[25] = 2;
  auto put16 = [&h](size_t at, uint16_t v) { std::memcpy(h.data() + at, &v, 2); };
  auto put32 = [&h](size_t at, uint32_t v) { std::memcpy(h.data() + at, &v, 4); };
  auto putd = [&h](size_t at, double v) { std::memcpy(h.data() + at, &v, 8); };
  put16(94, 227);                                               // header size
  put32(96, 227);                                               // offset to the points
  h[104] = 0;                                                   // point format
  put16(105, 20);                                               // record length
  put32(107, n);                                                // points
  put32(111, n);                                                // points of the first return
  for (int a = 0; a < 3; ++a) putd(131 + 8 * size_t(a), 0.01);  // scale
  putd(179, 1000.0);  // max x, min x, max y, min y, max z, min z
  putd(195, 1000.0);
  putd(211, 100.0);
  std::ofstream out(path, std::ios::binary);
  out.write(h.data(), std::streamsize(h.size()));
  std::mt19937 rng(7);
  std::uniform_int_distribution<int32_t> xy(0, 100000), z(0, 10000);
  std::string block;
  for (uint32_t i = 0; i < n; ++i) {
    char rec[20] = {};
    const int32_t p[3] = {xy(rng), xy(rng), z(rng)};
    std::memcpy(rec, p, 12);
    const uint16_t intensity = uint16_t(i);
    std::memcpy(rec + 12, &intensity, 2);
    rec[14] = 0x09;  // return 1 of 1
    rec[15] = 2;     // ground
    block.append(rec, 20);
    if (block.size() >= (1u << 20)) {
      out.write(block.data(), std::streamsize(block.size()));
      block.clear();
    }
  }
  out.write(block.data(), std::streamsize(block.size()));
}

}  // namespace

TEST(Convert, ALasFileToCopcThatInfoListsByLevel) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("copc");
  const std::string in = pr::test::data_path("las") + "/autzen_trim.las";
  const fs::path out = d / "autzen.copc.laz";
  const Outcome r = run({"--convert", out.string(), in}, d);
  ASSERT_EQ(r.rc, 0) << r.err;
  EXPECT_NE(r.out.find("pointraster: wrote " + out.string() + "\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  format      COPC, LAS point format 7"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\n  points      110000\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("(kept from the input)"), std::string::npos) << r.out;
  unsigned levels = 0, nodes = 0;
  const size_t at = r.out.find("\n  octree      ");
  ASSERT_NE(at, std::string::npos) << r.out;
  ASSERT_EQ(std::sscanf(r.out.c_str() + at, "\n  octree      %u levels, %u nodes", &levels, &nodes),
            2);
  EXPECT_GT(levels, 1u);
  EXPECT_GT(fs::file_size(out), 0u);

  // --info on the output: the levels and nodes the conversion printed, the points of the input.
  const json j = info_json(out, d);
  EXPECT_EQ(j["points"], 110000);
  ASSERT_TRUE(j.contains("copc")) << j;
  ASSERT_EQ(j["copc"]["levels"].size(), levels) << j;
  uint64_t points = 0, node_count = 0;
  for (const json& l : j["copc"]["levels"]) {
    points += l["points"].get<uint64_t>();
    node_count += l["nodes"].get<uint64_t>();
  }
  EXPECT_EQ(points, 110000u);
  EXPECT_EQ(node_count, nodes);
  const Outcome text = run({"--info", out.string()}, d);
  ASSERT_EQ(text.rc, 0) << text.err;
  const std::string head = "\n  copc        " + std::to_string(levels) + " levels, " +
                           std::to_string(nodes) + " nodes, spacing ";
  EXPECT_NE(text.out.find(head), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n    level 0   1 nodes, "), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("\n    level " + std::to_string(levels - 1)), std::string::npos)
      << text.out;
  fs::remove_all(d);
}

TEST(Convert, TimingsGiveEachStageItsSeconds) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("timings");
  const std::string in = pr::test::data_path("las") + "/autzen_trim.las";
  const Outcome r = run({"--convert", (d / "a.copc.laz").string(), in, "--timings"}, d);
  ASSERT_EQ(r.rc, 0) << r.err;
  double total = 0.0;
  const size_t t = r.out.find("\n  time        ");
  ASSERT_NE(t, std::string::npos) << r.out;
  ASSERT_EQ(std::sscanf(r.out.c_str() + t, "\n  time        %lf s", &total), 1) << r.out;
  // The stages from the first (scanning) on, their seconds adding up to the time printed.
  const size_t at = r.out.find("\n  stages      scanning ");
  ASSERT_NE(at, std::string::npos) << r.out;
  std::istringstream line(r.out.substr(at + 14, r.out.find('\n', at + 1) - at - 14));
  std::string name, unit;
  double seconds = 0.0, sum = 0.0;
  std::vector<std::string> names;
  while (line >> name >> seconds >> unit) {
    names.push_back(name);
    EXPECT_GE(seconds, 0.0);
    sum += seconds;
  }
  ASSERT_FALSE(names.empty()) << r.out;
  EXPECT_EQ(names.front(), "scanning");
  EXPECT_NE(std::find(names.begin(), names.end(), "building"), names.end()) << r.out;
  EXPECT_NEAR(sum, total, 0.02 + 0.005 * double(names.size())) << r.out;
  // Without --timings no stages are printed.
  const Outcome plain = run({"--convert", (d / "b.copc.laz").string(), in}, d);
  ASSERT_EQ(plain.rc, 0) << plain.err;
  EXPECT_EQ(plain.out.find("stages"), std::string::npos) << plain.out;
  fs::remove_all(d);
}

TEST(Convert, AnE57FileToLasAndLaz) {
  REQUIRE_TESTDATA("e57");
  const fs::path d = scratch("e57");
  const std::string in = pr::test::data_path("e57") + "/A_B.e57";
  const uint64_t points = info_json(in, d)["points"].get<uint64_t>();
  ASSERT_GT(points, 0u);
  for (const char* name : {"scans.las", "scans.laz"}) {
    const fs::path out = d / name;
    const Outcome r = run({"--convert", out.string(), "--threads", "2", in}, d);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("(chosen from the bounds)"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("octree"), std::string::npos) << r.out;
    const json j = info_json(out, d);
    EXPECT_EQ(j["format"], fs::path(name).extension() == ".las" ? "LAS" : "LAZ") << name;
    EXPECT_EQ(j["points"].get<uint64_t>(), points) << name;
    EXPECT_FALSE(j.contains("copc")) << name;
  }
  fs::remove_all(d);
}

// --scene instead of FILEs: the procedural scene written z up (its y, up, becomes z): the file's
// bounds are the scene's with y and z swapped, on the output's grid.
TEST(Convert, AProceduralSceneIsWrittenZUp) {
  const fs::path d = scratch("scene");
  const fs::path out = d / "terrain.copc.laz";
  const Outcome r = run(
      {"--convert", out.string(), "--scene", "terrain", "--points", "60000", "--threads", "2"}, d);
  ASSERT_EQ(r.rc, 0) << r.err;
  const json j = info_json(out, d);
  EXPECT_EQ(j["points"].get<uint64_t>(), 60000u);
  ASSERT_TRUE(j.contains("copc"));
  const pr::Bounds b = pr::make_scene("terrain", 60000).world_bounds();
  const double lo[3] = {b.min.x, b.min.z, b.min.y}, hi[3] = {b.max.x, b.max.z, b.max.y};
  for (int a = 0; a < 3; ++a) {
    EXPECT_NEAR(j["bounds_min"][a].get<double>(), lo[a], 1e-3) << a;
    EXPECT_NEAR(j["bounds_max"][a].get<double>(), hi[a], 1e-3) << a;
  }
  const Outcome none = run({"--convert", (d / "x.las").string()}, d);
  EXPECT_EQ(none.rc, 2);
  EXPECT_NE(none.err.find("--scene"), std::string::npos) << none.err;
  fs::remove_all(d);
}

TEST(Convert, ASuffixThatPicksNoFormatIsAUsageError) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("suffix");
  const Outcome r =
      run({"--convert", (d / "out.ply").string(), pr::test::data_path("las") + "/simple.las"}, d);
  EXPECT_EQ(r.rc, 2);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  for (const char* s : {"out.ply", ".copc.laz", ".laz", ".las"})
    EXPECT_NE(r.err.find(s), std::string::npos) << s << " not in: " << r.err;
  EXPECT_TRUE(leftovers(d).empty());
  // And --convert without FILE, with --info, or --temp without --convert.
  EXPECT_EQ(run({"--convert", (d / "x.las").string()}, d).rc, 2);
  EXPECT_EQ(run({"--convert", (d / "x.las").string(), "--info", "a.las"}, d).rc, 2);
  EXPECT_EQ(run({"--temp", d.string(), "--info", "a.las"}, d).rc, 2);
  EXPECT_EQ(run({"--convert", (d / "x.las").string(), "--memory", "lots", "a.las"}, d).rc, 2);
  fs::remove_all(d);
}

TEST(Convert, AMissingInputIsNamedAndWritesNothing) {
  const fs::path d = scratch("missing");
  const Outcome r = run({"--convert", (d / "out.copc.laz").string(), "/nonexistent/input.las"}, d);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("/nonexistent/input.las"), std::string::npos) << r.err;
  EXPECT_TRUE(leftovers(d).empty()) << leftovers(d).front();
  fs::remove_all(d);
}

TEST(Convert, AnUnreadableInputAmongSeveralLeavesNoOutput) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("unreadable");
  const fs::path temp = d / "temp";
  fs::create_directories(temp);
  const fs::path bad = d / "in" / "broken.las";
  fs::create_directories(bad.parent_path());
  std::ofstream(bad, std::ios::binary) << "LASF but nothing a LAS header holds";
  const std::string las = pr::test::data_path("las");
  const Outcome r = run({"--convert", (d / "out.copc.laz").string(), "--temp", temp.string(),
                         las + "/autzen_trim.las", bad.string(), las + "/simple.las"},
                        d);
  EXPECT_EQ(r.rc, 1);
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("broken.las"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "out.copc.laz"));
  EXPECT_TRUE(fs::is_empty(temp));
  fs::remove_all(d);
}

// Ctrl-C while a conversion runs: a progress line (stderr is no terminal here) shows it running;
// SIGINT then ends it with 128 + 2, "cancelled", and neither the output nor temporary files left.
TEST(Convert, SigintCancelsAndLeavesNothing) {
  const fs::path d = scratch("sigint");
  const fs::path in = d / "in" / "big.las";
  fs::create_directories(in.parent_path());
  write_las(in, 12'000'000);
  const fs::path temp = d / "temp";
  fs::create_directories(temp);
  const fs::path out = d / "out" / "big.copc.laz";
  fs::create_directories(out.parent_path());
  // One thread and 12M points: still running after a second on a fast machine of many cores.
  Program p({"--convert", out.string(), "--temp", temp.string(), "--threads", "1", in.string()}, d);
  ASSERT_GT(p.pid, 0);
  // A progress line: the conversion has run for a second.
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (p.running() && lines(p.stderr_text()) < 1 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_TRUE(p.running()) << "the conversion ended before it could be interrupted ("
                           << p.stderr_text() << "): make the input larger";
  ASSERT_EQ(kill(p.pid, SIGINT), 0);
  const int rc = p.wait();
  const std::string err = p.stderr_text();
  EXPECT_EQ(rc, 128 + SIGINT) << err;
  EXPECT_NE(err.find("cancelled"), std::string::npos) << err;
  EXPECT_EQ(err.substr(err.rfind('\n', err.size() - 2) + 1).rfind("pointraster: cancelled", 0), 0u)
      << err;
  EXPECT_TRUE(fs::is_empty(out.parent_path())) << "left: " << leftovers(out.parent_path()).front();
  EXPECT_TRUE(fs::is_empty(temp)) << "left: " << leftovers(temp).front();
  fs::remove_all(d);
}
