// A point cloud as the renderers consume it: float positions relative to a double-precision origin
// (so UTM-size coordinates keep millimetres), RGBA8 colors and the optional attributes the files
// hold (intensity, classification, returns, point source, GPS time, named scalar fields), as
// separate arrays (structure of arrays: the hot rasterization loop reads positions only; colors
// are fetched for visible pixels in the resolve pass). An attribute the file lacks is an empty
// array and costs nothing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <glm/glm.hpp>

namespace pr {

/// An allocator that leaves trivially constructible elements uninitialized on resize, so a
/// billion-point cloud is not written twice (once with zeros, once with data).
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  using std::allocator<T>::allocator;
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

template <class T>
using PodVector = std::vector<T, DefaultInitAllocator<T>>;

struct Float3 {
  float x, y, z;
};
static_assert(sizeof(Float3) == 12);

/// RGBA8 packed as 0xAABBGGRR (byte order R, G, B, A in memory on little-endian machines).
inline constexpr uint32_t rgba(uint8_t r, uint8_t g, uint8_t b, uint8_t a = 255) {
  return uint32_t(r) | (uint32_t(g) << 8) | (uint32_t(b) << 16) | (uint32_t(a) << 24);
}

struct Bounds {
  glm::dvec3 min{0.0}, max{0.0};
  bool empty = true;
  glm::dvec3 center() const { return (min + max) * 0.5; }
  glm::dvec3 size() const { return max - min; }
  void extend(const glm::dvec3& p);
  void extend(const Bounds& b);
};

/// A per-point scalar field of a file kept by name (PLY/PCD properties, LAS extra bytes).
struct ScalarField {
  std::string name;
  PodVector<float> values;  ///< one per point
};

/// The return number in the low 4 bits of PointCloud::returns, the number of returns in the high 4.
inline constexpr uint8_t pack_returns(unsigned number, unsigned count) {
  return uint8_t((number & 15u) | ((count & 15u) << 4));
}
inline constexpr unsigned return_number(uint8_t packed) {
  return packed & 15u;
}
inline constexpr unsigned return_count(uint8_t packed) {
  return unsigned(packed) >> 4;
}

class PointCloud {
 public:
  std::string name;             ///< file name or scene name, for display
  glm::dvec3 origin{0.0};       ///< world position of local (0,0,0)
  PodVector<Float3> positions;  ///< local coordinates: world = origin + position
  /// RGBA8, one per point: the colors the renderers draw (opaque: alpha not drawn). While a color
  /// mode other than the file's colors is shown (engine/colorize.h), the file's colors wait in
  /// `file_colors`.
  PodVector<uint32_t> colors;
  /// Empty while `colors` holds the file's colors; else the file's colors, set aside.
  PodVector<uint32_t> file_colors;
  PodVector<float> intensity;         ///< empty, or one per point (4 bytes)
  PodVector<uint8_t> classification;  ///< empty, or one per point (ASPRS class, 1 byte)
  PodVector<uint8_t> returns;         ///< empty, or pack_returns(number, count) per point
  PodVector<uint16_t> point_source;   ///< empty, or the point source id per point
  PodVector<double> gps_time;         ///< empty, or the GPS time per point
  std::vector<ScalarField> fields;    ///< other named scalar fields (4 bytes a point each)

  size_t size() const { return positions.size(); }
  bool empty() const { return positions.empty(); }
  bool has_intensity() const { return !intensity.empty(); }
  /// The file's colors, wherever they are kept.
  const PodVector<uint32_t>& source_colors() const {
    return file_colors.empty() ? colors : file_colors;
  }
  /// The named field, or null.
  const ScalarField* field(const std::string& field_name) const;

  /// Allocates n points (uninitialized positions and colors).
  void resize(size_t n);

  /// Bounds of the finite local positions (parallel). NaN/inf points are ignored.
  Bounds local_bounds() const;
  /// local_bounds() shifted by origin.
  Bounds world_bounds() const;

  /// Host memory held by the arrays, in bytes.
  size_t memory_bytes() const;
};

/// Appends `b` to `a`, re-expressing b's positions relative to a's origin (or adopting b's origin
/// when a is empty). Used when several files are drawn together.
void append_cloud(PointCloud& a, const PointCloud& b);

}  // namespace pr
