// libFuzzer target for the COPC hierarchy and VLR parser: the input as a page (parse_copc_page),
// then as a file (CopcFile::open through a memory source), whose root page and the child pages it
// names are read (at most 64 pages, each once) and whose first nodes are decoded. Any crash,
// sanitizer report or leak fails, and so does a broken contract: an entry kept that a reader could
// not follow safely (a key outside its level, bytes outside the file), a message or warning that
// is not one line, a failed node that leaves points, a node giving more points than its entry.
#include <cstddef>
#include <cstdint>
#include <deque>
#include <set>
#include <string>
#include <vector>

#include "engine/io/base/io_common.h"
#include "engine/io/copc.h"

namespace {

bool one_line(const std::string& s) {
  return !s.empty() && s.find('\n') == std::string::npos;
}

/// The entries a page keeps: what parse_copc_page promises of each.
void check_entries(const std::vector<pr::CopcEntry>& entries, uint64_t points_begin,
                   uint64_t file_size) {
  for (const pr::CopcEntry& e : entries) {
    const pr::CopcKey& k = e.key;
    if (k.level < 0 || k.level > 30 || e.point_count < -1 || e.byte_size < 0) __builtin_trap();
    const int64_t cells = int64_t(1) << k.level;
    if (k.x < 0 || k.y < 0 || k.z < 0 || k.x >= cells || k.y >= cells || k.z >= cells)
      __builtin_trap();
    if (!e.is_page() && e.point_count == 0) continue;
    const uint64_t size = uint64_t(e.byte_size);
    if (size == 0 || e.offset < points_begin || e.offset > file_size || size > file_size - e.offset)
      __builtin_trap();
    if (e.is_page() && size % 32) __builtin_trap();
  }
}

void check_warnings(const std::vector<std::string>& warnings) {
  for (const std::string& w : warnings)
    if (!one_line(w)) __builtin_trap();
}

/// Reads the root page and the child pages it leads to, and decodes the first small nodes.
void walk(const pr::CopcFile& f, uint64_t file_size) {
  std::deque<pr::CopcPage> pages{f.root_page()};
  std::set<uint64_t> seen;
  size_t nodes = 0;
  while (!pages.empty() && seen.size() < 64) {
    const pr::CopcPage page = pages.front();
    pages.pop_front();
    if (!seen.insert(page.offset).second) continue;  // a cycle: the caller's to stop
    std::vector<pr::CopcEntry> entries;
    std::vector<std::string> warnings;
    std::string error;
    if (!f.read_page(page, entries, &warnings, &error)) {
      if (!one_line(error) || !entries.empty()) __builtin_trap();
      continue;
    }
    check_warnings(warnings);
    // Nodes lie after the chunk table's offset (the header's offset to the points + 8); pages
    // after it too, so every kept entry lies past the header.
    check_entries(entries, 375, file_size);
    for (const pr::CopcEntry& e : entries) {
      if (e.is_page()) {
        pages.push_back({e.offset, uint64_t(e.byte_size)});
        continue;
      }
      // A count allocates its points before the chunk proves them: small ones only, so that
      // the fuzzer's memory limit is not what it finds.
      if (e.point_count > 4096 || nodes++ >= 8) continue;
      pr::PointCloud cloud;
      if (f.read_node(e, f.origin(), cloud, &error)) {
        if (cloud.size() > size_t(e.point_count)) __builtin_trap();
      } else if (!one_line(error) || !cloud.empty()) {
        __builtin_trap();
      }
    }
  }
}

}  // namespace

// The fuzzers run under a memory limit (run_fuzz.sh: -rss_limit_mb=2048): the readers refuse what
// would take more than 1 GB, as they refuse what would take more than a machine's memory.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pr::io::set_memory_limit(uint64_t{1} << 30);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // The input as a page of a file of its own size whose points start at byte 0.
  std::vector<pr::CopcEntry> entries;
  std::vector<std::string> warnings;
  std::string error;
  const size_t whole = size - size % 32;
  if (!pr::parse_copc_page(data, whole, 0, size, entries, &warnings, &error)) __builtin_trap();
  check_warnings(warnings);
  check_entries(entries, 0, size);
  if (whole != size &&
      (pr::parse_copc_page(data, size, 0, size, entries, &warnings, &error) || !one_line(error)))
    __builtin_trap();
  // The input as a file.
  auto f = pr::CopcFile::open(pr::memory_byte_source({data, data + size}, "fuzz.copc.laz"), &error);
  if (!f) {
    if (!one_line(error)) __builtin_trap();
    return 0;
  }
  const pr::FileInfo& info = f->info();
  if (!info.copc.present || info.points == 0 || !(info.copc.halfsize > 0.0)) __builtin_trap();
  walk(*f, size);
  return 0;
}
