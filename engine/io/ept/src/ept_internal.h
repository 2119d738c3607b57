// What the EPT reader's files share: the dataset's parsed state and the node decoders.
#pragma once

#include <atomic>
#include <string>
#include <vector>

#include "engine/io/base/io_common.h"
#include "engine/io/ept.h"

namespace pr {

struct EptDataset::Impl {
  std::string json_href;  ///< the ept.json as given
  std::string base;       ///< the dataset's folder or URL prefix, ending in '/'
  /// A URL's query ("?X-Amz-Signature=...", "?token=..."), appended to every file's URL; empty
  /// for a path or a URL without one.
  std::string query;
  std::string name;  ///< for messages: the ept.json
  EptFetch fetch;
  FileInfo info;
  std::string data_type;  ///< laszip, binary, zstandard
  std::vector<EptDimension> schema;
  uint32_t record_bytes = 0;
  int dim_x = -1, dim_y = -1, dim_z = -1;
  io::Attributes attrs;
  mutable std::atomic<uint64_t> bytes{0};

  bool fetch_file(const std::string& rel, std::vector<uint8_t>& out, std::string* error,
                  const std::atomic<bool>* cancel) const;
  /// A node's bytes (`data`, `size`) decoded by the dataType: records checked against `points`.
  bool decode(const uint8_t* data, size_t size, uint64_t points, const glm::dvec3& origin,
              PointCloud& out, std::string& why) const;
  bool decode_laz(const uint8_t* data, size_t size, uint64_t points, const glm::dvec3& origin,
                  PointCloud& out, std::string& why) const;
  bool decode_records(const uint8_t* data, size_t size, uint64_t points, const glm::dvec3& origin,
                      PointCloud& out, std::string& why) const;
};

/// "D-X-Y-Z".
std::string ept_key_text(const CopcKey& key);

/// Parses "D-X-Y-Z" (decimal, no sign) into `key`; false for other text.
bool parse_ept_key(const std::string& text, CopcKey& key);

/// Decompresses a Zstandard frame of exactly `expected` bytes into `out`; false with `why` when
/// it does not decode or holds another number of bytes.
bool zstd_decompress(const uint8_t* data, size_t size, size_t expected, std::vector<uint8_t>& out,
                     std::string& why);

}  // namespace pr
