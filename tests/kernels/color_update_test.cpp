// Color modes on the GPU: after Renderer::update_colors() (the colors packed and uploaded again
// in the stored order, positions untouched) the GPU draws the CPU's image pixel for pixel, for
// clouds stored in their own order and along a Morton curve, with float and compact positions,
// subsets of a sorted cloud included; and hidden classes (NaN positions) vanish from both images
// alike. Colors computed on the GPU from a ColorRecipe (Renderer::stage_recipe()) draw the
// CPU's image of colorize()'s colors. Skips without a device.
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../common/attribute_cloud.h"
#include "../engine/random_camera.h"
#include "engine/colorize.h"
#include "engine/cpu_renderer.h"
#include "engine/io/io.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

/// The cube scene (random order) with classes, returns and intensity made up from the positions.
PointCloud attributed_cube() {
  PointCloud c = make_scene("cube", 300'000);
  const size_t n = c.size();
  c.classification.resize(n);
  c.intensity.resize(n);
  c.returns.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Float3 p = c.positions[i];
    c.classification[i] = uint8_t(int(p.x + 50.0f) / 10 % 12);
    c.intensity[i] = p.y * 10.0f + 500.0f;
    c.returns[i] = pack_returns(unsigned(i % 3) + 1, 3);
  }
  return c;
}

void expect_same(Renderer& cpu, Renderer& gpu, const PointCloud& cloud, const std::string& what) {
  std::mt19937 rng(11);
  for (int k = 0; k < 6; ++k) {
    RenderSettings rs;
    rs.width = 320;
    rs.height = 240;
    rs.point_size = 1 + k % 2;
    rs.background = kBackground;
    if (k == 5)
      rs.point_count = cloud.size() / 3;  // a subset: the original index of a sorted cloud
    Camera cam = test::random_camera(rng, cloud.world_bounds());
    if (k % 2 == 0) cam.frame(cloud.world_bounds(), 4.0 / 3.0);
    Image c, g;
    FrameStats cs, gs;
    std::string err;
    ASSERT_TRUE(cpu.render(cam, rs, c, cs, &err)) << what << ": " << err;
    ASSERT_TRUE(gpu.render(cam, rs, g, gs, &err)) << what << ": " << err;
    std::string first;
    EXPECT_EQ(test::count_diff(c, g, &first), 0u) << what << ", camera " << k << ": " << first;
  }
}

/// Both renderers with compact positions or not, in a stored order, holding `cloud`.
void give_both(CpuRenderer& cpu, Renderer& gpu, const PointCloud& cloud, bool compact,
               Toggle sort) {
  RenderOptions o;
  o.compact = compact;
  o.sort = sort;
  test::set_both(cpu, gpu, cloud, o);
}

TEST(ColorUpdate, GpuDrawsTheCpuImageAfterEveryMode) {
  PR_REQUIRE_GPU(gpu);
  for (bool compact : {false, true}) {
    for (Toggle sort : {Toggle::kOff, Toggle::kOn}) {
      const std::string name =
          std::string(compact ? "compact" : "float") + ", sort " + toggle_name(sort);
      PointCloud cloud = attributed_cube();
      CpuRenderer cpu;
      ASSERT_NO_FATAL_FAILURE(give_both(cpu, *gpu, cloud, compact, sort));
      std::string err;
      EXPECT_EQ(gpu->cloud_sorted(), sort == Toggle::kOn) << name;
      expect_same(cpu, *gpu, cloud, name + ", rgb");
      for (const char* mode :
           {"classification", "intensity", "elevation", "return", "rgb", "classification"}) {
        ColorSettings s;
        parse_color_mode(mode, &s.mode, &s.field);
        s.colormap = Colormap::kTurbo;
        PodVector<uint32_t> colors;
        ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err)) << err;
        set_display_colors(cloud, s.mode, std::move(colors));
        ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
        ASSERT_TRUE(gpu->update_colors(cloud, &err)) << name << ": " << err;
        expect_same(cpu, *gpu, cloud, name + ", " + mode);
      }
      // Hidden classes: NaN positions, handed over again; neither renderer draws them.
      std::array<bool, 256> hidden{};
      hidden[3] = hidden[4] = true;
      HiddenPoints stash;
      ASSERT_TRUE(apply_class_filter(cloud, hidden, stash));
      ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
      ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
      expect_same(cpu, *gpu, cloud, name + ", classes 3 and 4 hidden");
      RenderSettings rs;
      rs.width = 320;
      rs.height = 240;
      rs.background = kBackground;
      Camera cam;
      cam.frame(cloud.world_bounds(), 4.0 / 3.0);
      Image g;
      FrameStats gs;
      ASSERT_TRUE(gpu->render(cam, rs, g, gs, &err)) << err;
      size_t hidden_pixels = 0;
      for (uint32_t p : g.rgba) hidden_pixels += p == class_color(3) || p == class_color(4);
      EXPECT_EQ(hidden_pixels, 0u) << name;
      // Another cloud is refused.
      PointCloud other = attributed_cube();
      EXPECT_FALSE(gpu->update_colors(other, &err));
    }
  }
}

