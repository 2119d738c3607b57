// E57 page checksums for tests and the fuzz target: CRC-32C of each 1024-byte page's first 1020
// bytes, stored big-endian in its last 4. Rewriting them lets mutated inputs reach the reader's
// parsing past the checksum test.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pr::test {

inline uint32_t e57_crc32c(const uint8_t* p, size_t n) {
  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) {
    c ^= p[i];
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
  }
  return ~c;
}

/// Rewrites the checksum of every whole page of `data`.
inline void e57_fix_checksums(uint8_t* data, size_t size) {
  for (size_t p = 0; p + 1024 <= size; p += 1024) {
    const uint32_t c = e57_crc32c(data + p, 1020);
    data[p + 1020] = uint8_t(c >> 24), data[p + 1021] = uint8_t(c >> 16);
    data[p + 1022] = uint8_t(c >> 8), data[p + 1023] = uint8_t(c);
  }
}

}  // namespace pr::test
