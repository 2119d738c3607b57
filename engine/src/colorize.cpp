#include "engine/colorize.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <mutex>

#include "engine/color_ramp.h"
#include "engine/parallel.h"

namespace pr {

namespace {

constexpr const char* kModeNames[] = {"rgb",    "intensity", "elevation", "classification",
                                      "return", "source",    "field"};
constexpr const char* kMapNames[kColormapCount] = {"viridis", "turbo", "gray", "inferno", "plasma"};

uint8_t unit_to_byte(double v) {
  return uint8_t(std::lround(std::clamp(v, 0.0, 1.0) * 255.0));
}

// Polynomial fits of matplotlib's viridis, inferno and plasma (degree 6, after Matt Zucker's fits)
// and Google's turbo approximation (degree 5), evaluated once into 256-entry tables.
constexpr double kViridis[7][3] = {{0.2777273272234177, 0.005407344544966578, 0.3340998053353061},
                                   {0.1050930431085774, 1.404613529898575, 1.384590162594685},
                                   {-0.3308618287255563, 0.214847559468213, 0.09509516302823659},
                                   {-4.634230498983486, -5.799100973351585, -19.33244095627987},
                                   {6.228269936347081, 14.17993336680509, 56.69055260068105},
                                   {4.776384997670288, -13.74514537774601, -65.35303263337234},
                                   {-5.435455855934631, 4.645852612178535, 26.3124352495832}};
constexpr double kInferno[7][3] = {
    {0.0002189403691192265, 0.001651004631001012, -0.01948089843709184},
    {0.1065134194856116, 0.5639564367884091, 3.932712388889277},
    {11.60249308247187, -3.972853965665698, -15.9423941062914},
    {-41.70399613139459, 17.43639888205313, 44.35414519872813},
    {77.162935699427, -33.40235894210092, -81.80730925738993},
    {-71.31942824499214, 32.62606426397723, 73.20951985803202},
    {25.13112622477341, -12.24266895238567, -23.07032500287172}};
constexpr double kPlasma[7][3] = {{0.05873234392399702, 0.02333670892565664, 0.5433401826748754},
                                  {2.176514634195958, 0.2383834171260182, 0.7539604599784036},
                                  {-2.689460476458034, -7.455851135738909, 3.110799939717086},
                                  {6.130348345893603, 42.3461881477227, -28.51885465332158},
                                  {-11.10743619062271, -82.66631109428045, 60.13984767418263},
                                  {10.02306557647065, 71.41361770095349, -54.07218655560067},
                                  {-3.658713842777788, -22.93153465461149, 18.19190778539828}};
constexpr double kTurbo[6][3] = {
    {0.13572138, 0.09140261, 0.10667330},      {4.61539260, 2.19418839, 12.64194608},
    {-42.66032258, 4.84296658, -60.58204836},  {132.13108234, -14.18503333, 110.36276771},
    {-152.94239396, 4.27729857, -89.90310912}, {59.28637943, 2.82956604, 27.34824973}};

template <size_t N>
uint32_t poly_color(const double (&c)[N][3], double t) {
  double v[3];
  for (int k = 0; k < 3; ++k) {
    double acc = c[N - 1][k];
    for (size_t i = N - 1; i-- > 0;) acc = acc * t + c[i][k];
    v[k] = acc;
  }
  return rgba(unit_to_byte(v[0]), unit_to_byte(v[1]), unit_to_byte(v[2]));
}

struct Tables {
  uint32_t lut[kColormapCount][256];
  Tables() {
    for (int i = 0; i < 256; ++i) {
      const double t = double(i) / 255.0;
      lut[0][i] = poly_color(kViridis, t);
      lut[1][i] = poly_color(kTurbo, t);
      lut[2][i] = rgba(uint8_t(i), uint8_t(i), uint8_t(i));
      lut[3][i] = poly_color(kInferno, t);
      lut[4][i] = poly_color(kPlasma, t);
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

inline uint32_t lut_color(const uint32_t* lut, double t) {
  return lut[ramp_index(t, 255)];
}

struct ClassEntry {
  const char* name;
  uint32_t color;
};
constexpr ClassEntry kClasses[23] = {{"never classified", rgba(128, 128, 128)},
                                     {"unclassified", rgba(200, 200, 200)},
                                     {"ground", rgba(170, 120, 70)},
                                     {"low vegetation", rgba(140, 220, 100)},
                                     {"medium vegetation", rgba(60, 180, 60)},
                                     {"high vegetation", rgba(20, 110, 30)},
                                     {"building", rgba(220, 80, 60)},
                                     {"low point (noise)", rgba(255, 0, 255)},
                                     {"model key-point", rgba(255, 255, 0)},
                                     {"water", rgba(40, 100, 230)},
                                     {"rail", rgba(150, 100, 150)},
                                     {"road surface", rgba(90, 90, 90)},
                                     {"overlap", rgba(255, 200, 0)},
                                     {"wire - guard (shield)", rgba(240, 240, 120)},
                                     {"wire - conductor (phase)", rgba(255, 230, 0)},
                                     {"transmission tower", rgba(230, 130, 30)},
                                     {"wire-structure connector", rgba(200, 160, 255)},
                                     {"bridge deck", rgba(120, 160, 200)},
                                     {"high noise", rgba(255, 60, 200)},
                                     {"overhead structure", rgba(0, 200, 200)},
                                     {"ignored ground", rgba(150, 120, 90)},
                                     {"snow", rgba(240, 250, 255)},
                                     {"temporal exclusion", rgba(100, 100, 140)}};

/// A bright color of hue h (turns), HSV with saturation 0.7 and value 0.95.
uint32_t hue_color(double h) {
  h -= std::floor(h);
  const double s = 0.7, v = 0.95;
  const double f = h * 6.0;
  const int i = int(f) % 6;
  const double fr = f - std::floor(f);
  const double p = v * (1 - s), q = v * (1 - s * fr), t = v * (1 - s * (1 - fr));
  double r, g, b;
  switch (i) {
    case 0:
      r = v, g = t, b = p;
      break;
    case 1:
      r = q, g = v, b = p;
      break;
    case 2:
      r = p, g = v, b = t;
      break;
    case 3:
      r = p, g = q, b = v;
      break;
    case 4:
      r = t, g = p, b = v;
      break;
    default:
      r = v, g = p, b = q;
      break;
  }
  return rgba(unit_to_byte(r), unit_to_byte(g), unit_to_byte(b));
}

constexpr double kGolden = 0.6180339887498949;

/// Min and max of the finite values of `v` (false when there are none).
template <class Get>
bool finite_range(size_t n, Get&& get, double* lo, double* hi) {
  std::mutex m;
  double l = INFINITY, h = -INFINITY;
  parallel_for(
      n,
      [&](size_t b, size_t e) {
        double a = INFINITY, z = -INFINITY;
        for (size_t i = b; i < e; ++i) {
          const double x = double(get(i));
          if (!std::isfinite(x)) continue;
          a = std::min(a, x), z = std::max(z, x);
        }
        std::lock_guard<std::mutex> lock(m);
        l = std::min(l, a), h = std::max(h, z);
      },
      0, 1 << 16);
  if (!(l <= h)) return false;
  *lo = l, *hi = h;
  return true;
}

/// Whether point i draws at all: a NaN position (a hidden class, a streaming pool's free room)
/// never does, and its values do not count in a range.
inline bool drawable(const PointCloud& cloud, size_t i) {
  return !std::isnan(cloud.positions[i].x);
}

/// The 1st and 99th percentile of the finite intensities of drawable points, from an even sample
/// of at most 65536.
bool intensity_percentiles(const PointCloud& cloud, double* lo, double* hi) {
  const PodVector<float>& v = cloud.intensity;
  const size_t n = v.size();
  const size_t want = 65536;
  std::vector<float> s;
  s.reserve(std::min(n, want));
  const size_t step = n > want ? n / want : 1;
  for (size_t i = 0; i < n && s.size() < want; i += step)
    if (std::isfinite(v[i]) && drawable(cloud, i)) s.push_back(v[i]);
  if (s.empty()) return false;
  auto pick = [&](double q) {
    const size_t k = std::min(s.size() - 1, size_t(q * double(s.size() - 1) + 0.5));
    std::nth_element(s.begin(), s.begin() + long(k), s.end());
    return double(s[k]);
  };
  *lo = pick(0.01);
  *hi = pick(0.99);
  return true;
}

bool all_equal(const PodVector<uint32_t>& c) {
  if (c.empty()) return true;
  const uint32_t c0 = c[0] & 0xffffffu;
  std::atomic<bool> differ{false};
  parallel_for(
      c.size(),
      [&](size_t b, size_t e) {
        for (size_t i = b; i < e && !differ.load(std::memory_order_relaxed); ++i)
          if ((c[i] & 0xffffffu) != c0) {
            differ = true;
            return;
          }
      },
      0, 1 << 16);
  return !differ.load();
}

std::string field_list(const PointCloud& cloud) {
  std::string s;
  for (const ScalarField& f : cloud.fields) s += (s.empty() ? "" : ", ") + f.name;
  return s.empty() ? "none" : s;
}

}  // namespace

bool parse_color_mode(std::string_view text, ColorMode* mode, std::string* field) {
  if (text.empty()) return false;
  for (int i = 0; i < 6; ++i)
    if (text == kModeNames[i]) {
      *mode = ColorMode(i);
      if (field) field->clear();
      return true;
    }
  *mode = ColorMode::kField;
  if (field) *field = std::string(text);
  return true;
}

const char* color_mode_name(ColorMode mode) {
  return kModeNames[int(mode)];
}

bool parse_colormap(std::string_view text, Colormap* map) {
  if (text == "grey") text = "gray";
  for (int i = 0; i < kColormapCount; ++i)
    if (text == kMapNames[i]) {
      *map = Colormap(i);
      return true;
    }
  return false;
}

const char* colormap_name(Colormap map) {
  return kMapNames[int(map)];
}

uint32_t colormap_color(Colormap map, double t) {
  return lut_color(tables().lut[int(map)], t);
}

std::string class_name(uint8_t code) {
  if (code < 23) return kClasses[code].name;
  return (code < 64 ? "reserved " : "user ") + std::to_string(code);
}

uint32_t class_color(uint8_t code) {
  if (code < 23) return kClasses[code].color;
  return hue_color(double(code) * kGolden);
}

ReturnKind return_kind(uint8_t packed) {
  const unsigned number = return_number(packed), count = return_count(packed);
  if (count <= 1) return ReturnKind::kSingle;
  if (number <= 1) return ReturnKind::kFirst;
  if (number >= count) return ReturnKind::kLast;
  return ReturnKind::kIntermediate;
}

const char* return_kind_name(ReturnKind kind) {
  constexpr const char* kNames[] = {"single", "first", "intermediate", "last"};
  return kNames[int(kind)];
}

uint32_t return_color(ReturnKind kind) {
  constexpr uint32_t kColors[] = {rgba(255, 220, 0), rgba(230, 60, 50), rgba(60, 200, 80),
                                  rgba(50, 120, 240)};
  return kColors[int(kind)];
}

uint32_t source_color(uint16_t id) {
  return hue_color(0.07 + double(id) * kGolden);
}

bool color_mode_available(const PointCloud& cloud, ColorMode mode, const std::string& field) {
  switch (mode) {
    case ColorMode::kRgb:
    case ColorMode::kElevation:
      return true;
    case ColorMode::kIntensity:
      return !cloud.intensity.empty();
    case ColorMode::kClassification:
      return !cloud.classification.empty();
    case ColorMode::kReturn:
      return !cloud.returns.empty();
    case ColorMode::kSource:
      return !cloud.point_source.empty();
    case ColorMode::kField:
      return cloud.field(field) != nullptr;
  }
  return false;
}

ColorMode default_color_mode(const PointCloud& cloud) {
  if (!all_equal(cloud.source_colors())) return ColorMode::kRgb;
  double lo, hi;
  if (intensity_percentiles(cloud, &lo, &hi) && lo < hi) return ColorMode::kIntensity;
  if (!cloud.intensity.empty() &&
      finite_range(
          cloud.intensity.size(), [&](size_t i) { return cloud.intensity[i]; }, &lo, &hi) &&
      lo < hi)
    return ColorMode::kIntensity;
  return ColorMode::kElevation;
}

bool color_range(const PointCloud& cloud, const ColorSettings& s, double* lo, double* hi,
                 const Bounds* bounds) {
  switch (s.mode) {
    case ColorMode::kIntensity: {
      if (!intensity_percentiles(cloud, lo, hi)) return false;
      // A range collapsed by a few distinct values falls back to the whole range.
      if (*lo == *hi)
        finite_range(
            cloud.intensity.size(),
            [&](size_t i) { return drawable(cloud, i) ? cloud.intensity[i] : NAN; }, lo, hi);
      return true;
    }
    case ColorMode::kElevation: {
      const Bounds b = bounds ? *bounds : cloud.world_bounds();
      if (b.empty) return false;
      const int a = std::clamp(s.up_axis, 0, 2);
      *lo = b.min[a];
      *hi = b.max[a];
      return true;
    }
    case ColorMode::kField: {
      const ScalarField* f = cloud.field(s.field);
      if (!f) return false;
      return finite_range(
          f->values.size(), [&](size_t i) { return drawable(cloud, i) ? f->values[i] : NAN; }, lo,
          hi);
    }
    default:
      return false;
  }
}

namespace {

// One function per color mode: each fills o[0, cloud.size()) in parallel and the mode's part of
// the legend. Continuous modes map (value - lo) * scale onto the colormap `lut`.
constexpr size_t kColorGrain = size_t{1} << 16;

/// Intensity's gamma curve through a table of kCurveSteps + 1 entries: pow per point would
/// dominate.
constexpr uint32_t kCurveSteps = 4096;
std::vector<uint32_t> intensity_curve(const ColorSettings& s, const uint32_t* lut) {
  const double inv_gamma = s.gamma > 0.0 ? 1.0 / s.gamma : 1.0;
  std::vector<uint32_t> curve(kCurveSteps + 1);
  for (size_t k = 0; k <= kCurveSteps; ++k)
    curve[k] = lut_color(lut, std::pow(double(k) / double(kCurveSteps), inv_gamma));
  return curve;
}

/// The palettes of the categorical modes, indexed by the point's value.
std::vector<uint32_t> class_palette() {
  std::vector<uint32_t> pal(256);
  for (int c = 0; c < 256; ++c) pal[size_t(c)] = class_color(uint8_t(c));
  return pal;
}
std::vector<uint32_t> return_palette() {
  std::vector<uint32_t> pal(256);
  for (int c = 0; c < 256; ++c) pal[size_t(c)] = return_color(return_kind(uint8_t(c)));
  return pal;
}
std::vector<uint32_t> source_palette() {
  std::vector<uint32_t> pal(65536);
  for (size_t c = 0; c < pal.size(); ++c) pal[c] = source_color(uint16_t(c));
  return pal;
}

void color_classification(const PointCloud& cloud, uint32_t* o, Legend& lg) {
  lg.label = "classification";
  const std::vector<uint32_t> pal = class_palette();
  const uint8_t* v = cloud.classification.data();
  std::mutex m;
  parallel_for(
      cloud.size(),
      [&](size_t b, size_t e) {
        uint64_t count[256] = {};
        for (size_t i = b; i < e; ++i) {
          o[i] = pal[v[i]];
          ++count[v[i]];
        }
        std::lock_guard<std::mutex> lock(m);
        for (int c = 0; c < 256; ++c) lg.class_counts[size_t(c)] += count[c];
      },
      0, kColorGrain);
}

void color_return(const PointCloud& cloud, uint32_t* o, Legend& lg) {
  lg.label = "return";
  const std::vector<uint32_t> pal = return_palette();
  uint8_t kind[256];
  for (int c = 0; c < 256; ++c) kind[c] = uint8_t(return_kind(uint8_t(c)));
  const uint8_t* v = cloud.returns.data();
  std::mutex m;
  parallel_for(
      cloud.size(),
      [&](size_t b, size_t e) {
        uint64_t count[4] = {};
        for (size_t i = b; i < e; ++i) {
          o[i] = pal[v[i]];
          ++count[kind[v[i]]];
        }
        std::lock_guard<std::mutex> lock(m);
        for (int k = 0; k < 4; ++k) lg.return_counts[size_t(k)] += count[k];
      },
      0, kColorGrain);
}

/// A continuous mode's range (the settings', or the automatic one; 0 .. 1 when there is none):
/// false for the other modes.
bool continuous_range(const PointCloud& cloud, const ColorSettings& s, const Bounds* bounds,
                      double* lo, double* hi) {
  if (s.mode != ColorMode::kIntensity && s.mode != ColorMode::kElevation &&
      s.mode != ColorMode::kField)
    return false;
  *lo = s.range_lo, *hi = s.range_hi;
  if (s.auto_range && !color_range(cloud, s, lo, hi, bounds)) *lo = 0.0, *hi = 1.0;
  return true;
}

/// The recipe of mode `s` (the cloud has what it needs) with the range lo .. hi of a
/// continuous mode: the table and arithmetic colorize() applies (color_by_recipe()) and the GPU
/// applies to its copy of the values.
ColorRecipe make_recipe(const PointCloud& cloud, const ColorSettings& s, double lo, double hi) {
  ColorRecipe r;
  const uint32_t* lut = tables().lut[int(s.colormap)];
  // A continuous mode: (value - lo) / (hi - lo) onto `table` of steps + 1 entries.
  auto ramp = [&](std::vector<uint32_t> table, uint32_t steps) {
    r.scale = hi > lo ? 1.0 / (hi - lo) : 0.0;
    r.offset = -lo;
    r.steps = steps;
    r.table = std::move(table);
    r.lo = lo, r.hi = hi;
  };
  using Source = ColorRecipe::Source;
  switch (s.mode) {
    case ColorMode::kIntensity:
      r.source = Source::kFloat, r.attribute = "intensity", r.values = cloud.intensity.data();
      ramp(intensity_curve(s, lut), kCurveSteps);
      break;
    case ColorMode::kElevation:
      r.source = Source::kPosition;
      r.axis = std::clamp(s.up_axis, 0, 2);
      ramp(std::vector<uint32_t>(lut, lut + 256), 255);
      r.offset = cloud.origin[r.axis] - lo;  // positions are local: world = origin + position
      break;
    case ColorMode::kField:
      r.source = Source::kFloat, r.attribute = "field " + s.field;
      r.values = cloud.field(s.field)->values.data();
      ramp(std::vector<uint32_t>(lut, lut + 256), 255);
      break;
    case ColorMode::kClassification:
      r.source = Source::kByte, r.attribute = "classification";
      r.values = cloud.classification.data();
      r.table = class_palette();
      break;
    case ColorMode::kReturn:
      r.source = Source::kByte, r.attribute = "returns", r.values = cloud.returns.data();
      r.table = return_palette();
      break;
    case ColorMode::kSource:
      r.source = Source::kShort, r.attribute = "point source";
      r.values = cloud.point_source.data();
      r.table = source_palette();
      break;
    case ColorMode::kRgb:
      r.source = Source::kRgba, r.attribute = "rgb", r.values = cloud.source_colors().data();
      break;
  }
  return r;
}

/// The legend's label of a mode colorize() colors through its recipe.
std::string recipe_label(const ColorSettings& s, const ColorRecipe& r) {
  if (s.mode == ColorMode::kElevation) return std::string("elevation (") + "xyz"[r.axis] + ")";
  if (s.mode == ColorMode::kField) return s.field;
  return r.attribute;  // "intensity", "point source"
}

/// Every point's color by `r` into o, in parallel (recipe_color(), a loop per source).
void color_by_recipe(const PointCloud& cloud, const ColorRecipe& r, uint32_t* o) {
  using Source = ColorRecipe::Source;
  const uint32_t* t = r.table.data();
  parallel_for(
      cloud.size(),
      [&](size_t b, size_t e) {
        switch (r.source) {
          case Source::kPosition: {
            const Float3* p = cloud.positions.data();
            for (size_t i = b; i < e; ++i) {
              const float c = r.axis == 0 ? p[i].x : r.axis == 1 ? p[i].y : p[i].z;
              o[i] = t[ramp_index(ramp_t(c, r.offset, r.scale), r.steps)];
            }
            break;
          }
          case Source::kFloat: {
            const float* v = static_cast<const float*>(r.values);
            for (size_t i = b; i < e; ++i)
              o[i] = t[ramp_index(ramp_t(v[i], r.offset, r.scale), r.steps)];
            break;
          }
          case Source::kByte: {
            const uint8_t* v = static_cast<const uint8_t*>(r.values);
            for (size_t i = b; i < e; ++i) o[i] = t[v[i]];
            break;
          }
          case Source::kShort: {
            const uint16_t* v = static_cast<const uint16_t*>(r.values);
            for (size_t i = b; i < e; ++i) o[i] = t[v[i]];
            break;
          }
          case Source::kRgba: {
            const uint32_t* v = static_cast<const uint32_t*>(r.values);
            std::copy(v + b, v + e, o + b);
            break;
          }
        }
      },
      0, kColorGrain);
}

/// The message for a mode the cloud cannot show ("the cloud has no intensity", "no field 'x'
/// (fields: a, b)").
std::string unavailable_message(const PointCloud& cloud, const ColorSettings& s) {
  if (s.mode == ColorMode::kField)
    return "no field '" + s.field + "' (fields: " + field_list(cloud) + ")";
  const char* what = s.mode == ColorMode::kReturn   ? "return numbers"
                     : s.mode == ColorMode::kSource ? "point source ids"
                                                    : color_mode_name(s.mode);
  return std::string("the cloud has no ") + what;
}

}  // namespace

bool colorize(const PointCloud& cloud, const ColorSettings& s, PodVector<uint32_t>& out,
              Legend* legend, std::string* error, const Bounds* bounds) {
  if (!color_mode_available(cloud, s.mode, s.field)) {
    if (error) *error = unavailable_message(cloud, s);
    return false;
  }
  out.resize(cloud.size());
  Legend lg;
  lg.mode = s.mode;
  lg.colormap = s.colormap;
  uint32_t* o = out.data();
  double lo = 0.0, hi = 0.0;
  if (continuous_range(cloud, s, bounds, &lo, &hi)) {
    lg.continuous = true;
    lg.lo = lo;
    lg.hi = hi;
  }
  switch (s.mode) {
    case ColorMode::kRgb:  // the file's colors (their recipe copies them)
      color_by_recipe(cloud, make_recipe(cloud, s, lo, hi), o);
      break;
    case ColorMode::kClassification:
      color_classification(cloud, o, lg);
      break;
    case ColorMode::kReturn:
      color_return(cloud, o, lg);
      break;
    default: {  // a value through a table, as the GPU computes it (the recipe)
      const ColorRecipe r = make_recipe(cloud, s, lo, hi);
      lg.label = recipe_label(s, r);
      color_by_recipe(cloud, r, o);
      break;
    }
  }
  if (legend) *legend = std::move(lg);
  return true;
}

bool color_recipe(const PointCloud& cloud, const ColorSettings& s, ColorRecipe* out,
                  const Bounds* bounds) {
  if (!color_mode_available(cloud, s.mode, s.field)) return false;
  double lo = 0.0, hi = 0.0;
  continuous_range(cloud, s, bounds, &lo, &hi);
  *out = make_recipe(cloud, s, lo, hi);
  return true;
}

uint32_t recipe_color(const ColorRecipe& r, const PointCloud& cloud, size_t i) {
  using Source = ColorRecipe::Source;
  switch (r.source) {
    case Source::kPosition: {
      const Float3 p = cloud.positions[i];
      const float c = r.axis == 0 ? p.x : r.axis == 1 ? p.y : p.z;
      return r.table[ramp_index(ramp_t(c, r.offset, r.scale), r.steps)];
    }
    case Source::kFloat: {
      const float v = static_cast<const float*>(r.values)[i];
      return r.table[ramp_index(ramp_t(v, r.offset, r.scale), r.steps)];
    }
    case Source::kByte:
      return r.table[static_cast<const uint8_t*>(r.values)[i]];
    case Source::kShort:
      return r.table[static_cast<const uint16_t*>(r.values)[i]];
    case Source::kRgba:
      return static_cast<const uint32_t*>(r.values)[i];
  }
  return 0;
}

PodVector<uint32_t> set_display_colors(PointCloud& cloud, ColorMode mode,
                                       PodVector<uint32_t>&& colors) {
  PodVector<uint32_t> released = std::move(colors);  // a kRgb caller's array, if any
  if (mode == ColorMode::kRgb) {
    if (!cloud.file_colors.empty()) {
      released = std::move(cloud.colors);
      cloud.colors = std::move(cloud.file_colors);
    }
    cloud.file_colors = PodVector<uint32_t>();
    return released;
  }
  if (cloud.file_colors.empty()) {
    cloud.file_colors = std::move(cloud.colors);
    cloud.colors = std::move(released);
    return PodVector<uint32_t>();
  }
  std::swap(cloud.colors, released);
  return released;
}

bool apply_class_filter(PointCloud& cloud, const std::array<bool, 256>& hidden,
                        HiddenPoints& stash) {
  bool changed = !stash.empty();
  for (size_t k = 0; k < stash.index.size(); ++k)
    cloud.positions[stash.index[k]] = stash.position[k];
  stash = HiddenPoints{};
  bool any = false;
  for (bool h : hidden) any |= h;
  if (!any || cloud.classification.size() != cloud.size()) return changed;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (size_t i = 0; i < cloud.size(); ++i) {
    if (!hidden[cloud.classification[i]]) continue;
    stash.index.push_back(uint32_t(i));
    stash.position.push_back(cloud.positions[i]);
    cloud.positions[i] = Float3{nan, nan, nan};
    changed = true;
  }
  return changed;
}

}  // namespace pr