/// Staged colors (Renderer::stage_colors()) from another thread while this one draws frames of the
/// current colors, then swapped in by update_colors(): the CPU's image, in every storage; colors
/// staged for another array than the one the cloud ends up with are not taken (update_colors()
/// uploads the cloud's own); a sorted cloud without its original index is not staged.
TEST(ColorUpdate, StagedColorsFromAnotherThread) {
  PR_REQUIRE_GPU(gpu);
  for (bool compact : {false, true}) {
    for (Toggle sort : {Toggle::kOff, Toggle::kOn}) {
      const std::string name =
          std::string(compact ? "compact" : "float") + ", sort " + toggle_name(sort);
      PointCloud cloud = attributed_cube();
      CpuRenderer cpu;
      ASSERT_NO_FATAL_FAILURE(give_both(cpu, *gpu, cloud, compact, sort));
      std::string err;
      const bool needs_index = sort == Toggle::kOn;
      for (const char* mode : {"classification", "intensity", "rgb", "return"}) {
        ColorSettings s;
        parse_color_mode(mode, &s.mode, &s.field);
        PodVector<uint32_t> colors;
        ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err)) << err;
        const uint32_t* drawn =
            s.mode == ColorMode::kRgb ? cloud.source_colors().data() : colors.data();
        bool staged = false;
        std::string stage_err;
        std::thread worker([&] { staged = gpu->stage_colors(cloud, drawn, &stage_err); });
        Camera cam;
        cam.frame(cloud.world_bounds(), 4.0 / 3.0);
        RenderSettings rs;
        rs.width = 320;
        rs.height = 240;
        for (int f = 0; f < 5; ++f) {  // frames of the old colors meanwhile
          Image g;
          FrameStats gs;
          EXPECT_TRUE(gpu->render(cam, rs, g, gs, &err)) << err;
        }
        worker.join();
        // A cloud sorted on the GPU makes its original index at the first synchronous update.
        EXPECT_TRUE(staged || needs_index) << name << ", " << mode << ": " << stage_err;
        set_display_colors(cloud, s.mode, std::move(colors));
        ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
        ASSERT_TRUE(gpu->update_colors(cloud, &err)) << name << ": " << err;
        expect_same(cpu, *gpu, cloud, name + ", staged " + mode);
      }
      // Staged for an array the cloud does not end up with: not taken.
      ColorSettings s;
      s.mode = ColorMode::kElevation;
      PodVector<uint32_t> a, b;
      ASSERT_TRUE(colorize(cloud, s, a, nullptr, &err)) << err;
      s.mode = ColorMode::kClassification;
      ASSERT_TRUE(colorize(cloud, s, b, nullptr, &err)) << err;
      EXPECT_TRUE(gpu->stage_colors(cloud, a.data(), &err)) << name << ": " << err;
      set_display_colors(cloud, ColorMode::kClassification, std::move(b));
      ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
      ASSERT_TRUE(gpu->update_colors(cloud, &err)) << err;
      expect_same(cpu, *gpu, cloud, name + ", staged for another array");
      // Another cloud is not staged.
      PointCloud other = attributed_cube();
      EXPECT_FALSE(gpu->stage_colors(other, other.colors.data(), &err));
    }
  }
}

