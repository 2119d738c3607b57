// Color modes (engine/colorize.h): each mode against a reference computed here, the default rule,
// the legend, the class filter in CPU images, the attributes of the test data's LAS files, and
// append_cloud() keeping the attributes aligned.
#include "engine/colorize.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <set>

#include "attribute_cloud.h"
#include "engine/camera.h"
#include "engine/cpu_renderer.h"
#include "engine/io/io.h"
#include "testdata.h"

namespace pr {
namespace {

namespace fs = std::filesystem;
using test::kData;

/// n points on a line along x, z = i, every point white.
PointCloud line_cloud(size_t n) {
  PointCloud c;
  c.resize(n);
  for (size_t i = 0; i < n; ++i) {
    c.positions[i] = Float3{float(i % 100), float(i / 100), float(i)};
    c.colors[i] = rgba(255, 255, 255);
  }
  return c;
}

/// line_cloud(100) with file colors of its own: a ramp of reds.
PointCloud red_line_cloud() {
  PointCloud c = line_cloud(100);
  for (size_t i = 0; i < 100; ++i) c.colors[i] = rgba(uint8_t(i), 0, 0);
  return c;
}

TEST(Colorize, ParsesModesAndColormaps) {
  ColorMode m;
  std::string f;
  ASSERT_TRUE(parse_color_mode("classification", &m, &f));
  EXPECT_EQ(m, ColorMode::kClassification);
  ASSERT_TRUE(parse_color_mode("Deviation", &m, &f));
  EXPECT_EQ(m, ColorMode::kField);
  EXPECT_EQ(f, "Deviation");
  EXPECT_FALSE(parse_color_mode("", &m, &f));
  for (const char* name : {"rgb", "intensity", "elevation", "classification", "return", "source"}) {
    ASSERT_TRUE(parse_color_mode(name, &m, &f));
    EXPECT_STREQ(color_mode_name(m), name);
  }
  Colormap map;
  for (const char* name : {"viridis", "turbo", "gray", "inferno", "plasma"}) {
    ASSERT_TRUE(parse_colormap(name, &map)) << name;
    EXPECT_STREQ(colormap_name(map), name);
  }
  EXPECT_TRUE(parse_colormap("grey", &map));
  EXPECT_EQ(map, Colormap::kGray);
  EXPECT_FALSE(parse_colormap("jet", &map));
}

TEST(Colorize, ColormapEnds) {
  EXPECT_EQ(colormap_color(Colormap::kGray, 0.0), rgba(0, 0, 0));
  EXPECT_EQ(colormap_color(Colormap::kGray, 1.0), rgba(255, 255, 255));
  EXPECT_EQ(colormap_color(Colormap::kGray, 0.5), rgba(128, 128, 128));
  EXPECT_EQ(colormap_color(Colormap::kGray, -3.0), rgba(0, 0, 0));
  EXPECT_EQ(colormap_color(Colormap::kGray, NAN), rgba(0, 0, 0));
  // viridis runs from dark purple to yellow (matplotlib: #440154 .. #fde725, within the fit's
  // error).
  const uint32_t v0 = colormap_color(Colormap::kViridis, 0.0);
  const uint32_t v1 = colormap_color(Colormap::kViridis, 1.0);
  EXPECT_NEAR(double(v0 & 255), 0x44, 6);
  EXPECT_NEAR(double((v0 >> 16) & 255), 0x54, 6);
  EXPECT_NEAR(double(v1 & 255), 0xfd, 6);
  EXPECT_NEAR(double((v1 >> 8) & 255), 0xe7, 6);
  for (int m = 0; m < kColormapCount; ++m)
    EXPECT_NE(colormap_color(Colormap(m), 0.0), colormap_color(Colormap(m), 1.0));
}

TEST(Colorize, DefaultRule) {
  PointCloud c = line_cloud(1000);
  EXPECT_EQ(default_color_mode(c), ColorMode::kElevation);  // one color, no intensity
  c.intensity.assign(1000, 7.0f);
  EXPECT_EQ(default_color_mode(c), ColorMode::kElevation);  // intensity that does not vary
  for (size_t i = 0; i < 1000; ++i) c.intensity[i] = float(i % 13);
  EXPECT_EQ(default_color_mode(c), ColorMode::kIntensity);
  c.colors[500] = rgba(1, 2, 3);
  EXPECT_EQ(default_color_mode(c), ColorMode::kRgb);  // real colors
  // Colors set aside by another mode still count.
  PodVector<uint32_t> shown;
  ColorSettings s;
  s.mode = ColorMode::kElevation;
  ASSERT_TRUE(colorize(c, s, shown, nullptr, nullptr));
  set_display_colors(c, s.mode, std::move(shown));
  EXPECT_EQ(default_color_mode(c), ColorMode::kRgb);
}

TEST(Colorize, IntensityFollowsTheColormapAndGamma) {
  PointCloud c = line_cloud(5000);
  c.intensity.resize(5000);
  for (size_t i = 0; i < 5000; ++i) c.intensity[i] = float(i);
  for (double gamma : {1.0, 2.2}) {
    ColorSettings s;
    s.mode = ColorMode::kIntensity;
    s.colormap = Colormap::kTurbo;
    s.gamma = gamma;
    s.auto_range = false;
    s.range_lo = 0.0;
    s.range_hi = 4096.0;
    PodVector<uint32_t> out;
    Legend lg;
    ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
    EXPECT_TRUE(lg.continuous);
    EXPECT_EQ(lg.lo, 0.0);
    EXPECT_EQ(lg.hi, 4096.0);
    for (size_t i : {size_t(0), size_t(1), size_t(100), size_t(2048), size_t(4000), size_t(4096),
                     size_t(4999)}) {
      const double t = std::min(1.0, double(i) / 4096.0);
      EXPECT_EQ(out[i], colormap_color(Colormap::kTurbo, std::pow(t, 1.0 / gamma)))
          << "intensity " << i << " gamma " << gamma;
    }
  }
  // The automatic range: the 1st and 99th percentile.
  ColorSettings s;
  s.mode = ColorMode::kIntensity;
  double lo, hi;
  ASSERT_TRUE(color_range(c, s, &lo, &hi));
  EXPECT_NEAR(lo, 50.0, 2.0);
  EXPECT_NEAR(hi, 4950.0, 2.0);
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  EXPECT_EQ(out[0], colormap_color(Colormap::kViridis, 0.0));     // below the 1st percentile
  EXPECT_EQ(out[4999], colormap_color(Colormap::kViridis, 1.0));  // above the 99th
}

TEST(Colorize, ElevationAtTheBounds) {
  PointCloud c = line_cloud(300);
  c.origin = {1000.0, 2000.0, 500.0};
  for (int up : {2, 1}) {
    ColorSettings s;
    s.mode = ColorMode::kElevation;
    s.colormap = Colormap::kInferno;
    s.up_axis = up;
    PodVector<uint32_t> out;
    Legend lg;
    ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
    const Bounds b = c.world_bounds();
    EXPECT_EQ(lg.lo, b.min[up]);
    EXPECT_EQ(lg.hi, b.max[up]);
    size_t lowest = 0, highest = 0;
    for (size_t i = 0; i < c.size(); ++i) {
      const float v = up == 2 ? c.positions[i].z : c.positions[i].y;
      const float vl = up == 2 ? c.positions[lowest].z : c.positions[lowest].y;
      const float vh = up == 2 ? c.positions[highest].z : c.positions[highest].y;
      if (v < vl) lowest = i;
      if (v > vh) highest = i;
    }
    EXPECT_EQ(out[lowest], colormap_color(Colormap::kInferno, 0.0));
    EXPECT_EQ(out[highest], colormap_color(Colormap::kInferno, 1.0));
    // An adjusted range: the middle of the cloud becomes the top of the colormap.
    s.auto_range = false;
    s.range_lo = lg.lo;
    s.range_hi = (lg.lo + lg.hi) * 0.5;
    ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
    EXPECT_EQ(out[highest], colormap_color(Colormap::kInferno, 1.0));
  }
}

TEST(Colorize, ClassesReturnsSourcesAndFields) {
  PointCloud c = line_cloud(512);
  c.classification.resize(512);
  c.returns.resize(512);
  c.point_source.resize(512);
  ScalarField f{"Deviation", {}};
  f.values.resize(512);
  for (size_t i = 0; i < 512; ++i) {
    c.classification[i] = uint8_t(i % 30);
    c.returns[i] = pack_returns(unsigned(i % 4) + 1, unsigned(i % 3) + 1);
    c.point_source[i] = uint16_t(i % 7);
    f.values[i] = float(i) * 0.5f;
  }
  c.fields.push_back(f);
  PodVector<uint32_t> out;
  Legend lg;
  ColorSettings s;
  s.mode = ColorMode::kClassification;
  ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
  for (size_t i = 0; i < 512; ++i) ASSERT_EQ(out[i], class_color(c.classification[i])) << i;
  EXPECT_EQ(lg.class_counts[2], 17u);  // 2, 32, ..., 482
  EXPECT_EQ(lg.class_counts[29], 17u);
  EXPECT_EQ(lg.class_counts[30], 0u);
  EXPECT_EQ(class_name(2), "ground");
  EXPECT_EQ(class_name(9), "water");
  EXPECT_EQ(class_name(40), "reserved 40");
  EXPECT_EQ(class_name(200), "user 200");
  std::set<uint32_t> palette;
  for (int k = 0; k < 23; ++k) palette.insert(class_color(uint8_t(k)));
  EXPECT_EQ(palette.size(), 23u);  // the standard classes' colors differ

  s.mode = ColorMode::kReturn;
  ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
  uint64_t total = 0;
  for (size_t i = 0; i < 512; ++i) {
    const unsigned n = unsigned(i % 4) + 1, k = unsigned(i % 3) + 1;
    const ReturnKind want = k == 1   ? ReturnKind::kSingle
                            : n == 1 ? ReturnKind::kFirst
                            : n >= k ? ReturnKind::kLast
                                     : ReturnKind::kIntermediate;
    ASSERT_EQ(out[i], return_color(want)) << i;
  }
  for (uint64_t r : lg.return_counts) total += r;
  EXPECT_EQ(total, 512u);

  s.mode = ColorMode::kSource;
  ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
  std::set<uint32_t> sources;
  for (size_t i = 0; i < 512; ++i) {
    ASSERT_EQ(out[i], source_color(c.point_source[i]));
    sources.insert(out[i]);
  }
  EXPECT_EQ(sources.size(), 7u);

  s.mode = ColorMode::kField;
  s.field = "Deviation";
  s.colormap = Colormap::kGray;
  ASSERT_TRUE(colorize(c, s, out, &lg, nullptr));
  EXPECT_EQ(lg.lo, 0.0);
  EXPECT_EQ(lg.hi, 255.5);
  EXPECT_EQ(out[0], rgba(0, 0, 0));
  EXPECT_EQ(out[511], rgba(255, 255, 255));
  EXPECT_EQ(out[200], colormap_color(Colormap::kGray, 100.0 / 255.5));

  s.field = "nosuch";
  std::string err;
  EXPECT_FALSE(colorize(c, s, out, &lg, &err));
  EXPECT_NE(err.find("no field 'nosuch' (fields: Deviation)"), std::string::npos) << err;
  PointCloud bare = line_cloud(10);
  s.mode = ColorMode::kIntensity;
  EXPECT_FALSE(colorize(bare, s, out, &lg, &err));
  EXPECT_EQ(err, "the cloud has no intensity");
  EXPECT_FALSE(color_mode_available(bare, ColorMode::kClassification, ""));
  EXPECT_TRUE(color_mode_available(bare, ColorMode::kElevation, ""));
}

TEST(Colorize, FileColorsComeBackForRgb) {
  PointCloud c = red_line_cloud();
  const PodVector<uint32_t> file = c.colors;
  ColorSettings s;
  s.mode = ColorMode::kElevation;
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  set_display_colors(c, s.mode, std::move(out));
  EXPECT_EQ(c.file_colors, file);
  EXPECT_NE(c.colors, file);
  s.mode = ColorMode::kRgb;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  EXPECT_EQ(out, file);
  set_display_colors(c, ColorMode::kRgb, std::move(out));
  EXPECT_EQ(c.colors, file);
  EXPECT_TRUE(c.file_colors.empty());
}

TEST(Colorize, RecipesGiveColorizesColors) {
  const PointCloud c = test::attribute_cloud(20000, 5);
  const Bounds bounds = c.world_bounds();
  for (const ColorSettings& s : test::recipe_settings()) {
    const std::string what = std::string(color_mode_name(s.mode)) + " gamma " +
                             std::to_string(s.gamma) + " auto " + std::to_string(s.auto_range);
    PodVector<uint32_t> colors;
    ASSERT_TRUE(colorize(c, s, colors, nullptr, nullptr, &bounds)) << what;
    ColorRecipe r;
    ASSERT_TRUE(color_recipe(c, s, &r, &bounds)) << what;
    EXPECT_EQ(r.values == nullptr, s.mode == ColorMode::kElevation) << what;
    size_t differ = 0, first = 0;
    std::set<uint32_t> distinct;
    for (size_t i = 0; i < c.size(); ++i) {
      const uint32_t v = recipe_color(r, c, i);
      distinct.insert(v);
      if (v != colors[i] && differ++ == 0) first = i;
    }
    EXPECT_EQ(differ, 0u) << what << ": first at point " << first;
    EXPECT_GT(distinct.size(), 3u) << what;  // the values reach many colors
  }
  ColorSettings none;
  ColorRecipe r;
  none.mode = ColorMode::kField;
  none.field = "nothing";
  EXPECT_FALSE(color_recipe(c, none, &r));
}

TEST(Colorize, SetDisplayColorsReleasesTheArrayShownBefore) {
  PointCloud c = red_line_cloud();
  const PodVector<uint32_t> file = c.colors;
  ColorSettings s;
  s.mode = ColorMode::kElevation;
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  const PodVector<uint32_t> elevation = out;
  const uint32_t* elevation_data = out.data();
  // The file's colors go aside: nothing to release.
  EXPECT_TRUE(set_display_colors(c, s.mode, std::move(out)).empty());
  // The next mode fills the released array in place and releases the one shown before.
  s.mode = ColorMode::kIntensity;
  c.intensity.assign(100, 5.0f);
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  PodVector<uint32_t> released = set_display_colors(c, s.mode, std::move(out));
  EXPECT_EQ(released, elevation);
  EXPECT_EQ(released.data(), elevation_data);
  s.mode = ColorMode::kElevation;
  ASSERT_TRUE(colorize(c, s, released, nullptr, nullptr));
  EXPECT_EQ(released.data(), elevation_data);  // no new allocation
  EXPECT_EQ(released, elevation);
  const PodVector<uint32_t> intensity = c.colors;
  EXPECT_EQ(set_display_colors(c, s.mode, std::move(released)), intensity);
  // RGB brings the file's colors back and releases the mode's array.
  EXPECT_EQ(set_display_colors(c, ColorMode::kRgb, PodVector<uint32_t>()), elevation);
  EXPECT_EQ(c.colors, file);
  EXPECT_TRUE(c.file_colors.empty());
  // Already showing the file's colors: nothing of the cloud's is released.
  EXPECT_TRUE(set_display_colors(c, ColorMode::kRgb, PodVector<uint32_t>()).empty());
  EXPECT_EQ(c.colors, file);
}

/// A 40 x 40 grid at z = 0 seen from above: class 2 on the left half, class 6 on the right.
PointCloud two_class_grid() {
  PointCloud c;
  c.resize(1600);
  c.classification.resize(1600);
  for (size_t i = 0; i < 1600; ++i) {
    const float x = float(i % 40) - 19.5f, y = float(i / 40) - 19.5f;
    c.positions[i] = Float3{x, y, 0.0f};
    c.colors[i] = rgba(255, 255, 255);
    c.classification[i] = x < 0 ? 2 : 6;
  }
  return c;
}

Camera top_camera() {
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  cam.position = {0.0, 0.0, 60.0};
  cam.pitch = 0.0;
  cam.look_at({0.0, 0.001, 0.0});
  cam.focus = 1.5;
  return cam;
}

size_t count_color(const Image& img, uint32_t c) {
  size_t n = 0;
  for (uint32_t p : img.rgba) n += p == c;
  return n;
}

size_t count_drawn_other(const Image& img, uint32_t background) {
  return img.rgba.size() - count_color(img, background);
}

TEST(Colorize, HiddenClassesDrawNoPixel) {
  PointCloud c = two_class_grid();
  ColorSettings s;
  s.mode = ColorMode::kClassification;
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  set_display_colors(c, s.mode, std::move(out));
  CpuRenderer r(2);
  std::string err;
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings rs;
  rs.width = 160;
  rs.height = 120;
  rs.point_size = 2;
  rs.background = rgba(1, 2, 3);
  Image all, some;
  FrameStats st;
  ASSERT_TRUE(r.render(top_camera(), rs, all, st, &err)) << err;
  const uint32_t ground = class_color(2), building = class_color(6);
  ASSERT_GT(count_color(all, ground), 100u);
  ASSERT_GT(count_color(all, building), 100u);

  std::array<bool, 256> hidden{};
  hidden[2] = true;
  HiddenPoints stash;
  EXPECT_TRUE(apply_class_filter(c, hidden, stash));
  EXPECT_EQ(stash.index.size(), 800u);
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  ASSERT_TRUE(r.render(top_camera(), rs, some, st, &err)) << err;
  EXPECT_EQ(count_color(some, ground), 0u);
  EXPECT_EQ(count_color(some, building), count_color(all, building));
  // Compact positions skip them too.
  RenderOptions o;
  o.compact = true;
  r.set_options(o);
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  ASSERT_TRUE(r.render(top_camera(), rs, some, st, &err)) << err;
  EXPECT_EQ(count_color(some, ground), 0u);
  r.set_options(RenderOptions{});

  hidden[2] = false;
  EXPECT_TRUE(apply_class_filter(c, hidden, stash));
  EXPECT_TRUE(stash.empty());
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  ASSERT_TRUE(r.render(top_camera(), rs, some, st, &err)) << err;
  EXPECT_EQ(some.rgba, all.rgba);
  EXPECT_FALSE(apply_class_filter(c, hidden, stash));  // nothing hidden, nothing changed
}

TEST(Colorize, CpuRendererTakesNewColors) {
  PointCloud c = two_class_grid();
  CpuRenderer r(2);
  std::string err;
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  RenderSettings rs;
  rs.width = 160;
  rs.height = 120;
  Image img;
  FrameStats st;
  ASSERT_TRUE(r.render(top_camera(), rs, img, st, &err));
  EXPECT_GT(count_color(img, rgba(255, 255, 255)), 100u);
  ColorSettings s;
  s.mode = ColorMode::kClassification;
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, nullptr));
  set_display_colors(c, s.mode, std::move(out));
  ASSERT_TRUE(r.update_colors(c, &err)) << err;
  ASSERT_TRUE(r.render(top_camera(), rs, img, st, &err));
  EXPECT_EQ(count_color(img, rgba(255, 255, 255)), 0u);
  EXPECT_GT(count_color(img, class_color(6)), 100u);
  PointCloud other = two_class_grid();
  EXPECT_FALSE(r.update_colors(other, &err));
}

