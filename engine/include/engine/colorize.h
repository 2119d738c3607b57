// Color modes: the colors both renderers draw, computed on the host from the cloud's attributes
// (file RGB, intensity, elevation, classification, returns, point source, any named scalar field)
// into the cloud's color array, so that the CPU and the GPU draw the same image by construction
// (the key carries the color). Continuous modes map a value through a colormap and report the
// range in a Legend. The class filter hides the points of chosen classes by giving them NaN
// positions (both renderers skip non-finite points), keeping the originals aside.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/point_cloud.h"

namespace pr {

enum class ColorMode : uint8_t {
  kRgb,             ///< the file's colors
  kIntensity,       ///< intensity through a colormap, range the 1st - 99th percentile, gamma
  kElevation,       ///< the up coordinate through a colormap, range the cloud's bounds
  kClassification,  ///< ASPRS classes, a fixed palette
  kReturn,          ///< first / intermediate / last / single return
  kSource,          ///< a distinct color per point source id
  kField,           ///< a named scalar field through a colormap, range its min .. max
};

enum class Colormap : uint8_t { kViridis, kTurbo, kGray, kInferno, kPlasma };
inline constexpr int kColormapCount = 5;

/// "rgb", "intensity", "elevation", "classification", "return", "source" set *mode; any other
/// non-empty name is a field (kField, *field = text), checked against a cloud by
/// color_mode_available(). False for an empty name.
bool parse_color_mode(std::string_view text, ColorMode* mode, std::string* field);
const char* color_mode_name(ColorMode mode);
/// "viridis", "turbo", "gray" (or "grey"), "inferno", "plasma".
bool parse_colormap(std::string_view text, Colormap* map);
const char* colormap_name(Colormap map);

/// The colormap at t in [0, 1] (clamped; NaN as 0), RGBA8 opaque: 256 entries, t rounded to the
/// nearest.
uint32_t colormap_color(Colormap map, double t);

/// ASPRS standard class names (LAS 1.4 R15, classes 0 - 22; "reserved N" or "user N" otherwise).
std::string class_name(uint8_t code);
/// The class palette (a fixed color for each standard class; others a color of their own).
uint32_t class_color(uint8_t code);

enum class ReturnKind : uint8_t { kSingle, kFirst, kIntermediate, kLast };
/// Of pack_returns(number, count): single when count <= 1, first when number <= 1, last when
/// number >= count, else intermediate.
ReturnKind return_kind(uint8_t packed);
const char* return_kind_name(ReturnKind kind);
uint32_t return_color(ReturnKind kind);
/// Distinct colors per point source id (hues spaced by the golden ratio).
uint32_t source_color(uint16_t id);

struct ColorSettings {
  ColorMode mode = ColorMode::kRgb;
  std::string field;  ///< kField: the field's name
  Colormap colormap = Colormap::kViridis;
  double gamma = 1.0;  ///< intensity: t^(1/gamma) (gamma > 1 brightens dark values)
  /// kIntensity, kElevation, kField: the range mapped to 0..1 (auto: intensity's 1st - 99th
  /// percentile, the cloud's bounds along the up axis, the field's min .. max).
  bool auto_range = true;
  double range_lo = 0.0, range_hi = 1.0;
  int up_axis = 2;  ///< elevation's axis: 1 (y up) or 2 (z up)

