// The tiles of a survey: COPC files, EPT datasets and URLs as given (a folder holding ept.json is
// one EPT dataset), other folders by their *.copc.laz files, and
// virtual point clouds (.vpc, PDAL wrench's vpc-spec.md) by their STAC Items.
//
// A .vpc is a GeoJSON FeatureCollection; each Feature is a STAC Item for one file:
//   assets.data.href          the file (relative to the .vpc, absolute, or a URL)
//   properties.pc:count       its point count
//   properties.proj:bbox      its box in the native CRS: [minx, miny, minz, maxx, maxy, maxz], or
//                             [minx, miny, maxx, maxy] without heights
// The WGS 84 `bbox`/`geometry` are not used: the tiles are drawn in their native coordinates.
// A 2D proj:bbox leaves the tile's bounds unknown (empty): a guessed height range would cull a
// tile that is in view, so the streamer reads that tile's header for its true 3D box instead.
#include "engine/io/survey.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/io/base/io_common.h"
#include "engine/io/ept.h"
#include "engine/io/formats.h"
#include "engine/io/open_byte_source.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// A URL without its query and fragment (a presigned URL's signature is no part of its path).
std::string url_path(const std::string& url) {
  return url.substr(0, url.find_first_of("?#"));
}

/// A survey by the table of formats (.vpc), a URL's by its path.
bool is_vpc_name(const std::string& input) {
  const FormatEntry* f = find_format_by_path(is_url(input) ? url_path(input) : input);
  return f && f->survey();
}

/// Resolves `href` against a URL prefix `base` ("http://host/dir" or ".../dir/"): "./" and "../"
/// segments as RFC 3986 merges them, "/path" against the host.
std::string resolve_url(const std::string& base, std::string href) {
  const size_t scheme_end = base.find("://");
  const size_t host_end = base.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  const std::string origin = host_end == std::string::npos ? base : base.substr(0, host_end);
  if (!href.empty() && href[0] == '/') return origin + href;
  std::string dir = host_end == std::string::npos ? "/" : base.substr(host_end);
  if (dir.back() != '/') dir += '/';
  while (true) {
    if (href.rfind("./", 0) == 0) {
      href.erase(0, 2);
    } else if (href.rfind("../", 0) == 0) {
      href.erase(0, 3);
      if (dir.size() > 1) dir.erase(dir.rfind('/', dir.size() - 2) + 1);
    } else {
      break;
    }
  }
  return origin + dir + href;
}

/// A URL's query with its '?' ("?X-Amz-Signature=..."; no fragment), or "".
std::string url_query(const std::string& url) {
  const size_t q = url.find_first_of("?#");
  if (q == std::string::npos || url[q] != '?') return {};
  return url.substr(q, url.find('#', q) - q);
}

/// A .vpc's href made usable: URLs and absolute paths as they are ("file://" URLs as paths),
/// relative ones against `base`. A relative href of a .vpc that is a URL gets the .vpc's `query`
/// when it has none of its own: a presigned survey signs its tiles alike.
std::string resolve_href(const std::string& base, const std::string& href,
                         const std::string& query) {
  if (is_url(href)) return href;
  if (io::lower(href.substr(0, 7)) == "file://") return href.substr(7);
  if (is_url(base))
    return resolve_url(base, href) + (href.find('?') == std::string::npos ? query : "");
  const fs::path path(href);
  if (path.is_absolute()) return href;
  return (fs::path(base) / path).lexically_normal().string();
}