TEST(Colorize, AutzenClassesIntensityAndReturns) {
  REQUIRE_TESTDATA("las");
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(load_point_cloud(kData + "/las/autzen_trim.las", c, &info, &err)) << err;
  ASSERT_EQ(c.intensity.size(), c.size());
  ASSERT_EQ(c.classification.size(), c.size());
  ASSERT_EQ(c.returns.size(), c.size());
  ASSERT_EQ(c.point_source.size(), c.size());
  std::set<int> classes;
  for (uint8_t k : c.classification) classes.insert(k);
  EXPECT_TRUE(classes.count(2)) << "autzen has ground points";
  size_t bad_returns = 0;
  for (uint8_t r : c.returns)
    bad_returns += return_number(r) < 1 || return_number(r) > return_count(r);
  EXPECT_EQ(bad_returns, 0u);

  ColorSettings s;
  s.mode = ColorMode::kClassification;
  PodVector<uint32_t> out;
  Legend lg;
  ASSERT_TRUE(colorize(c, s, out, &lg, &err)) << err;
  for (size_t i = 0; i < c.size(); i += 97) ASSERT_EQ(out[i], class_color(c.classification[i]));
  uint64_t total = 0;
  for (uint64_t k : lg.class_counts) total += k;
  EXPECT_EQ(total, c.size());
  std::set<uint32_t> present_colors;
  for (int k : classes) present_colors.insert(class_color(uint8_t(k)));
  ASSERT_EQ(present_colors.size(), classes.size());
  set_display_colors(c, s.mode, std::move(out));

  // Drawn from above, then with the ground hidden: no pixel keeps the ground's color.
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  Camera cam;
  cam.up_axis = UpAxis::kZ;
  cam.yaw = 0.0;
  cam.pitch = -0.5;
  cam.focus = 1.5;
  cam.frame(c.world_bounds(), 4.0 / 3.0);
  RenderSettings rs;
  rs.width = 320;
  rs.height = 240;
  rs.background = rgba(1, 2, 3);
  Image img;
  FrameStats st;
  ASSERT_TRUE(r.render(cam, rs, img, st, &err)) << err;
  ASSERT_GT(count_color(img, class_color(2)), 1000u);
  std::array<bool, 256> hidden{};
  hidden[2] = true;
  HiddenPoints stash;
  ASSERT_TRUE(apply_class_filter(c, hidden, stash));
  EXPECT_EQ(stash.index.size(), lg.class_counts[2]);
  ASSERT_TRUE(r.set_cloud(c, &err)) << err;
  ASSERT_TRUE(r.render(cam, rs, img, st, &err)) << err;
  EXPECT_EQ(count_color(img, class_color(2)), 0u);
  EXPECT_GT(count_drawn_other(img, rs.background), 0u);

  // Intensity varies and the file has no real colors... or it has: the default rule decides.
  EXPECT_EQ(default_color_mode(c), info.has_color ? ColorMode::kRgb : ColorMode::kIntensity);
}

