// EPT datasets (engine/io/ept.h): ept.json parsed and checked, hierarchy files read into COPC's
// entries, every node read into one cloud. Nodes decode in ept_node.cpp.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unordered_set>

#include <nlohmann/json.hpp>

#include "engine/parallel.h"
#include "ept_internal.h"

namespace pr {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

bool is_http(const std::string& s) {
  auto starts = [&](const char* p) {
    const size_t n = std::strlen(p);
    if (s.size() < n) return false;
    for (size_t i = 0; i < n; ++i)
      if (std::tolower(static_cast<unsigned char>(s[i])) != p[i]) return false;
    return true;
  };
  return starts("http://") || starts("https://");
}

/// A dimension's type and size as the schema gives them; false for a pair no record holds.
bool read_dimension(const json& d, EptDimension& dim, std::string& why) {
  if (!d.is_object() || !d.contains("name") || !d["name"].is_string()) {
    why = "a schema dimension has no name";
    return false;
  }
  dim.name = d["name"].get<std::string>();
  const auto type = d.find("type");
  const auto size = d.find("size");
  if (type == d.end() || !type->is_string() || size == d.end() || !size->is_number_unsigned()) {
    why = "schema dimension " + dim.name + " has no type or size";
    return false;
  }
  const std::string t = type->get<std::string>();
  const uint64_t s = size->get<uint64_t>();
  if (t == "signed" || t == "unsigned") {
    dim.type = t[0];
    if (s != 1 && s != 2 && s != 4 && s != 8) {
      why = "schema dimension " + dim.name + " is " + t + " of size " + std::to_string(s) +
            " (1, 2, 4 or 8)";
      return false;
    }
  } else if (t == "float") {
    dim.type = 'f';
    if (s != 4 && s != 8) {
      why = "schema dimension " + dim.name + " is float of size " + std::to_string(s) + " (4 or 8)";
      return false;
    }
  } else {
    why = "schema dimension " + dim.name + " has the unknown type '" + t + "'";
    return false;
  }
  dim.size = uint32_t(s);
  for (const char* key : {"scale", "offset"}) {
    const auto it = d.find(key);
    if (it == d.end()) continue;
    if (!it->is_number() || !std::isfinite(it->get<double>()) ||
        (key[0] == 's' && it->get<double>() == 0.0)) {
      why = "schema dimension " + dim.name + " has a " + key + " that does not hold";
      return false;
    }
    (key[0] == 's' ? dim.scale : dim.offset) = it->get<double>();
  }
  return true;
}

/// Six finite numbers, min < max (a point's box may be flat: min <= max), into `b`.
bool read_box(const json& doc, const char* key, Bounds& b, bool flat_ok) {
  const auto it = doc.find(key);
  if (it == doc.end() || !it->is_array() || it->size() != 6) return false;
  double v[6];
  for (size_t i = 0; i < 6; ++i) {
    if (!(*it)[i].is_number()) return false;
    v[i] = (*it)[i].get<double>();
    if (!std::isfinite(v[i])) return false;
  }
  for (int i = 0; i < 3; ++i)
    if (flat_ok ? v[i] > v[i + 3] : v[i] >= v[i + 3]) return false;
  b = Bounds();
  b.extend(glm::dvec3(v[0], v[1], v[2]));
  b.extend(glm::dvec3(v[3], v[4], v[5]));
  return true;
}

/// "EPSG:3857" from srs.authority and srs.horizontal, or empty.
std::string srs_text(const json& doc) {
  const auto srs = doc.find("srs");
  if (srs == doc.end() || !srs->is_object()) return {};
  const auto a = srs->find("authority");
  const auto h = srs->find("horizontal");
  if (a != srs->end() && a->is_string() && h != srs->end() && h->is_string())
    return a->get<std::string>() + ":" + h->get<std::string>();
  const auto w = srs->find("wkt");
  return w != srs->end() && w->is_string() && !w->get<std::string>().empty() ? "WKT" : "";
}

bool fail(std::string* error, const std::string& message) {
  if (error) *error = io::one_line(io::redact_url_queries(message));
  return false;
}

}  // namespace

