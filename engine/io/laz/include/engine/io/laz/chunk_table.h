// The entries of a LAZ chunk table (after its 8-byte header: version 0, the number of chunks):
// each chunk's point count (variable chunks only) and byte size, coded by the integer coder, each
// predicted by the one before (0 for the first); context 0 the counts, context 1 the sizes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace pr::io::laz {

/// Reads the entries one by one from [data, data + size); past the end it reads zeros and says
/// so (overrun()).
class ChunkTableReader {
 public:
  ChunkTableReader(const uint8_t* data, size_t size);
  ~ChunkTableReader();
  ChunkTableReader(const ChunkTableReader&) = delete;
  ChunkTableReader& operator=(const ChunkTableReader&) = delete;

  /// The next chunk's entry: its point count into `points` when `variable` (fixed chunks store
  /// none), its byte size into `bytes`.
  void next(bool variable, uint32_t& points, uint32_t& bytes);
  /// True once the entries read ran past the table's bytes.
  bool overrun() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// The coded entries of chunks holding `points[i]` points (written only when `variable`) in
/// `bytes[i]` bytes: what ChunkTableReader reads back.
std::vector<uint8_t> encode_chunk_table(const std::vector<uint64_t>& points,
                                        const std::vector<uint64_t>& bytes, bool variable);

}  // namespace pr::io::laz