TEST(Colorize, LasGpsTimeAndSourcesOfFormat1) {
  REQUIRE_TESTDATA("las");
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(load_point_cloud(kData + "/las/1.2_1.las", c, &info, &err)) << err;
  ASSERT_EQ(c.gps_time.size(), c.size());
  bool any = false;
  for (double t : c.gps_time) any |= t != 0.0;
  EXPECT_TRUE(any);
  PointCloud c0;
  ASSERT_TRUE(load_point_cloud(kData + "/las/1.2_0.las", c0, &info, &err)) << err;
  EXPECT_TRUE(c0.gps_time.empty());  // format 0 has none: it costs nothing
  EXPECT_EQ(c0.returns.size(), c0.size());
}

TEST(Colorize, PlyScalarPropertiesBecomeFields) {
  std::string f =
      "ply\nformat binary_little_endian 1.0\nelement vertex 3\nproperty float x\n"
      "property float y\nproperty float z\nproperty float Deviation\nproperty uchar label\n"
      "end_header\n";
  for (int i = 0; i < 3; ++i) {
    const float xyzd[4] = {float(i), 2.0f * float(i), 0.5f, 0.25f * float(i)};
    f.append(reinterpret_cast<const char*>(xyzd), sizeof xyzd);
    f.push_back(char(7 + i));
  }
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(
      parse_point_cloud(f.data(), f.size(), "fields.ply", FileFormat::kUnknown, c, &info, &err))
      << err;
  ASSERT_EQ(c.size(), 3u);
  ASSERT_EQ(c.fields.size(), 2u);
  ASSERT_NE(c.field("Deviation"), nullptr);
  ASSERT_NE(c.field("label"), nullptr);
  EXPECT_EQ(c.field("Deviation")->values[2], 0.5f);
  EXPECT_EQ(c.field("label")->values[1], 8.0f);
  ColorSettings s;
  ASSERT_TRUE(parse_color_mode("Deviation", &s.mode, &s.field));
  s.colormap = Colormap::kGray;
  PodVector<uint32_t> out;
  ASSERT_TRUE(colorize(c, s, out, nullptr, &err)) << err;
  EXPECT_EQ(out[0], rgba(0, 0, 0));
  EXPECT_EQ(out[1], colormap_color(Colormap::kGray, 0.5));
  EXPECT_EQ(out[2], rgba(255, 255, 255));
}