bool read_local_file(const std::string& path, std::vector<uint8_t>& bytes, std::string* error,
                     const std::atomic<bool>*) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return fail(error, path + ": no such file");
  const std::streamoff n = f.tellg();
  if (n < 0) return fail(error, path + ": cannot read the file");
  bytes.resize(size_t(n));
  f.seekg(0);
  if (n > 0 && !f.read(reinterpret_cast<char*>(bytes.data()), n))
    return fail(error, path + ": cannot read the file");
  return true;
}

std::string ept_json_of(const std::string& input) {
  if (is_http(input)) {
    // The query (a presigned URL's signature, a token) stays with the URL; a fragment is the
    // client's own and goes.
    const size_t q = input.find_first_of("?#");
    const std::string path = input.substr(0, q);
    const std::string query = q != std::string::npos && input[q] == '?'
                                  ? input.substr(q, input.find('#', q) - q)
                                  : std::string();
    if (!path.empty() && path.back() == '/' && path.find('/', path.find("://") + 3) != path.npos)
      return path + "ept.json" + query;
    return path.size() >= 8 && path.compare(path.size() - 8, 8, "ept.json") == 0 &&
                   (path.size() == 8 || path[path.size() - 9] == '/')
               ? input
               : std::string();
  }
  std::error_code ec;
  const fs::path p(input);
  if (p.filename() == "ept.json") return input;
  if (fs::is_directory(p, ec) && fs::is_regular_file(p / "ept.json", ec))
    return (p / "ept.json").string();
  return {};
}

uint64_t ept_key_serial(const CopcKey& key) {
  // Levels 0 .. L-1 hold (8^L - 1) / 7 keys; within level L the Morton index interleaves the
  // bits of x, y, z.
  const uint64_t before = ((uint64_t(1) << (3 * key.level)) - 1) / 7;
  uint64_t morton = 0;
  for (int b = 0; b < key.level; ++b) {
    morton |= uint64_t((key.x >> b) & 1) << (3 * b);
    morton |= uint64_t((key.y >> b) & 1) << (3 * b + 1);
    morton |= uint64_t((key.z >> b) & 1) << (3 * b + 2);
  }
  return before + morton;
}

std::string ept_key_text(const CopcKey& k) {
  return std::to_string(k.level) + "-" + std::to_string(k.x) + "-" + std::to_string(k.y) + "-" +
         std::to_string(k.z);
}

bool parse_ept_key(const std::string& text, CopcKey& key) {
  int64_t v[4] = {0, 0, 0, 0};
  size_t part = 0, digits = 0;
  for (const char c : text) {
    if (c == '-') {
      if (digits == 0 || ++part == 4) return false;
      digits = 0;
    } else if (c >= '0' && c <= '9') {
      if (++digits > 10) return false;
      v[part] = v[part] * 10 + (c - '0');
    } else {
      return false;
    }
  }
  if (part != 3 || digits == 0 || v[0] > kEptMaxLevel) return false;
  const int64_t cells = int64_t(1) << v[0];
  if (v[1] >= cells || v[2] >= cells || v[3] >= cells) return false;
  key = CopcKey{int32_t(v[0]), int32_t(v[1]), int32_t(v[2]), int32_t(v[3])};
  return true;
}

bool EptDataset::Impl::fetch_file(const std::string& rel, std::vector<uint8_t>& out,
                                  std::string* error, const std::atomic<bool>* cancel) const {
  if (!fetch(base + rel + query, out, error, cancel)) return false;
  bytes += out.size();
  return true;
}

EptDataset::EptDataset() : impl_(std::make_unique<Impl>()) {}
EptDataset::~EptDataset() = default;

