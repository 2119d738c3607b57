// LZF decompression (PCD's binary_compressed bodies).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pr::io {

/// LZF (liblzf's format, as PCL's binary_compressed uses): decompresses exactly `out_size` bytes;
/// false on any malformed input (never reads or writes out of bounds).
bool lzf_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size);

/// The bytes of a cut LZF stream (its first `in_size` bytes): decompresses the whole runs they
/// hold into `out` (at most `out_size` bytes) and returns how many bytes that gave; it stops at
/// the first run the input ends inside, or that is malformed.
size_t lzf_decompress_prefix(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size);

}  // namespace pr::io
