// COPC hierarchy pages: keys, entries, and the checks that keep a damaged or hostile page from
// sending a reader outside the file (entries are only read here, never followed: the caller
// decides which pages and nodes to read, and stops cycles of pages).
#include <string>

#include "copc_page.h"
#include "engine/io/base/bytes.h"

namespace pr {

CopcKey CopcKey::parent() const {
  if (level <= 0) return *this;
  return CopcKey{level - 1, x >> 1, y >> 1, z >> 1};
}

CopcKey CopcKey::child(int i) const {
  return CopcKey{level + 1, 2 * x + (i & 1), 2 * y + ((i >> 1) & 1), 2 * z + ((i >> 2) & 1)};
}

uint64_t CopcKey::hash() const {
  // splitmix64's finaliser over the four coordinates folded in one at a time: neighbouring
  // cells land far apart.
  auto mix = [](uint64_t v) {
    v = (v ^ (v >> 30)) * 0xBF58476D1CE4E5B9ull;
    v = (v ^ (v >> 27)) * 0x94D049BB133111EBull;
    return v ^ (v >> 31);
  };
  uint64_t h = mix(uint64_t(uint32_t(level)) + 0x9E3779B97F4A7C15ull);
  h = mix(h ^ uint64_t(uint32_t(x)));
  h = mix(h ^ uint64_t(uint32_t(y)));
  return mix(h ^ uint64_t(uint32_t(z)));
}

namespace io {

CopcEntry copc_entry(const uint8_t* p) {
  CopcEntry e;
  e.key = CopcKey{get_le<int32_t>(p), get_le<int32_t>(p + 4), get_le<int32_t>(p + 8),
                  get_le<int32_t>(p + 12)};
  e.offset = get_le<uint64_t>(p + 16);
  e.byte_size = get_le<int32_t>(p + 24);
  e.point_count = get_le<int32_t>(p + 28);
  return e;
}

std::string copc_key_name(const CopcKey& k) {
  return std::to_string(k.level) + "-" + std::to_string(k.x) + "-" + std::to_string(k.y) + "-" +
         std::to_string(k.z);
}

std::string copc_entry_name(const CopcEntry& e) {
  return "COPC hierarchy entry " + copc_key_name(e.key) + " (offset " + std::to_string(e.offset) +
         ", " + std::to_string(e.byte_size) + " bytes, " +
         (e.point_count == -1 ? std::string("child page")
                              : std::to_string(e.point_count) + " points") +
         ")";
}

const char* copc_entry_problem(const CopcEntry& e, uint64_t points_begin, uint64_t file_size) {
  if (e.point_count < -1) return "a point count below -1";
  if (e.byte_size < 0) return "a negative byte size";
  const CopcKey& k = e.key;
  if (k.level < 0 || k.level > kCopcMaxLevel) return "a level outside 0 - 30";
  const int64_t cells = int64_t(1) << k.level;
  if (k.x < 0 || k.y < 0 || k.z < 0 || k.x >= cells || k.y >= cells || k.z >= cells)
    return "a cell outside its level";
  const uint64_t size = uint64_t(e.byte_size);
  const bool inside =
      e.offset >= points_begin && e.offset <= file_size && size <= file_size - e.offset;
  if (e.is_page()) {
    if (size == 0 || size % kCopcEntryBytes) return "a child page of no whole number of entries";
    if (!inside) return "a child page outside the file";
  } else if (e.point_count > 0) {
    if (size == 0) return "points but no bytes";
    if (!inside) return "bytes outside the point data";
  }
  return nullptr;
}

}  // namespace io

bool parse_copc_page(const uint8_t* data, size_t size, uint64_t points_begin, uint64_t file_size,
                     std::vector<CopcEntry>& entries, std::vector<std::string>* warnings,
                     std::string* error) {
  entries.clear();
  if (size % io::kCopcEntryBytes) {
    if (error)
      *error = "a COPC hierarchy page of " + std::to_string(size) +
               " bytes is not a whole number of 32-byte entries";
    return false;
  }
  // A damaged page may hold thousands of bad entries: the first few are named, the rest counted.
  constexpr size_t kNamed = 8;
  size_t dropped = 0;
  entries.reserve(size / io::kCopcEntryBytes);
  for (size_t at = 0; at < size; at += io::kCopcEntryBytes) {
    const CopcEntry e = io::copc_entry(data + at);
    if (const char* why = io::copc_entry_problem(e, points_begin, file_size)) {
      if (warnings && dropped < kNamed)
        warnings->push_back(io::copc_entry_name(e) + " skipped: " + why);
      ++dropped;
      continue;
    }
    entries.push_back(e);
  }
  if (warnings && dropped > kNamed)
    warnings->push_back("COPC hierarchy page: " + std::to_string(dropped - kNamed) +
                        " more entries skipped");
  return true;
}

}  // namespace pr