/// obj[key] when it is a string, else "" (json::value() would throw for another type).
std::string string_field(const json& obj, const char* key) {
  const auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// "id 'name'" or "item N" (counting from 1) for messages.
std::string item_name(const json& item, size_t index) {
  const std::string id = string_field(item, "id");
  if (!id.empty()) return "item '" + id + "'";
  return "item " + std::to_string(index + 1);
}

bool says_point_cloud(const json& asset) {
  const auto roles = asset.find("roles");
  if (roles != asset.end() && roles->is_array()) {
    for (const json& role : *roles) {
      if (role == "overview") return false;
      if (role == "data") return true;
    }
  }
  const auto type = asset.find("type");
  if (type != asset.end() && type->is_string()) {
    const std::string t = io::lower(type->get<std::string>());
    // application/vnd.laszip, application/vnd.laszip+copc, application/vnd.las
    return t.rfind("application/vnd.las", 0) == 0 || t.find("copc") != std::string::npos;
  }
  return false;
}

/// The item's data asset's href: `assets.data`, else the first asset whose roles or media type
/// say it is the point cloud itself (overviews are previews of several tiles, not the tile).
const json* data_href(const json& item) {
  const auto assets = item.find("assets");
  if (assets == item.end() || !assets->is_object()) return nullptr;
  const json* chosen = nullptr;
  const auto data = assets->find("data");
  if (data != assets->end() && data->is_object()) chosen = &*data;
  for (auto it = assets->begin(); !chosen && it != assets->end(); ++it) {
    if (it->is_object() && says_point_cloud(*it)) chosen = &*it;
  }
  if (!chosen) return nullptr;
  const auto href = chosen->find("href");
  return href != chosen->end() && href->is_string() && !href->get<std::string>().empty() ? &*href
                                                                                         : nullptr;
}

/// `pc:count` (absent: 0, unknown). False for a value that is no count.
bool read_count(const json& properties, uint64_t& points) {
  const auto count = properties.find("pc:count");
  if (count == properties.end() || count->is_null()) return true;
  if (count->is_number_unsigned()) {
    points = count->get<uint64_t>();
    return true;
  }
  if (count->is_number_float()) {
    const double v = count->get<double>();
    if (v >= 0.0 && v < 1.8e19 && std::floor(v) == v) {
      points = uint64_t(v);
      return true;
    }
  }
  return false;
}

/// `proj:bbox` (absent or 2D: bounds unknown). False for a value that is no box.
bool read_bbox(const json& properties, Bounds& bounds) {
  const auto bbox = properties.find("proj:bbox");
  if (bbox == properties.end() || bbox->is_null()) return true;
  if (!bbox->is_array() || (bbox->size() != 4 && bbox->size() != 6)) return false;
  double v[6];
  for (size_t i = 0; i < bbox->size(); ++i) {
    if (!(*bbox)[i].is_number()) return false;
    v[i] = (*bbox)[i].get<double>();
    if (!std::isfinite(v[i])) return false;
  }
  const size_t half = bbox->size() / 2;
  for (size_t i = 0; i < half; ++i) {
    if (v[i] > v[half + i]) return false;
  }
  if (half == 3) {
    bounds.extend(glm::dvec3(v[0], v[1], v[2]));
    bounds.extend(glm::dvec3(v[3], v[4], v[5]));
  }
  return true;
}

bool item_tile(const json& item, size_t index, const std::string& base, const std::string& query,
               SurveyTile& tile, std::string& problem) {
  if (!item.is_object() || string_field(item, "type") != "Feature") {
    problem = item_name(item.is_object() ? item : json::object(), index) + " is not a Feature";
    return false;
  }
  const json* href = data_href(item);
  if (!href) {
    problem = item_name(item, index) + " has no data asset (assets.data.href)";
    return false;
  }
  tile.href = resolve_href(base, href->get<std::string>(), query);
  const auto properties = item.find("properties");
  if (properties == item.end() || !properties->is_object()) return true;
  if (!read_count(*properties, tile.points)) {
    problem = item_name(item, index) + ": pc:count is not a whole number >= 0";
    return false;
  }
  if (!read_bbox(*properties, tile.bounds)) {
    problem = item_name(item, index) + ": proj:bbox is not 4 or 6 finite numbers, min <= max";
    return false;
  }
  return true;
}

/// parse_vpc with `name` (the file or URL) leading every message; `query` goes with relative
/// hrefs against a URL `base`.
bool parse_named(const std::string& text, const std::string& base, const std::string& query,
                 const std::string& name, std::vector<SurveyTile>& tiles, std::string* error) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {  // parse_error, or out_of_range for 1e999
    // The parser's own words: where (byte, line, column) and what it expected.
    if (error) *error = name + ": not valid JSON: " + e.what();
    return false;
  }
  if (!doc.is_object() || string_field(doc, "type") != "FeatureCollection") {
    if (error) *error = name + ": not a virtual point cloud (no GeoJSON FeatureCollection)";
    return false;
  }
  const auto features = doc.find("features");
  if (features == doc.end() || !features->is_array() || features->empty()) {
    if (error) *error = name + ": the FeatureCollection lists no items (features)";
    return false;
  }
  std::vector<SurveyTile> found;
  found.reserve(features->size());
  for (size_t i = 0; i < features->size(); ++i) {
    SurveyTile tile;
    std::string problem;
    if (!item_tile((*features)[i], i, base, query, tile, problem)) {
      if (error) *error = name + ": " + problem;
      return false;
    }
    found.push_back(std::move(tile));
  }
  tiles.insert(tiles.end(), found.begin(), found.end());
  return true;
}

