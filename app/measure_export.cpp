// Measurements written out: GeoJSON through nlohmann-json, CSV and the --measure lines by hand.
#include "measure_export.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>

namespace pr {

namespace {

using Json = nlohmann::ordered_json;

bool ends_with(const std::string& s, const std::string& suffix) {
  if (s.size() < suffix.size()) return false;
  std::string tail = s.substr(s.size() - suffix.size());
  std::transform(tail.begin(), tail.end(), tail.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  return tail == suffix;
}

Json position(const glm::dvec3& p) {
  return Json::array({p.x, p.y, p.z});
}

/// The Feature's geometry: a point as a Point, a circle and a box at their centres, a polygon
/// (area, volume) as a Polygon with its ring closed, the others as a LineString.
Json geometry(const Measurement& m) {
  Json coords = Json::array();
  for (const glm::dvec3& p : m.points) coords.push_back(position(p));
  switch (m.kind) {
    case MeasureKind::kPoint:
      return {{"type", "Point"}, {"coordinates", position(m.points[0])}};
    case MeasureKind::kBox:
      return {{"type", "Point"}, {"coordinates", position(m.points[0])}};
    case MeasureKind::kCircle: {
      const MeasureValue* c = nullptr;
      for (const MeasureValue& v : m.values)
        if (v.name == "center") c = &v;
      return {{"type", "Point"},
              {"coordinates", c ? Json::array({c->v[0], c->v[1], c->v[2]}) : coords[0]}};
    }
    case MeasureKind::kArea:
    case MeasureKind::kVolume:
      coords.push_back(coords[0]);
      return {{"type", "Polygon"}, {"coordinates", Json::array({coords})}};
    default:
      return {{"type", "LineString"}, {"coordinates", coords}};
  }
}

Json properties(const Measurement& m, size_t id) {
  Json p = {{"id", id}, {"kind", measure_kind_name(m.kind)}};
  for (const MeasureValue& v : m.values) {
    if (v.v.size() == 1 && !v.xyz)
      p[v.name] = v.v[0];
    else
      p[v.name] = v.v;
  }
  for (const auto& [name, text] : m.attributes) p[name] = text;
  // The points measured (a circle's and a box's geometry is only their centre).
  if (m.kind == MeasureKind::kCircle || m.kind == MeasureKind::kBox) {
    Json pts = Json::array();
    for (const glm::dvec3& q : m.points) pts.push_back(position(q));
    p["points"] = pts;
  }
  return p;
}

/// A CSV field: quoted when it holds a comma, a quote or a line break.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_row(size_t id, const Measurement& m, const std::string& quantity,
                    const std::string& value, const glm::dvec3* xyz) {
  std::string r = std::to_string(id) + "," + measure_kind_name(m.kind) + "," + csv_field(quantity) +
                  "," + csv_field(value) + ",";
  if (xyz)
    r += format_number(xyz->x) + "," + format_number(xyz->y) + "," + format_number(xyz->z);
  else
    r += ",,";  // x, y and z empty
  return r + "\n";
}

}  // namespace

std::string format_number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char b[64];
  const auto r = std::to_chars(b, b + sizeof b, v);
  return std::string(b, r.ptr);
}

MeasureFormat measure_export_format(const std::string& path) {
  if (ends_with(path, ".geojson") || ends_with(path, ".json")) return MeasureFormat::kGeoJson;
  if (ends_with(path, ".csv")) return MeasureFormat::kCsv;
  return MeasureFormat::kNone;
}

std::string measurements_geojson(const std::vector<Measurement>& measurements) {
  Json features = Json::array();
  for (size_t i = 0; i < measurements.size(); ++i) {
    const Measurement& m = measurements[i];
    if (m.points.empty()) continue;
    features.push_back(
        {{"type", "Feature"}, {"geometry", geometry(m)}, {"properties", properties(m, i + 1)}});
  }
  const Json doc = {{"type", "FeatureCollection"}, {"features", features}};
  return doc.dump(1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string measurements_csv(const std::vector<Measurement>& measurements) {
  std::string s = "id,kind,quantity,value,x,y,z\n";
  for (size_t i = 0; i < measurements.size(); ++i) {
    const Measurement& m = measurements[i];
    const size_t id = i + 1;
    for (const MeasureValue& v : m.values) {
      if (v.xyz) {
        const glm::dvec3 p(v.v[0], v.v[1], v.v[2]);
        s += csv_row(id, m, v.name, "", &p);
      } else if (v.v.size() == 1) {
        s += csv_row(id, m, v.name, format_number(v.v[0]), nullptr);
      } else {
        for (size_t k = 0; k < v.v.size(); ++k)
          s += csv_row(id, m, v.name + "[" + std::to_string(k + 1) + "]", format_number(v.v[k]),
                       nullptr);
      }
    }
    for (size_t k = 0; k < m.points.size(); ++k)
      s += csv_row(id, m, "vertex[" + std::to_string(k + 1) + "]", "", &m.points[k]);
    for (const auto& [name, text] : m.attributes) s += csv_row(id, m, name, text, nullptr);
  }
  return s;
}

bool write_measurements(const std::string& path, const std::vector<Measurement>& measurements,
                        std::string* error) {
  const MeasureFormat f = measure_export_format(path);
  if (f == MeasureFormat::kNone) {
    if (error) *error = path + ": ends in neither .geojson nor .csv";
    return false;
  }
  const std::string text = f == MeasureFormat::kGeoJson ? measurements_geojson(measurements)
                                                        : measurements_csv(measurements);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(text.data(), std::streamsize(text.size()));
  out.close();
  if (!out) {
    if (error) *error = path + ": cannot be written";
    return false;
  }
  return true;
}

std::string measurement_line(const Measurement& m) {
  std::string s = std::string("measure ") + measure_kind_name(m.kind);
  for (const MeasureValue& v : m.values) {
    s += " " + v.name + "=";
    for (size_t k = 0; k < v.v.size(); ++k) {
      if (k) s += ',';
      s += format_number(v.v[k]);
    }
  }
  for (const auto& [name, text] : m.attributes) {
    std::string key = name;  // "point source" as point_source: one word a key
    std::replace(key.begin(), key.end(), ' ', '_');
    const bool quote = text.find(' ') != std::string::npos;
    s += " " + key + "=" + (quote ? "\"" + text + "\"" : text);
  }
  return s;
}

}  // namespace pr