std::unique_ptr<EptDataset> EptDataset::open(const std::string& ept_json, EptFetch fetch,
                                             std::string* error) {
  std::vector<uint8_t> bytes;
  std::string err;
  if (!fetch(ept_json, bytes, &err, nullptr)) {
    fail(error, err.rfind(ept_json, 0) == 0 ? err : ept_json + ": " + err);
    return nullptr;
  }
  auto d = parse(ept_json, std::string(bytes.begin(), bytes.end()), std::move(fetch), error);
  if (d) d->impl_->bytes += bytes.size();
  return d;
}

namespace {

/// What read_schema() gives: the dimensions, a record's bytes, X, Y, Z, the attributes.
struct Schema {
  std::vector<EptDimension> schema;
  uint32_t record_bytes = 0;
  int dim_x = -1, dim_y = -1, dim_z = -1;
  io::Attributes attrs;
};

bool read_schema(const json& doc, Schema& m, std::string& why) {
  const auto schema = doc.find("schema");
  if (schema == doc.end() || !schema->is_array() || schema->empty()) {
    why = "no schema";
    return false;
  }
  for (const json& d : *schema) {
    EptDimension dim;
    if (!read_dimension(d, dim, why)) return false;
    dim.byte_offset = m.record_bytes;
    m.record_bytes += dim.size;
    const int index = int(m.schema.size());
    if (dim.name == "X") m.dim_x = index;
    if (dim.name == "Y") m.dim_y = index;
    if (dim.name == "Z") m.dim_z = index;
    m.attrs.intensity |= dim.name == "Intensity";
    m.attrs.classification |= dim.name == "Classification";
    m.attrs.returns |= dim.name == "ReturnNumber" || dim.name == "NumberOfReturns";
    m.attrs.point_source |= dim.name == "PointSourceId";
    m.attrs.gps_time |= dim.name == "GpsTime";
    m.attrs.color |= dim.name == "Red" || dim.name == "Green" || dim.name == "Blue";
    m.schema.push_back(dim);
  }
  if (m.dim_x < 0 || m.dim_y < 0 || m.dim_z < 0) {
    why = "the schema has no X, Y and Z";
    return false;
  }
  return true;
}

}  // namespace