bool read_text(const std::string& input, std::string& text, std::string* error,
               const HttpOptions* http) {
  if (!is_url(input)) {
    std::error_code ec;
    if (!fs::is_regular_file(input, ec)) {
      if (error) *error = input + ": no such file";
      return false;
    }
    std::ifstream file(input, std::ios::binary);
    std::ostringstream bytes;
    if (!file || !(bytes << file.rdbuf())) {
      if (error) *error = input + ": cannot read the file";
      return false;
    }
    text = bytes.str();
    return true;
  }
  std::unique_ptr<ByteSource> source = open_byte_source(input, error, http);
  if (!source) return false;
  std::vector<uint8_t> bytes;
  if (!source->read(0, source->size(), bytes, error)) return false;
  text.assign(bytes.begin(), bytes.end());
  return true;
}

bool list_vpc(const std::string& input, std::vector<SurveyTile>& tiles, std::string* error,
              const HttpOptions* http) {
  std::string text;
  if (!read_text(input, text, error, http)) return false;
  std::string base;
  if (is_url(input)) {
    const std::string path = url_path(input);
    base = path.substr(0, path.rfind('/') + 1);
  } else {
    base = fs::path(input).parent_path().string();
    if (base.empty()) base = ".";
  }
  return parse_named(text, base, is_url(input) ? url_query(input) : std::string(), input, tiles,
                     error);
}

bool list_folder(const std::string& input, std::vector<SurveyTile>& tiles, std::string* error) {
  std::vector<std::string> files;
  std::error_code ec;
  for (fs::directory_iterator it(input, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (is_tile_file(name) && it->is_regular_file(ec)) {
      files.push_back(it->path().string());
    }
  }
  if (ec) {
    if (error) *error = input + ": cannot list the folder: " + ec.message();
    return false;
  }
  if (files.empty()) {
    if (error)
      *error =
          input + ": the folder holds no ept.json (an EPT dataset) and no COPC files (*.copc.laz)";
    return false;
  }
  std::sort(files.begin(), files.end());
  for (std::string& file : files) tiles.push_back(SurveyTile{std::move(file), Bounds{}, 0});
  return true;
}

}  // namespace

bool parse_vpc(const std::string& text, const std::string& base, std::vector<SurveyTile>& tiles,
               std::string* error) {
  std::vector<SurveyTile> found;
  if (!parse_named(text, base, "", "virtual point cloud at " + base, found, error)) return false;
  tiles = std::move(found);
  return true;
}

bool list_survey(const std::vector<std::string>& inputs, std::vector<SurveyTile>& tiles,
                 std::string* error, const HttpOptions* http) {
  std::vector<SurveyTile> found;
  for (const std::string& input : inputs) {
    if (is_vpc_name(input)) {
      if (!list_vpc(input, found, error, http)) return false;
      continue;
    }
    if (is_url(input)) {
      found.push_back(SurveyTile{input, Bounds{}, 0});
      continue;
    }
    std::error_code ec;
    const fs::file_status status = fs::status(input, ec);
    if (fs::is_directory(status)) {
      // A folder holding ept.json is one EPT dataset, not a folder of tiles.
      if (const std::string ept = ept_json_of(input); !ept.empty()) {
        found.push_back(SurveyTile{ept, Bounds{}, 0});
        continue;
      }
      if (!list_folder(input, found, error)) return false;
    } else if (fs::exists(status)) {
      found.push_back(SurveyTile{input, Bounds{}, 0});
    } else {
      if (error) *error = input + ": no such file or folder";
      return false;
    }
  }
  tiles = std::move(found);
  return true;
}

}  // namespace pr
