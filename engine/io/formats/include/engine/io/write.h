// Writers for PLY, LAS, PCD and XYZ text: a cloud in world coordinates (origin added). The tests
// write files in every variant the readers accept with them, the benchmarks large generated files.
// Conversion to COPC, LAZ and LAS is engine/io/convert.h.
#pragma once

#include <string>

#include "engine/point_cloud.h"

namespace pr {

enum class PlyEncoding { kAscii, kBinaryLittleEndian, kBinaryBigEndian };

/// PLY with x y z (float when the origin is 0, else double), red green blue (uchar) and, when the
/// cloud has it, intensity (float).
bool save_ply(const std::string& path, const PointCloud& cloud, PlyEncoding encoding,
              std::string* error);

/// LAS with point format 0..10 (version 1.2 for formats 0-5, 1.4 for 6-10), scale 0.001,
/// colors as 16-bit (c * 257) for formats with RGB, intensity and classification when present.
/// `extra_bytes` are appended to every record (zeros).
bool save_las(const std::string& path, const PointCloud& cloud, int point_format,
              std::string* error, int extra_bytes = 0);

/// PCD 0.7 with x y z (float when the origin is 0, else double) and packed rgb, ascii or binary.
bool save_pcd(const std::string& path, const PointCloud& cloud, bool binary, std::string* error);

/// Text "x y z r g b" per line (three decimals), columns separated by `sep`.
bool save_xyz(const std::string& path, const PointCloud& cloud, char sep, std::string* error);

}  // namespace pr
