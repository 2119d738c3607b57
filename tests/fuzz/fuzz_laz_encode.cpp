// libFuzzer target for the LAZ chunk encoders: the input as point records, encoded by
// ChunkWriter and decoded by ChunkReader, must come back byte for byte. The first byte picks the
// layout (the point format among 0-3 and 6-8, and 0-7 extra bytes) and the chunking (chunks of
// 1, 2 or 17 points, or one chunk); the rest are the records (a partial last record is
// dropped, and so are records past the 512th, or the 32nd in chunks of 1 or 2). Any mismatch, a
// decoder reading past its chunk or a chunk not consumed exactly aborts.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "engine/io/laz/chunk.h"
#include "engine/io/laz/writer.h"

namespace {

using pr::io::laz::ChunkReader;
using pr::io::laz::ChunkWriter;
using pr::io::laz::Layout;

void check_chunk(ChunkReader& reader, const std::vector<uint8_t>& chunk, const uint8_t* records,
                 uint64_t count, size_t rec) {
  std::string why;
  if (!reader.start(chunk.data(), chunk.size(), count, &why)) __builtin_trap();
  std::vector<uint8_t> got(rec);
  for (uint64_t i = 0; i < count; ++i) {
    reader.next(got.data());
    if (std::memcmp(got.data(), records + i * rec, rec) != 0) __builtin_trap();
  }
  if (reader.overrun() || reader.consumed() != chunk.size()) __builtin_trap();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 1) return 0;
  static const int kFormats[8] = {0, 1, 2, 3, 6, 7, 8, 6};
  const int format = kFormats[data[0] & 7];
  const uint16_t extra = uint16_t((data[0] >> 3) & 7);
  static const uint64_t kEvery[4] = {~uint64_t(0), 1, 2, 17};
  const uint64_t every = kEvery[data[0] >> 6];
  const Layout lo = pr::io::laz::make_layout(format, extra);
  const size_t rec = lo.record_length;
  // At most 512 records (32 in chunks of 1 or 2, each of which starts every model afresh):
  // longer inputs cover nothing new and slow the runs down.
  const uint64_t n = std::min<uint64_t>((size - 1) / rec, every <= 2 ? 32 : 512);
  const uint8_t* records = data + 1;
  ChunkWriter writer(lo);
  ChunkReader reader(lo);
  std::vector<uint8_t> chunk;
  uint64_t first = 0;
  for (uint64_t i = 0; i < n; ++i) {
    writer.add(records + i * rec);
    if (writer.count() == every || i + 1 == n) {
      chunk.clear();
      const uint64_t count = writer.count();
      writer.finish(chunk);
      check_chunk(reader, chunk, records + first * rec, count, rec);
      first = i + 1;
      writer.start();
    }
  }
  return 0;
}
