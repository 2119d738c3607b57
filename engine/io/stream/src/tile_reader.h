// A tile of a survey as the streaming workers read it: a COPC file (CopcFile, engine/io/copc.h)
// or an EPT dataset (EptDataset, engine/io/ept.h). Both name nodes and hierarchy pages by COPC's
// keys and entries; a COPC entry's offset and size are bytes of its file, an EPT entry's offset is
// its key's serial number (ept_key_serial: unique per key, so that a page listed twice shows) and
// its size 0 (each node and page is a file of its own).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/copc.h"
#include "engine/io/open_byte_source.h"

namespace pr {

class TileReader {
 public:
  virtual ~TileReader() = default;
  /// The header's facts: format, points, bounds, attributes, the root cube and spacing in copc.
  virtual const FileInfo& info() const = 0;
  /// The origin of the tile's own cloud (the first tile's is the scene's).
  virtual glm::dvec3 origin() const = 0;
  /// The root hierarchy page (point_count -1).
  virtual CopcEntry root_page() const = 0;
  /// Reads the page `page` (an entry with point_count -1) into `entries`; dropped entries each a
  /// line in `warnings`. False with a one-line message.
  virtual bool read_page(const CopcEntry& page, std::vector<CopcEntry>& entries,
                         std::vector<std::string>* warnings, std::string* error,
                         const std::atomic<bool>* cancel) const = 0;
  /// Reads and decodes a node into `out`, positions relative to `origin`. False with a message
  /// naming the node. Safe from several threads at once.
  virtual bool read_node(const CopcEntry& node, const glm::dvec3& origin, PointCloud& out,
                         std::string* error, const std::atomic<bool>* cancel) const = 0;
  /// Bytes read from its sources so far.
  virtual uint64_t bytes_read() const = 0;
  /// True when nodes are byte ranges of one source (entry offset, byte size), so that nodes that
  /// follow each other are read at once (read_ahead()).
  virtual bool contiguous() const { return false; }
  /// Reads [offset, offset + size) for this thread's next read_node() calls; false when it could
  /// not (each node then reads its own bytes).
  virtual bool read_ahead(uint64_t offset, uint64_t size, const std::atomic<bool>* cancel) {
    (void)offset, (void)size, (void)cancel;
    return false;
  }
};

/// Opens the tile at `href`: an EPT dataset when it names an ept.json (a path, a folder holding
/// one, a URL), else a COPC file. Null with a one-line message.
std::unique_ptr<TileReader> open_tile(const std::string& href, const HttpOptions& http,
                                      std::string* error);

}  // namespace pr