  bool operator==(const ColorSettings&) const = default;
};

/// What the panel shows beside the image: the mode, the range and colormap of a continuous mode,
/// the points of each class or kind of return.
struct Legend {
  ColorMode mode = ColorMode::kRgb;
  Colormap colormap = Colormap::kViridis;
  bool continuous = false;
  double lo = 0.0, hi = 0.0;                 ///< the range mapped to the colormap's ends
  std::string label;                         ///< "intensity", "elevation (z)", a field's name
  std::array<uint64_t, 256> class_counts{};  ///< points per class (classification mode)
  std::array<uint64_t, 4> return_counts{};   ///< points per ReturnKind (return mode)
};

/// Whether the cloud holds what the mode needs (rgb, elevation: always; a field: by name).
bool color_mode_available(const PointCloud& cloud, ColorMode mode, const std::string& field);
/// RGB when the file's colors are not all equal, else intensity when it varies, else elevation.
ColorMode default_color_mode(const PointCloud& cloud);

/// The automatic range of a continuous mode (see ColorSettings::auto_range). False when the mode
/// is not continuous or the cloud lacks its values. `bounds`: the cloud's world bounds when the
/// caller has them (elevation's range; else a pass over the positions computes them).
bool color_range(const PointCloud& cloud, const ColorSettings& settings, double* lo, double* hi,
                 const Bounds* bounds = nullptr);

/// The colors of `settings` for every point into `out` (resized to the cloud's size), in
/// parallel; reads only `cloud` (the file's colors from source_colors()), so it may run in a
/// background thread while the cloud is drawn. False with a message when the cloud lacks what the
/// mode needs ("the cloud has no intensity", "no field 'x' (fields: a, b)").
/// `bounds`: as for color_range().
bool colorize(const PointCloud& cloud, const ColorSettings& settings, PodVector<uint32_t>& out,
              Legend* legend, std::string* error, const Bounds* bounds = nullptr);

/// A color mode's colors as a function of one value a point, for a renderer that computes them
/// where its own copy of the points is (the GPU renderer, from values it uploads once and keeps,
/// kernels/src/recipe_colors.cu): recipe_color() gives each point's, the very color colorize()
/// gives it (the same tables, range and engine/color_ramp.h arithmetic).
struct ColorRecipe {
  enum class Source : uint8_t {
    kPosition,  ///< a coordinate of the point's (local) position: `axis`
    kFloat,     ///< `values` holds a float a point
    kByte,      ///< a byte a point
    kShort,     ///< a uint16_t a point
    kRgba,      ///< a packed RGBA a point (the file's colors): the color itself, no table
  };
  Source source = Source::kPosition;
  int axis = 2;
  /// What `values` are ("intensity", "classification", "returns", "point source",
  /// "field <name>", "rgb"), for a renderer that keeps its copies by name; empty for kPosition.
  std::string attribute;
  const void* values = nullptr;  ///< the cloud's array (cloud.size() entries); null: kPosition
  /// Continuous (steps > 0): table[ramp_index(ramp_t(v, offset, scale), steps)], steps + 1
  /// entries. Categorical (steps == 0): table[v], 256 (a byte) or 65536 (a uint16_t) entries.
  double offset = 0.0, scale = 0.0;
  uint32_t steps = 0;
  std::vector<uint32_t> table;
  double lo = 0.0, hi = 0.0;  ///< a continuous mode's range, as colorize() found it
};

/// The recipe of `settings` for `cloud` (its automatic range as colorize() finds it; `bounds` as
/// there). RGB's is the file's colors as they are (source_colors()). False when the cloud lacks
/// what the mode needs.
bool color_recipe(const PointCloud& cloud, const ColorSettings& settings, ColorRecipe* out,
                  const Bounds* bounds = nullptr);
/// Point i's color by `recipe` (made for `cloud`): equal to colorize()'s.
uint32_t recipe_color(const ColorRecipe& recipe, const PointCloud& cloud, size_t i);

/// Hands colors made by colorize() to the cloud: the file's colors go aside into file_colors the
/// first time (kept there while another mode is shown; back in `colors` for kRgb, when `colors`
/// is then empty to take them back). Returns the array the cloud no longer needs (the colors of
/// the mode shown before; empty when none), which the next colorize() may fill: its memory is
/// mapped already, and first touches of fresh pages cost a switch at 1e9 points more than the
/// colors themselves.
PodVector<uint32_t> set_display_colors(PointCloud& cloud, ColorMode mode,
                                       PodVector<uint32_t>&& colors);

/// Points of hidden classes, taken out of the cloud (their positions NaN) and kept here: 16
/// bytes a hidden point, nothing for the others.
struct HiddenPoints {
  PodVector<uint32_t> index;
  PodVector<Float3> position;
  bool empty() const { return index.empty(); }
};

/// Shows the points hidden before, then hides the points of every class c with hidden[c] (their
/// positions become NaN, which both renderers skip). Returns whether any position changed (the
/// renderers then need the cloud again: set_cloud()).
bool apply_class_filter(PointCloud& cloud, const std::array<bool, 256>& hidden,
                        HiddenPoints& stash);

}  // namespace pr