TEST(Colorize, PcdFieldsBecomeFields) {
  std::string f =
      "VERSION 0.7\nFIELDS x y z curvature\nSIZE 4 4 4 4\nTYPE F F F F\nCOUNT 1 1 1 1\n"
      "WIDTH 4\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS 4\nDATA binary\n";
  for (int i = 0; i < 4; ++i) {
    const float v[4] = {float(i), 0.0f, 1.0f, 0.125f * float(i)};
    f.append(reinterpret_cast<const char*>(v), sizeof v);
  }
  PointCloud c;
  FileInfo info;
  std::string err;
  ASSERT_TRUE(
      parse_point_cloud(f.data(), f.size(), "fields.pcd", FileFormat::kUnknown, c, &info, &err))
      << err;
  ASSERT_EQ(c.size(), 4u);
  ASSERT_EQ(c.fields.size(), 1u);
  ASSERT_NE(c.field("curvature"), nullptr);
  EXPECT_EQ(c.field("curvature")->values[3], 0.375f);
}

TEST(Colorize, LasExtraBytesBecomeFields) {
  REQUIRE_TESTDATA("las");
  PointCloud c;
  FileInfo info;
  std::string err;
  // Values as laspy reads them: Colors (an array, skipped), Reserved (undocumented bytes),
  // Flags (an array), then the scalars Intensity and Time.
  ASSERT_TRUE(load_point_cloud(kData + "/las/extrabytes.las", c, &info, &err)) << err;
  ASSERT_EQ(c.size(), 1065u);
  ASSERT_NE(c.field("Intensity"), nullptr);
  ASSERT_NE(c.field("Time"), nullptr);
  EXPECT_EQ(c.fields.size(), 2u);
  EXPECT_EQ(c.field("Intensity")->values[0], 143.0f);
  EXPECT_EQ(c.field("Intensity")->values[1], 18.0f);
  EXPECT_EQ(c.field("Time")->values[2], 245382.0f);
}

