// LZF decompression (the format of Marc Lehmann's liblzf, which PCL's binary_compressed uses).
// A stream of runs: a control byte c < 32 starts c+1 literal bytes; otherwise the top 3 bits are
// a length (7 = read one more byte and add it) and a back-reference of length+2 bytes starts
// ((c & 31) << 8 | next byte) + 1 bytes behind the output position (it may overlap the output).
#include "lzf.h"

#include <cstring>

namespace pr::io {

namespace {

/// Decompresses runs until the input ends or a run does not hold; `op` ends where the last whole
/// run ended. True when the input ended at a run's boundary.
bool lzf_runs(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size, uint8_t*& op) {
  const uint8_t* ip = in;
  const uint8_t* const ie = in + in_size;
  uint8_t* const oe = out + out_size;
  op = out;
  while (ip < ie) {
    size_t c = *ip++;
    if (c < 32) {
      const size_t n = c + 1;
      if (size_t(ie - ip) < n || size_t(oe - op) < n) return false;
      std::memcpy(op, ip, n);
      op += n;
      ip += n;
    } else {
      size_t len = c >> 5;
      if (len == 7) {
        if (ip >= ie) return false;
        len += *ip++;
      }
      if (ip >= ie) return false;
      const size_t back = ((c & 31) << 8) + *ip++ + 1;
      len += 2;
      if (back > size_t(op - out) || size_t(oe - op) < len) return false;
      const uint8_t* ref = op - back;
      for (size_t k = 0; k < len; ++k) op[k] = ref[k];  // byte by byte: the copy may overlap
      op += len;
    }
  }
  return true;
}

}  // namespace

bool lzf_decompress(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  uint8_t* op = nullptr;
  return lzf_runs(in, in_size, out, out_size, op) && op == out + out_size;
}

size_t lzf_decompress_prefix(const uint8_t* in, size_t in_size, uint8_t* out, size_t out_size) {
  uint8_t* op = nullptr;
  lzf_runs(in, in_size, out, out_size, op);
  return size_t(op - out);
}

}  // namespace pr::io