std::unique_ptr<EptDataset> EptDataset::parse(const std::string& ept_json, const std::string& text,
                                              EptFetch fetch, std::string* error) {
  std::unique_ptr<EptDataset> d(new EptDataset());
  Impl& m = *d->impl_;
  m.json_href = m.name = ept_json;
  if (is_http(ept_json)) {
    const size_t q = ept_json.find_first_of("?#");
    const std::string path = ept_json.substr(0, q);
    m.base = path.substr(0, path.rfind('/') + 1);
    // A presigned URL signs each file alike: its query goes with every file of the dataset.
    if (q != std::string::npos && ept_json[q] == '?')
      m.query = ept_json.substr(q, ept_json.find('#', q) - q);
  } else {
    const std::string dir = fs::path(ept_json).parent_path().string();
    m.base = dir.empty() ? std::string() : dir + "/";
  }
  m.fetch = std::move(fetch);
  auto bad = [&](const std::string& why) {
    fail(error, ept_json + ": " + why);
    return nullptr;
  };
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::exception& e) {
    return bad(std::string("not valid JSON: ") + e.what());
  }
  if (!doc.is_object()) return bad("not an EPT description (no JSON object)");
  std::string why;
  Schema sc;
  if (!read_schema(doc, sc, why)) return bad(why);
  m.schema = std::move(sc.schema);
  m.record_bytes = sc.record_bytes;
  m.dim_x = sc.dim_x, m.dim_y = sc.dim_y, m.dim_z = sc.dim_z;
  m.attrs = sc.attrs;
  Bounds cube, conforming;
  if (!read_box(doc, "bounds", cube, false))
    return bad("bounds is not 6 finite numbers, min < max");
  const bool has_conforming = read_box(doc, "boundsConforming", conforming, true);
  const auto type = doc.find("dataType");
  m.data_type = type != doc.end() && type->is_string() ? type->get<std::string>() : "";
  if (m.data_type != "laszip" && m.data_type != "binary" && m.data_type != "zstandard")
    return bad("dataType '" + m.data_type + "' is none of laszip, binary, zstandard");
  const auto htype = doc.find("hierarchyType");
  if (htype != doc.end() && !(htype->is_string() && htype->get<std::string>() == "json"))
    return bad("hierarchyType is not json");
  uint64_t span = 128;
  if (const auto s = doc.find("span"); s != doc.end()) {
    if (!s->is_number_unsigned() || s->get<uint64_t>() == 0) return bad("span is no count > 0");
    span = s->get<uint64_t>();
  }
  FileInfo& fi = m.info;
  fi.file = ept_json;
  fi.format = "EPT";
  const auto version = doc.find("version");
  fi.version = (version != doc.end() && version->is_string() ? version->get<std::string>() + ", "
                                                             : std::string()) +
               m.data_type + ", span " + std::to_string(span);
  if (const std::string srs = srs_text(doc); !srs.empty()) fi.version += ", " + srs;
  if (const auto p = doc.find("points"); p != doc.end() && p->is_number_unsigned())
    fi.points = p->get<uint64_t>();
  // The root cube: EPT's bounds is a cube; a box that is not is taken by its largest side.
  const glm::dvec3 extent = cube.max - cube.min;
  fi.copc.center = (cube.min + cube.max) * 0.5;
  fi.copc.halfsize = std::max(extent.x, std::max(extent.y, extent.z)) * 0.5;
  fi.copc.spacing = 2.0 * fi.copc.halfsize / double(span);
  fi.bounds = has_conforming ? conforming : cube;
  fi.origin = io::choose_origin(fi.bounds);
  fi.has_color = m.attrs.color;
  fi.has_intensity = m.attrs.intensity;
  fi.has_classification = m.attrs.classification;
  return d;
}

const FileInfo& EptDataset::info() const {
  return impl_->info;
}
glm::dvec3 EptDataset::origin() const {
  return impl_->info.origin;
}
const std::string& EptDataset::data_type() const {
  return impl_->data_type;
}
const std::vector<EptDimension>& EptDataset::schema() const {
  return impl_->schema;
}
uint32_t EptDataset::record_bytes() const {
  return impl_->record_bytes;
}
uint64_t EptDataset::bytes_read() const {
  return impl_->bytes.load();
}

bool EptDataset::read_hierarchy(const CopcKey& key, std::vector<CopcEntry>& entries,
                                std::vector<std::string>* warnings, std::string* error,
                                const std::atomic<bool>* cancel) const {
  const Impl& m = *impl_;
  entries.clear();
  const std::string file = "ept-hierarchy/" + ept_key_text(key) + ".json";
  std::vector<uint8_t> bytes;
  std::string err;
  if (!m.fetch_file(file, bytes, &err, cancel))
    return fail(error, m.name + ": hierarchy " + file + ": " + err);
  json doc;
  try {
    doc = json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    return fail(error, m.name + ": hierarchy " + file + ": not valid JSON: " + e.what());
  }
  if (!doc.is_object())
    return fail(error, m.name + ": hierarchy " + file + ": not a JSON object of key: count");
  auto warn = [&](const std::string& w) {
    if (warnings)
      warnings->push_back(io::one_line(
          io::redact_url_queries(m.name + ": hierarchy " + file + ": " + w + "; ignored")));
  };
  for (auto it = doc.begin(); it != doc.end(); ++it) {
    CopcKey k;
    if (!parse_ept_key(it.key(), k)) {
      warn("entry '" + it.key() + "' is no key D-X-Y-Z inside the cube (depth at most " +
           std::to_string(kEptMaxLevel) + ")");
      continue;
    }
    const int s = k.level - key.level;
    if (s < 0 || (k.x >> s) != key.x || (k.y >> s) != key.y || (k.z >> s) != key.z) {
      warn("entry " + it.key() + " lies outside the subtree of " + ept_key_text(key));
      continue;
    }
    const json& v = it.value();
    // An unsigned value is read as such (one above 2^63 would wrap to a negative int64).
    const bool whole = v.is_number_unsigned() ? v.get<uint64_t>() <= uint64_t(INT32_MAX)
                                              : v.is_number_integer() && v.get<int64_t>() == -1;
    if (!whole) {
      warn("entry " + it.key() + " has the count " + v.dump() + " (a whole number from -1)");
      continue;
    }
    entries.push_back(CopcEntry{k, ept_key_serial(k), 0, int32_t(v.get<int64_t>())});
  }
  return true;
}

