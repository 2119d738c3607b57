// libFuzzer target for the EPT reader (engine/io/ept.h): the input, cut at its first two NUL bytes,
// is an ept.json, every hierarchy file and every node file of a dataset held in memory (an input
// without NUL is an ept.json alone: the test data's seed it). The description is parsed; the
// hierarchy is read from the root, following -1 entries (at most 64 files, each once); the first
// nodes are decoded. Any crash, sanitizer report or leak fails, and so does a broken contract: an
// entry kept whose key lies outside its file's subtree or whose count is below -1, a message or
// warning that is not one line, a failed node that leaves points, a node giving more points than
// its entry.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "engine/io/base/io_common.h"
#include "engine/io/ept.h"

namespace {

bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == std::string::npos;
}

}  // namespace

// The fuzzers run under a memory limit (run_fuzz.sh: -rss_limit_mb=2048): the readers refuse what
// would take more than 1 GB, as they refuse what would take more than a machine's memory.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pr::io::set_memory_limit(uint64_t{1} << 30);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string all(reinterpret_cast<const char*>(data), size);
  const size_t a = all.find('\0');
  const size_t b = a == std::string::npos ? a : all.find('\0', a + 1);
  const std::string description = all.substr(0, a);
  const std::string hierarchy = a == std::string::npos ? "{}" : all.substr(a + 1, b - a - 1);
  const std::string node = b == std::string::npos ? "" : all.substr(b + 1);
  pr::EptFetch fetch = [&](const std::string& href, std::vector<uint8_t>& bytes, std::string* error,
                           const std::atomic<bool>*) {
    const std::string& s = href.find("ept-hierarchy/") != std::string::npos ? hierarchy : node;
    bytes.assign(s.begin(), s.end());
    (void)error;
    return true;
  };
  std::string error;
  auto d = pr::EptDataset::parse("fuzz/ept.json", description, fetch, &error);
  if (!d) {
    if (!one_line(error)) __builtin_trap();
    return 0;
  }
  std::vector<pr::CopcKey> files{pr::CopcKey{}};
  std::set<uint64_t> seen;
  std::vector<pr::CopcEntry> entries, nodes;
  std::vector<std::string> warnings;
  while (!files.empty() && seen.size() < 64) {
    const pr::CopcKey key = files.back();
    files.pop_back();
    if (!seen.insert(pr::ept_key_serial(key)).second) continue;
    if (!d->read_hierarchy(key, entries, &warnings, &error)) {
      if (!one_line(error)) __builtin_trap();
      continue;
    }
    for (const pr::CopcEntry& e : entries) {
      const int s = e.key.level - key.level;
      if (s < 0 || e.key.level > pr::kEptMaxLevel || e.point_count < -1 ||
          (e.key.x >> s) != key.x || (e.key.y >> s) != key.y || (e.key.z >> s) != key.z)
        __builtin_trap();
      if (e.point_count == -1) files.push_back(e.key);
      if (e.point_count > 0 && nodes.size() < 4) nodes.push_back(e);
    }
  }
  for (const std::string& w : warnings)
    if (!one_line(w)) __builtin_trap();
  for (const pr::CopcEntry& e : nodes) {
    pr::PointCloud cloud;
    if (!d->read_node(e.key, e.point_count, d->origin(), cloud, &error)) {
      if (!one_line(error) || !cloud.empty()) __builtin_trap();
    } else if (cloud.size() > uint64_t(e.point_count)) {
      __builtin_trap();
    }
  }
  return 0;
}
