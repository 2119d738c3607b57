// Clip volumes and sections (engine/clip.h, engine/clip_math.h) and the CPU renderer's use of them:
// the point test, the conservative batch test, frames equal to those of the clip's own points
// drawn without a clip, batches skipped, and picks of shown points only.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "engine/clip.h"
#include "engine/cpu_renderer.h"
#include "engine/morton.h"
#include "engine/pick.h"
#include "engine/scenes.h"
#include "random_camera.h"
#include "render_test_util.h"

namespace pr {
namespace {

ClipParams params_of(const Clip& c, const glm::dvec3& origin = glm::dvec3(0.0)) {
  ClipParams p;
  std::string error;
  EXPECT_TRUE(make_clip_params(c, origin, &p, &error)) << error;
  return p;
}

ClipBox unit_box(const glm::dvec3& centre, ClipMode mode = ClipMode::kInside) {
  ClipBox b;
  b.centre = centre;
  b.size = glm::dvec3(1.0);
  b.mode = mode;
  return b;
}

TEST(Clip, RotatedBoxHoldsWhatItsAxesHold) {
  Clip c;
  c.boxes.push_back(unit_box(glm::dvec3(0.0)));
  const ClipParams straight = params_of(c);
  EXPECT_EQ(clip_point(straight, 0.4f, 0.0f, 0.0f), kClipShown);
  EXPECT_EQ(clip_point(straight, 0.6f, 0.0f, 0.0f), kClipHidden);
  // Turned 45 degrees about z: along x the box reaches sqrt(2) / 2.
  c.boxes[0].yaw = 45.0;
  const ClipParams turned = params_of(c);
  EXPECT_EQ(clip_point(turned, 0.6f, 0.0f, 0.0f), kClipShown);
  EXPECT_EQ(clip_point(turned, 0.4f, 0.4f, 0.0f), kClipHidden);
  EXPECT_EQ(clip_point(turned, 0.0f, 0.0f, 0.55f), kClipHidden);
  // Pitch 90 turns x into -z: a long box along x becomes one along z.
  Clip lng;
  ClipBox b = unit_box(glm::dvec3(0.0));
  b.size = glm::dvec3(4.0, 1.0, 1.0);
  b.pitch = 90.0;
  lng.boxes.push_back(b);
  const ClipParams up = params_of(lng);
  EXPECT_EQ(clip_point(up, 0.0f, 0.0f, 1.8f), kClipShown);
  EXPECT_EQ(clip_point(up, 1.8f, 0.0f, 0.0f), kClipHidden);
  // The corners the viewer draws lie on the box's faces.
  for (const glm::dvec3& k : clip_box_corners(c.boxes[0]))
    EXPECT_NEAR(glm::length(glm::dvec2(k.x, k.y)), std::sqrt(0.5), 1e-12);
}

TEST(Clip, ModesCombineAsInsideAnyOutsideNoneAndTint) {
  Clip c;
  c.boxes.push_back(unit_box(glm::dvec3(0.0)));
  c.boxes.push_back(unit_box(glm::dvec3(2.0, 0.0, 0.0)));
  c.boxes.push_back(unit_box(glm::dvec3(2.2, 0.0, 0.0), ClipMode::kOutside));
  c.boxes.push_back(unit_box(glm::dvec3(-0.3, 0.0, 0.0), ClipMode::kHighlight));
  const ClipParams p = params_of(c);
  EXPECT_EQ(p.inside_count, 2);
  EXPECT_EQ(clip_point(p, 0.3f, 0.0f, 0.0f), kClipShown);    // first inside box
  EXPECT_EQ(clip_point(p, -0.1f, 0.0f, 0.0f), kClipTinted);  // and the highlight box
  EXPECT_EQ(clip_point(p, 1.6f, 0.0f, 0.0f), kClipShown);    // second inside box
  EXPECT_EQ(clip_point(p, 2.0f, 0.0f, 0.0f), kClipHidden);   // in the outside box too
  EXPECT_EQ(clip_point(p, 1.0f, 0.0f, 0.0f), kClipHidden);   // in no inside box
  EXPECT_EQ(clip_point(p, NAN, 0.0f, 0.0f), kClipHidden);
  // Only a highlight box: every point shown, those inside tinted.
  Clip h;
  h.boxes.push_back(unit_box(glm::dvec3(0.0), ClipMode::kHighlight));
  h.tint = rgba(200, 100, 0);
  const ClipParams hp = params_of(h);
  EXPECT_EQ(clip_point(hp, 5.0f, 0.0f, 0.0f), kClipShown);
  EXPECT_EQ(clip_point(hp, 0.0f, 0.0f, 0.0f), kClipTinted);
  EXPECT_EQ(clip_color(hp, kClipTinted, rgba(100, 51, 255)), rgba(150, 75, 127));
  EXPECT_EQ(clip_color(hp, kClipShown, rgba(100, 51, 255)), rgba(100, 51, 255));
}

TEST(Clip, SectionKeepsItsSlab) {
  Clip c;
  c.section = section_along_axis(2, 10.0, 2.0);
  const ClipParams p = params_of(c, glm::dvec3(0.0, 0.0, 5.0));  // local z = world z - 5
  EXPECT_TRUE(clip_shows(p, glm::dvec3(0.0, 0.0, 5.0), glm::dvec3(3.0, -7.0, 10.9)));
  EXPECT_FALSE(clip_shows(p, glm::dvec3(0.0, 0.0, 5.0), glm::dvec3(3.0, -7.0, 11.1)));
  EXPECT_EQ(clip_point(p, 0.0f, 0.0f, 4.5f), kClipShown);
  EXPECT_EQ(clip_point(p, 0.0f, 0.0f, 6.5f), kClipHidden);
  step_section(&c.section, 1.0);
  EXPECT_DOUBLE_EQ(c.section.point.z, 12.0);

  ClipSection s;
  std::string error;
  ASSERT_TRUE(section_through_points(glm::dvec3(0, 0, 1), glm::dvec3(1, 0, 1), glm::dvec3(0, 1, 1),
                                     0.5, &s, &error));
  EXPECT_NEAR(std::abs(s.normal.z), 1.0, 1e-12);
  EXPECT_NEAR(s.point.z, 1.0, 1e-12);
  EXPECT_FALSE(
      section_through_points(glm::dvec3(0.0), glm::dvec3(1.0), glm::dvec3(2.0), 0.5, &s, &error));
  EXPECT_NE(error.find("one line"), std::string::npos);

  Camera cam;
  cam.yaw = 0.3;
  const ClipSection f = section_facing(cam, glm::dvec3(1.0, 2.0, 3.0), 1.0);
  EXPECT_NEAR(glm::dot(f.normal, cam.forward()), 1.0, 1e-12);
}

TEST(Clip, RefusesWhatCannotBeUsed) {
  std::string error;
  Clip c;
  c.boxes.push_back(unit_box(glm::dvec3(0.0)));
  c.boxes[0].size.y = 0.0;
  EXPECT_FALSE(validate_clip(c, &error));
  EXPECT_EQ(error, "clip box 1: every size must be above zero");
  c.boxes[0].size.y = 1.0;
  c.boxes[0].roll = NAN;
  EXPECT_FALSE(validate_clip(c, &error));
  EXPECT_EQ(error, "clip box 1: a number is not finite");
  c.boxes.assign(size_t(kMaxClipBoxes) + 1, unit_box(glm::dvec3(0.0)));
  ClipParams p;
  EXPECT_FALSE(make_clip_params(c, glm::dvec3(0.0), &p, &error));
  EXPECT_NE(error.find("at most"), std::string::npos);
  Clip s;
  s.section = section_along_axis(0, 1.0, 0.0);
  EXPECT_FALSE(validate_clip(s, &error));
  EXPECT_EQ(error, "section: the thickness must be above zero");
  s.section.thickness = 1.0;
  s.section.normal = glm::dvec3(0.0);
  EXPECT_FALSE(validate_clip(s, &error));
}

// The batch test against the point test: a box it calls hidden holds no shown point, one it calls
// shown (tinted) only shown (tinted) points; over random clips, boxes and points in them.
TEST(Clip, BoxClassNeverContradictsItsPoints) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  int decided = 0;
  for (int it = 0; it < 400; ++it) {
    Clip c;
    const int boxes = 1 + it % 3;
    for (int k = 0; k < boxes; ++k) {
      ClipBox b;
      b.centre = glm::dvec3(u(rng), u(rng), u(rng)) * 2.0;
      b.size = glm::dvec3(0.5 + u(rng) + 1.0, 0.5 + u(rng) + 1.0, 0.5 + u(rng) + 1.0);
      b.yaw = 90.0 * u(rng), b.pitch = 90.0 * u(rng), b.roll = 90.0 * u(rng);
      b.mode = ClipMode((it + k) % 3);
      c.boxes.push_back(b);
    }
    if (it % 4 == 0) {
      c.section.enabled = true;
      c.section.normal = glm::dvec3(u(rng), u(rng), u(rng) + 2.0);
      c.section.point = glm::dvec3(u(rng), u(rng), u(rng));
      c.section.thickness = 1.0 + u(rng);
    }
    const ClipParams p = params_of(c);
    const glm::dvec3 lo = glm::dvec3(u(rng), u(rng), u(rng)) * 3.0;
    const glm::dvec3 hi = lo + glm::dvec3(u(rng) + 1.0, u(rng) + 1.0, u(rng) + 1.0) * 0.3;
    const double l[3] = {lo.x, lo.y, lo.z}, h[3] = {hi.x, hi.y, hi.z};
    const uint32_t k = clip_box_class(p, l, h);
    if (k == kClipMixed) continue;
    ++decided;
    for (int i = 0; i < 300; ++i) {
      const glm::dvec3 t(0.5 * (u(rng) + 1.0), 0.5 * (u(rng) + 1.0), 0.5 * (u(rng) + 1.0));
      // The corners too: the box's faces are where rounding decides.
      const glm::dvec3 q =
          i < 8 ? glm::dvec3(i & 1 ? hi.x : lo.x, i & 2 ? hi.y : lo.y, i & 4 ? hi.z : lo.z)
                : lo + t * (hi - lo);
      ASSERT_EQ(clip_point(p, float(q.x), float(q.y), float(q.z)), k) << it << " " << i;
    }
  }
  EXPECT_GT(decided, 100);
}

/// `cloud` without the points `clip` hides, the tinted ones in their tinted color.
PointCloud clipped_copy(const PointCloud& cloud, const ClipParams& clip) {
  PointCloud out;
  out.origin = cloud.origin;
  for (size_t i = 0; i < cloud.size(); ++i) {
    const Float3 v = cloud.positions[i];
    const uint32_t k = clip_point(clip, v.x, v.y, v.z);
    if (k == kClipHidden) continue;
    out.positions.push_back(v);
    out.colors.push_back(clip_color(clip, k, cloud.colors[i] | kOpaqueAlpha));
  }
  return out;
}

/// A clip around the middle of `b`: a turned inside box, an outside box in it, a highlight box
/// and (with `section`) a slab across x.
Clip middle_clip(const Bounds& b, bool section) {
  const glm::dvec3 c = b.center(), e = b.max - b.min;
  Clip clip;
  ClipBox in;
  in.centre = c;
  in.size = e * 0.6;
  in.yaw = 30.0;
  in.pitch = 10.0;
  clip.boxes.push_back(in);
  ClipBox out = in;
  out.size = e * 0.15;
  out.mode = ClipMode::kOutside;
  clip.boxes.push_back(out);
  ClipBox hi;
  hi.centre = c + e * 0.2;
  hi.size = e * 0.3;
  hi.mode = ClipMode::kHighlight;
  clip.boxes.push_back(hi);
  if (section) clip.section = section_along_axis(0, c.x, e.x * 0.4);
  return clip;
}

// A clipped frame is the frame of the clip's own points drawn without a clip: point sizes, EDL,
// HQ splats, culling on and off, over random cameras.
TEST(Clip, FrameEqualsTheFrameOfTheShownPoints) {
  std::mt19937 rng(9);
  for (const char* scene : {"terrain", "galaxy"}) {
    const PointCloud cloud = make_scene(scene, 120000, 3);
    for (const bool section : {false, true}) {
      const Clip clip = middle_clip(cloud.local_bounds(), section);
      const PointCloud shown = clipped_copy(cloud, params_of(clip, cloud.origin));
      ASSERT_GT(shown.size(), 1000u);
      ASSERT_LT(shown.size(), cloud.size());
      for (const bool cull : {true, false}) {
        CpuRenderer a(2), b(2);
        RenderOptions o;
        o.culling = cull;
        a.set_options(o);
        ASSERT_TRUE(a.set_cloud(cloud, nullptr));
        ASSERT_TRUE(b.set_cloud(shown, nullptr));
        for (int it = 0; it < 6; ++it) {
          const Camera cam =
              it == 0 ? scene_camera(scene, cloud) : test::random_camera(rng, cloud.local_bounds());
          RenderSettings rs;
          rs.width = 160;
          rs.height = 100;
          rs.background = test::kBg;
          rs.point_size = 1 + it % 3;
          rs.edl = it % 3 == 1;
          rs.hq = it % 2 == 1;
          rs.want_depth = true;
          const Image want = test::render(b, cam, rs);
          rs.clip = clip;
          const Image got = test::render(a, cam, rs);
          std::string first;
          EXPECT_EQ(test::count_diff(got, want, &first), 0u)
              << scene << " section " << section << " cull " << cull << " frame " << it << " "
              << first;
          EXPECT_EQ(got.depth, want.depth);
        }
      }
    }
  }
}

// Compact positions: the clip tests the decoded positions, with and without the batch test.
TEST(Clip, CompactFramesAgreeWithAndWithoutBatchTests) {
  const PointCloud cloud = make_scene("terrain", 150000, 2);
  const Clip clip = middle_clip(cloud.local_bounds(), true);
  std::mt19937 rng(4);
  CpuRenderer culled(2), plain(2);
  RenderOptions o = test::compact_options(true, true);
  culled.set_options(o);
  o.culling = false;
  plain.set_options(o);
  ASSERT_TRUE(culled.set_cloud(cloud, nullptr));
  ASSERT_TRUE(plain.set_cloud(cloud, nullptr));
  for (int it = 0; it < 6; ++it) {
    const Camera cam =
        it == 0 ? scene_camera("terrain", cloud) : test::random_camera(rng, cloud.local_bounds());
    RenderSettings rs;
    rs.width = 150;
    rs.height = 90;
    rs.background = test::kBg;
    rs.point_size = 1 + it % 2;
    const Image full = test::render(culled, cam, rs);
    rs.clip = clip;
    const Image a = test::render(culled, cam, rs);
    const Image b = test::render(plain, cam, rs);
    EXPECT_EQ(test::count_diff(a, b, nullptr), 0u) << it;
    if (it == 0) {
      EXPECT_LT(test::count_drawn(a), test::count_drawn(full));
    }
  }
}

// A small box keeps few batches of a sorted terrain: the others are skipped, culling on or off.
TEST(Clip, BatchesOutsideTheClipAreSkipped) {
  PointCloud cloud = make_scene("terrain", 400000, 1);
  apply_order(cloud, morton_order(cloud));  // batches of nearby points
  const Bounds b = cloud.local_bounds();
  Clip clip;
  clip.boxes.push_back(clip_box_around(b.min, b.min + (b.max - b.min) * 0.2));
  for (const bool cull : {true, false}) {
    CpuRenderer r(2);
    RenderOptions o;
    o.culling = cull;
    r.set_options(o);
    ASSERT_TRUE(r.set_cloud(cloud, nullptr));
    const Camera cam = scene_camera("terrain", cloud);
    RenderSettings rs;
    rs.width = 200;
    rs.height = 120;
    rs.clip = clip;
    test::render(r, cam, rs);
    const uint64_t batches = (cloud.size() + kPointBatch - 1) / kPointBatch;
    EXPECT_GT(r.culled_batches(), batches / 2) << cull;
  }
}

// A click where a hidden point drew without the clip picks a shown point or none, never it.
TEST(Clip, PickNamesOnlyShownPoints) {
  const PointCloud cloud = make_scene("terrain", 100000, 6);
  const Clip clip = middle_clip(cloud.local_bounds(), false);
  const ClipParams p = params_of(clip, cloud.origin);
  CpuRenderer r(2);
  ASSERT_TRUE(r.set_cloud(cloud, nullptr));
  const Camera cam = scene_camera("terrain", cloud);
  RenderSettings rs;
  rs.width = 120;
  rs.height = 80;
  rs.background = test::kBg;
  rs.want_depth = true;
  int hidden_before = 0, checked = 0;
  for (int y = 0; y < rs.height; y += 3)
    for (int x = 0; x < rs.width; x += 3) {
      RenderSettings plain = rs;
      const PickResult before = pick_point(cloud, nullptr, cam, plain, x, y, 0);
      if (!before.hit) continue;
      const Float3 v = cloud.positions[before.index];
      if (clip_point(p, v.x, v.y, v.z) != kClipHidden) continue;
      ++hidden_before;
      RenderSettings clipped = rs;
      clipped.clip = clip;
      const PickResult after = pick_point(cloud, nullptr, cam, clipped, x, y, 2);
      if (!after.hit) continue;
      ++checked;
      const Float3 w = cloud.positions[after.index];
      EXPECT_NE(clip_point(p, w.x, w.y, w.z), kClipHidden) << x << "," << y;
    }
  EXPECT_GT(hidden_before, 20);
  EXPECT_GT(checked, 0);
}

}  // namespace
}  // namespace pr
