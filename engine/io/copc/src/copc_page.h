// COPC hierarchy entries: how a 32-byte entry reads and which entries cannot be right, the rules
// the whole-file reader (laz.cpp, which fails on such an entry) and the streaming reader
// (copc_hierarchy.cpp's parse_copc_page, which drops it) share.
#pragma once

#include <cstdint>
#include <string>

#include "engine/io/copc.h"

namespace pr::io {

/// The deepest level a key may have: cells of 2^30 along an edge keep every key's x, y, z and
/// every child's in int32, and no octree comes near (a node per square millimetre of a continent).
inline constexpr int32_t kCopcMaxLevel = 30;

/// Bytes of a hierarchy entry.
inline constexpr uint64_t kCopcEntryBytes = 32;

/// The entry at `p` (32 bytes: level, x, y, z as int32; offset uint64; byte size, point count
/// int32).
CopcEntry copc_entry(const uint8_t* p);

/// "L-X-Y-Z", as COPC tools name a node.
std::string copc_key_name(const CopcKey& key);

/// "COPC hierarchy entry L-X-Y-Z (offset O, B bytes, C points)" ("child page" for count -1).
std::string copc_entry_name(const CopcEntry& e);

/// Why the entry cannot be right, or null: a count below -1, a negative byte size, a level outside
/// 0 - kCopcMaxLevel or a cell outside its level, a child page that is not a whole number of
/// entries or not inside [points_begin, file_size), a node with points whose bytes are not inside
/// [points_begin, file_size).
const char* copc_entry_problem(const CopcEntry& e, uint64_t points_begin, uint64_t file_size);

}  // namespace pr::io