TEST(Colorize, AppendKeepsAttributesAligned) {
  PointCloud a = line_cloud(10), b = line_cloud(5);
  a.intensity.assign(10, 3.0f);
  a.returns.assign(10, pack_returns(2, 3));
  a.fields.push_back({"a", PodVector<float>(10, 1.0f)});
  b.classification.assign(5, 6);
  b.gps_time.assign(5, 42.0);
  b.fields.push_back({"b", PodVector<float>(5, 2.0f)});
  append_cloud(a, b);
  ASSERT_EQ(a.size(), 15u);
  EXPECT_EQ(a.intensity.size(), 15u);
  EXPECT_EQ(a.intensity[12], 0.0f);
  EXPECT_EQ(a.classification.size(), 15u);
  EXPECT_EQ(a.classification[3], 0);
  EXPECT_EQ(a.classification[12], 6);
  EXPECT_EQ(a.returns.size(), 15u);
  EXPECT_EQ(a.returns[12], pack_returns(1, 1));
  EXPECT_EQ(a.gps_time.size(), 15u);
  EXPECT_EQ(a.gps_time[0], 0.0);
  EXPECT_EQ(a.gps_time[14], 42.0);
  EXPECT_TRUE(a.point_source.empty());
  ASSERT_EQ(a.fields.size(), 2u);
  ASSERT_NE(a.field("a"), nullptr);
  ASSERT_NE(a.field("b"), nullptr);
  EXPECT_EQ(a.field("a")->values.size(), 15u);
  EXPECT_EQ(a.field("a")->values[12], 0.0f);
  EXPECT_EQ(a.field("b")->values[3], 0.0f);
  EXPECT_EQ(a.field("b")->values[12], 2.0f);
}

}  // namespace
}  // namespace pr