/// Colors from a recipe, computed on the GPU and shown before the host has them, then colorize()'s
/// copy handed to the CPU (the GPU takes nothing more): the same image, in every storage. Compact
/// positions are not the cloud's own, so elevation is refused there; the values read are kept
/// (memory_bytes()); nothing is shown for another cloud or without a staged recipe.
TEST(ColorUpdate, RecipeColorsOnTheGpuEqualColorize) {
  PR_REQUIRE_GPU(gpu);
  for (bool compact : {false, true}) {
    for (Toggle sort : {Toggle::kOff, Toggle::kOn}) {
      const std::string name =
          std::string(compact ? "compact" : "float") + ", sort " + toggle_name(sort);
      PointCloud cloud = test::attribute_cloud(300'000, 9);
      const Bounds bounds = cloud.world_bounds();
      CpuRenderer cpu;
      ASSERT_NO_FATAL_FAILURE(give_both(cpu, *gpu, cloud, compact, sort));
      std::string err;
      EXPECT_FALSE(gpu->show_staged_recipe(cloud)) << name;
      // The frame buffers made, and a sorted storage's original index (for the subset).
      expect_same(cpu, *gpu, cloud, name + ", the file's colors");
      const size_t bytes0 = gpu->memory_bytes();
      for (const ColorSettings& s : test::recipe_settings()) {
        const std::string what =
            name + ", " + color_mode_name(s.mode) + " axis " + std::to_string(s.up_axis);
        ColorRecipe r;
        ASSERT_TRUE(color_recipe(cloud, s, &r, &bounds)) << what;
        const bool can = !(compact && s.mode == ColorMode::kElevation);
        const bool staged = gpu->stage_recipe(cloud, r, &err);
        EXPECT_EQ(staged, can) << what << ": " << err;
        if (staged) {
          EXPECT_TRUE(gpu->show_staged_recipe(cloud)) << what;
        }
        PodVector<uint32_t> colors;
        ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err, &bounds)) << err;
        set_display_colors(cloud, s.mode, std::move(colors));
        ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
        if (!staged) {
          ASSERT_TRUE(gpu->update_colors(cloud, &err)) << what << ": " << err;
        }
        expect_same(cpu, *gpu, cloud, what);
      }
      // The values kept: intensities and the field 4 bytes a point, classes and returns 1,
      // sources 2; and the file's colors, packed (3), set aside at the first recipe's swap and
      // copied back for RGB.
      EXPECT_EQ(gpu->memory_bytes(), bytes0 + 15 * cloud.size()) << name;
      PointCloud other = test::attribute_cloud(1000, 3);
      ColorRecipe r;
      ColorSettings s;
      s.mode = ColorMode::kClassification;
      ASSERT_TRUE(color_recipe(other, s, &r));
      EXPECT_FALSE(gpu->stage_recipe(other, r, &err)) << name;
      EXPECT_FALSE(gpu->show_staged_recipe(other)) << name;
    }
  }
}