namespace {

/// Appends `node` to `all` (both with the same attributes).
void add_node_points(PointCloud& all, const PointCloud& node) {
  auto add = [](auto& to, const auto& from) {
    if (from.empty()) return;
    const size_t n = to.size();
    to.resize(n + from.size());
    std::copy(from.begin(), from.end(), to.begin() + ptrdiff_t(n));
  };
  add(all.positions, node.positions);
  add(all.colors, node.colors);
  add(all.intensity, node.intensity);
  add(all.classification, node.classification);
  add(all.returns, node.returns);
  add(all.point_source, node.point_source);
  add(all.gps_time, node.gps_time);
}

}  // namespace

bool EptDataset::read_all(PointCloud& out, std::vector<std::string>* warnings,
                          std::string* error) const {
  const Impl& m = *impl_;
  out = PointCloud{};
  out.origin = origin();
  std::vector<CopcKey> files{CopcKey{}};
  std::vector<CopcEntry> nodes, entries;
  std::unordered_set<uint64_t> seen;  // hierarchy files read (one listed twice is read once)
  bool root = true;
  while (!files.empty()) {
    const CopcKey key = files.back();
    files.pop_back();
    if (!seen.insert(ept_key_serial(key)).second) continue;
    std::string err;
    if (!read_hierarchy(key, entries, warnings, &err)) {
      if (root) return fail(error, err);
      if (warnings) warnings->push_back(io::one_line(io::redact_url_queries(err)));
      continue;
    }
    root = false;
    for (const CopcEntry& e : entries) {
      // A file's own key as -1 would read it again: only keys below it lead to other files.
      if (e.point_count == -1 && !(e.key == key)) files.push_back(e.key);
      if (e.point_count > 0) nodes.push_back(e);
    }
  }
  // Nodes decode in parallel, a few per thread at a time (bounded memory), and join the cloud in
  // the hierarchy's order, so that every read gives the same cloud.
  const size_t batch = 2 * size_t(default_threads());
  for (size_t b = 0; b < nodes.size(); b += batch) {
    const size_t n = std::min(batch, nodes.size() - b);
    std::vector<PointCloud> clouds(n);
    std::vector<std::string> errors(n);
    std::vector<uint8_t> ok(n, 0);
    parallel_for(
        n,
        [&](size_t lo, size_t hi) {
          for (size_t i = lo; i < hi; ++i) {
            const CopcEntry& e = nodes[b + i];
            ok[i] = read_node(e.key, e.point_count, out.origin, clouds[i], &errors[i]);
          }
        },
        0, 1);
    for (size_t i = 0; i < n; ++i) {
      if (ok[i])
        add_node_points(out, clouds[i]);
      else if (warnings)
        warnings->push_back(io::one_line(io::redact_url_queries(errors[i] + " (node skipped)")));
    }
  }
  const size_t slash = m.base.find_last_of('/', m.base.size() >= 2 ? m.base.size() - 2 : 0);
  out.name =
      m.base.empty() ? "ept.json" : m.base.substr(slash == std::string::npos ? 0 : slash + 1);
  if (!out.name.empty() && out.name.back() == '/') out.name.pop_back();
  return true;
}

}  // namespace pr
