// A profile's points written out (engine/profile.h): LAS or LAZ through the converter's writer
// (every attribute, the named fields and a float extra-bytes field "distance"), or CSV (one row a
// point: world x, y, z, distance along the line and offset across it at full double precision,
// then the attributes the cloud has).
#pragma once

#include <string>

#include "engine/io/convert.h"
#include "engine/point_cloud.h"
#include "engine/profile.h"

namespace pr {

enum class ProfileFormat { kNone, kLas, kCsv };

/// The format of `path` by its suffix (any case): .las or .laz (not .copc.laz), .csv; kNone for
/// others.
ProfileFormat profile_export_format(const std::string& path);

/// Writes the profile's points of `source` to `path` in the format of its suffix; false with a
/// message naming the file when the suffix is neither or the file cannot be written (nothing is
/// left behind then). `progress` (may be null) counts the points written; its `cancel` set
/// stops the writing the same way.
bool write_profile(const std::string& path, const PointCloud& source, const ProfileCloud& p,
                   std::string* error, ConvertProgress* progress = nullptr);

}  // namespace pr