/// The values kept on the device are a cache under the memory limit: a mode whose values do not
/// fit beside the others' drops those first, and one that cannot fit at all takes the host's
/// path; the file's colors a recipe's swap replaces are kept (3 bytes a point) when there is room,
/// and RGB's recipe copies them back. The GPU draws the CPU's image every time.
TEST(ColorUpdate, KeptValuesMakeRoomForTheNextMode) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud = test::attribute_cloud(4'000'000, 12);
  const size_t n = cloud.size();
  CpuRenderer cpu;
  ASSERT_NO_FATAL_FAILURE(give_both(cpu, *gpu, cloud, false, Toggle::kOff));
  expect_same(cpu, *gpu, cloud, "the file's colors");
  const size_t bytes0 = gpu->memory_bytes();
  const Bounds bounds = cloud.world_bounds();
  std::string err;
  // Switches to `mode` through its recipe; then `kept` bytes a point of values are on the device.
  auto switch_to = [&](const char* mode, size_t kept) {
    ColorSettings s;
    ASSERT_TRUE(parse_color_mode(mode, &s.mode, &s.field)) << mode;
    ColorRecipe r;
    ASSERT_TRUE(color_recipe(cloud, s, &r, &bounds)) << mode;
    EXPECT_TRUE(gpu->stage_recipe(cloud, r, &err)) << mode << ": " << err;
    EXPECT_TRUE(gpu->show_staged_recipe(cloud)) << mode;
    PodVector<uint32_t> colors;
    ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err, &bounds)) << err;
    set_display_colors(cloud, s.mode, std::move(colors));
    ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
    expect_same(cpu, *gpu, cloud, mode);
    EXPECT_EQ(gpu->memory_bytes(), bytes0 + kept * n) << mode;
  };
  // The limit caps the cloud's storage and what is kept (not the frames' buffers, under n / 2
  // bytes at 320x240, which bytes0 counts too): room for 5.5 bytes a point. The file's colors
  // (3) do not fit beside intensities (4).
  gpu->set_memory_limit(bytes0 + 5 * n + n / 2);
  switch_to("intensity", 4);
  switch_to("classification", 5);  // 4 + 1
  switch_to("intensity", 5);       // kept already
  switch_to("Deviation", 4);       // a field: 4 + 1 + 4 does not fit, the others are dropped
  switch_to("rgb", 4);             // the file's colors as values: likewise
  // The file's colors shown (from the values) go aside, packed (3), in the room of RGB's values.
  switch_to("classification", 4);  // 1 + 3
  gpu->set_memory_limit(0);
  switch_to("rgb", 4);        // copied back from those
  switch_to("intensity", 8);  // 1 + 3 + 4
  switch_to("rgb", 8);
  switch_to("classification", 8);
  // Room for 2 bytes a point: the field's values (not kept now) never fit, everything kept is
  // dropped, and the host's colors are drawn instead.
  gpu->set_memory_limit(bytes0 + 2 * n);
  ColorSettings s;
  s.mode = ColorMode::kField;
  s.field = "Deviation";
  ColorRecipe r;
  ASSERT_TRUE(color_recipe(cloud, s, &r, &bounds));
  EXPECT_FALSE(gpu->stage_recipe(cloud, r, &err));
  EXPECT_NE(err.find("Deviation"), std::string::npos) << err;
  EXPECT_FALSE(gpu->show_staged_recipe(cloud));
  PodVector<uint32_t> colors;
  ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err, &bounds)) << err;
  set_display_colors(cloud, s.mode, std::move(colors));
  ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
  ASSERT_TRUE(gpu->update_colors(cloud, &err)) << err;
  expect_same(cpu, *gpu, cloud, "the field from the host");
  EXPECT_EQ(gpu->memory_bytes(), bytes0);
  gpu->set_memory_limit(0);
}

/// The test data's airborne scan by class and by intensity, sorted and not.
TEST(ColorUpdate, AutzenByClassAndIntensity) {
  PR_REQUIRE_GPU(gpu);
  PointCloud cloud;
  std::string err;
  const std::string path = std::string(PR_TESTDATA_DIR) + "/las/autzen_trim.las";
  ASSERT_TRUE(load_point_cloud(path, cloud, nullptr, &err)) << err;
  for (Toggle sort : {Toggle::kOff, Toggle::kOn}) {
    RenderOptions o;
    o.sort = sort;
    CpuRenderer cpu;
    cpu.set_options(o);
    gpu->set_options(o);
    ASSERT_TRUE(cpu.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;
    for (const char* mode : {"classification", "intensity", "elevation"}) {
      ColorSettings s;
      parse_color_mode(mode, &s.mode, &s.field);
      PodVector<uint32_t> colors;
      ASSERT_TRUE(colorize(cloud, s, colors, nullptr, &err)) << err;
      set_display_colors(cloud, s.mode, std::move(colors));
      ASSERT_TRUE(cpu.update_colors(cloud, &err)) << err;
      ASSERT_TRUE(gpu->update_colors(cloud, &err)) << err;
      expect_same(cpu, *gpu, cloud, std::string("autzen ") + mode + ", sort " + toggle_name(sort));
    }
  }
}

}  // namespace
}  // namespace pr
