// A survey: the tiles several inputs name. A COPC file or URL is one tile, an EPT dataset (its
// ept.json, or a folder holding it) one tile; another folder gives its COPC files (*.copc.laz,
// sorted by name); a virtual point cloud (.vpc: PDAL wrench's format, a GeoJSON FeatureCollection
// of STAC Items, one per file) gives its items' data assets, with the bounds (`proj:bbox`) and
// point count (`pc:count`) it declares, so that a tile out of view is never opened.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/io/open_byte_source.h"
#include "engine/point_cloud.h"

namespace pr {

struct SurveyTile {
  /// A path or URL: a .vpc's relative hrefs resolved against its location (a .vpc URL's query,
  /// a presigned URL's signature, added to those that have none).
  std::string href;
  Bounds bounds;        ///< world bounds the survey declares; empty when unknown (read the header)
  uint64_t points = 0;  ///< declared point count; 0 when unknown
};

/// The tiles of `inputs` in order. False with a one-line message for an input that is neither a
/// file, a folder with COPC files, a URL, nor a readable .vpc (malformed JSON, an item without a
/// data asset). A .vpc may be a URL: it is fetched whole (it is small), with `http` (null: the
/// defaults).
bool list_survey(const std::vector<std::string>& inputs, std::vector<SurveyTile>& tiles,
                 std::string* error, const HttpOptions* http = nullptr);

/// Parses a .vpc already in memory; `base` is the directory or URL prefix relative hrefs are
/// resolved against.
bool parse_vpc(const std::string& text, const std::string& base, std::vector<SurveyTile>& tiles,
               std::string* error);

}  // namespace pr
