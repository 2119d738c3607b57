// Entwine Point Tiles (EPT) read node by node: a dataset is a folder or URL prefix holding
//   ept.json                  the root cube (`bounds`), the points' box (`boundsConforming`), the
//                             point count, the `schema` (dimensions: name, size, type; X, Y, Z
//                             with scale and offset), `dataType` (laszip, binary, zstandard),
//                             `hierarchyType` (json), `span` (the root's grid: spacing = cube
//                             width / span) and `srs`;
//   ept-hierarchy/D-X-Y-Z.json  node key -> point count; -1: the subtree of that key is in the
//                             hierarchy file of that key;
//   ept-data/D-X-Y-Z.laz|.bin|.zst  a node's points: a LAZ file, the schema's packed records
//                             (little endian), or those records compressed with Zstandard.
// Keys are COPC's (CopcKey: depth, x, y, z) and levels add up as in COPC: the cloud is the union
// of every node's points, so streaming selects EPT nodes as it selects COPC nodes.
// Files are read whole through a fetch function (a local file, or an HTTP request), so this room
// needs no byte source of its own. A URL's query (a presigned URL's signature) is carried to every
// file: ept-hierarchy/0-0-0-0.json?<query>, ept-data/...?<query>.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/copc.h"
#include "engine/io/file_info.h"
#include "engine/point_cloud.h"

namespace pr {

/// Reads the whole file `href` (a path or URL) into `bytes`; false with a one-line message. May be
/// called from several threads at once.
using EptFetch = std::function<bool(const std::string& href, std::vector<uint8_t>& bytes,
                                    std::string* error, const std::atomic<bool>* cancel)>;

/// The fetch of a dataset on disk: the local file `path` read whole.
bool read_local_file(const std::string& path, std::vector<uint8_t>& bytes, std::string* error,
                     const std::atomic<bool>* cancel);

/// The `ept.json` of `input`: `input` itself when its name (a URL's path) is ept.json, the
/// ept.json inside it when it is a folder holding one, `<URL>ept.json` for an http(s) URL whose
/// path ends in '/' (a dataset's directory URL: its query kept, "http://h/d/?t=1" gives
/// "http://h/d/ept.json?t=1"); empty otherwise.
std::string ept_json_of(const std::string& input);

/// The deepest key level read: keys of level 20 number their cells in 64 bits (EptDataset's
/// entries carry a key's serial number), and no dataset comes near (2^20 cells along an edge).
inline constexpr int32_t kEptMaxLevel = 20;

/// A key's serial number, unique among keys of levels 0 - kEptMaxLevel: the nodes of the levels
/// above, then its Morton index within its level.
uint64_t ept_key_serial(const CopcKey& key);

/// A dimension of the schema.
struct EptDimension {
  std::string name;
  char type = 'u';  ///< 's' signed, 'u' unsigned, 'f' float
  uint32_t size = 0;
  double scale = 1.0, offset = 0.0;
  uint32_t byte_offset = 0;  ///< within a binary record
};

class EptDataset {
 public:
  /// Fetches and parses `ept_json`. Null with a one-line message naming it: not found, not JSON,
  /// a schema without X, Y or Z, a dimension of unknown type or a size its type cannot have, a
  /// bounds that is no box, an unknown dataType or hierarchyType.
  static std::unique_ptr<EptDataset> open(const std::string& ept_json, EptFetch fetch,
                                          std::string* error);
  /// Parses ept.json's `text` (open()'s checks); the files it leads to are fetched by `fetch`.
  static std::unique_ptr<EptDataset> parse(const std::string& ept_json, const std::string& text,
                                           EptFetch fetch, std::string* error);
  ~EptDataset();

  /// What --info says: format "EPT", version (EPT version, dataType, span, the srs's EPSG code),
  /// points, bounds (boundsConforming, else the cube), origin, attributes from the schema, and in
  /// `copc` the root cube and spacing (present stays false: no COPC file).
  const FileInfo& info() const;
  /// The origin of a whole read's cloud: choose_origin() of the bounds.
  glm::dvec3 origin() const;
  const std::string& data_type() const;
  const std::vector<EptDimension>& schema() const;
  /// Bytes of a binary record.
  uint32_t record_bytes() const;
  /// Bytes fetched so far.
  uint64_t bytes_read() const;

  /// Reads the hierarchy file of `key`: its entries, each a node (point_count >= 0) or a subtree
  /// to read from its own hierarchy file (point_count -1); `offset` holds the key's serial
  /// number (ept_key_serial), byte_size 0. Entries that cannot be right are dropped and named once
  /// each in `warnings` (may be null): key text that is no D-X-Y-Z, a key outside the cube or
  /// outside the subtree of `key`, a count that is no whole number from -1 to 2^31 - 1. False
  /// with a message when the file cannot be fetched or is no JSON object.
  bool read_hierarchy(const CopcKey& key, std::vector<CopcEntry>& entries,
                      std::vector<std::string>* warnings, std::string* error,
                      const std::atomic<bool>* cancel = nullptr) const;

  /// Fetches and decodes node `key` into `out` (replaced): positions relative to `origin` (the
  /// records' integers * scale + offset, in double, minus the origin), colors (16-bit channels
  /// to 8 bits as the LAS reader does), intensity, classification, returns, point source and GPS
  /// time from the schema's dimensions of those names. False with a message naming the node when
  /// it cannot be fetched, does not decode, or holds another number of points than `points`.
  /// Safe from several threads at once.
  bool read_node(const CopcKey& key, int64_t points, const glm::dvec3& origin, PointCloud& out,
                 std::string* error, const std::atomic<bool>* cancel = nullptr) const;

  /// Every node of the hierarchy (every hierarchy file from the root) into `out`, positions
  /// relative to origin(). Nodes that fail and hierarchy entries dropped are named in `warnings`
  /// and skipped; false when the root hierarchy file cannot be read.
  bool read_all(PointCloud& out, std::vector<std::string>* warnings, std::string* error) const;

 private:
  EptDataset();
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace pr
