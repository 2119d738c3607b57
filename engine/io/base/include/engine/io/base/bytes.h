// Little-endian values at unaligned addresses: how LAS, LAZ and E57 store their binary parts.
#pragma once

#include <cstdint>
#include <cstring>

namespace pr::io {

/// The little-endian value of type T at `p`, unaligned. LAS, LAZ and E57 store their binary
/// parts little-endian, like the machines this builds for.
template <class T>
T get_le(const uint8_t* p) {
  T v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
/// Stores `v` at `p` little-endian, unaligned (get_le's inverse).
template <class T>
void put_le(uint8_t* p, T v) {
  std::memcpy(p, &v, sizeof v);
}

}  // namespace pr::io
