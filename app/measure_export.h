// Measurements written out (engine/measure.h): GeoJSON (a FeatureCollection, one Feature a
// measurement with its 3D geometry in world coordinates and its values as properties) or CSV
// (one row a value, a vertex or an attribute), and the lines `--measure` prints.
#pragma once

#include <string>
#include <vector>

#include "engine/measure.h"

namespace pr {

enum class MeasureFormat { kNone, kGeoJson, kCsv };

/// The format of `path` by its suffix (any case): .geojson or .json, .csv; kNone for others.
MeasureFormat measure_export_format(const std::string& path);

/// The GeoJSON document of `measurements` (ids from 1, in order).
std::string measurements_geojson(const std::vector<Measurement>& measurements);
/// The CSV document: header `id,kind,quantity,value,x,y,z`, then per measurement its values
/// (a list's entries as `name[k]`, a position or direction in x, y, z), its vertices
/// (`vertex[k]` with x, y, z) and its attributes (text in `value`).
std::string measurements_csv(const std::vector<Measurement>& measurements);

/// Writes `measurements` to `path` in the format of its suffix; false with a message naming the
/// file when the suffix is neither or the file cannot be written.
bool write_measurements(const std::string& path, const std::vector<Measurement>& measurements,
                        std::string* error);

/// The line --measure prints: "measure KIND name=value ..." (numbers as the shortest decimal
/// that reads back as the same double; a list or a position comma-separated; attributes as
/// name="text" where the text has spaces).
std::string measurement_line(const Measurement& m);

/// The shortest decimal that reads back as `v` (nan and inf as such).
std::string format_number(double v);

}  // namespace pr
