// Compact quantized positions (engine/compact.h): the quantization error bound, the CPU compact
// image against the plain CPU path on the decoded floats, and batch culling that never drops a
// visible point (culled vs unculled images over many random cameras, and the box test against
// the projection of the box's corners and random points in it).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/compact.h"
#include "engine/compact_testing.h"
#include "engine/cpu_renderer.h"
#include "engine/scenes.h"
#include "render_test_util.h"

namespace pr {
namespace {

using test::count_diff;
using test::count_drawn;
using test::kBg;
using test::random_camera;
using test::render;

// ------------------------------------------------------------------ encoding

TEST(Compact, DecodeErrorIsAtMostHalfAStep) {
  for (bool morton : {false, true}) {
    PointCloud cloud = make_scene("galaxy", 50'000);
    const float nan = std::numeric_limits<float>::quiet_NaN();
    cloud.positions[3] = Float3{nan, 0.f, 0.f};
    cloud.positions[4] = Float3{0.f, std::numeric_limits<float>::infinity(), 0.f};
    cloud.positions[5] = Float3{0.f, 0.f, 2e30f};  // beyond kCompactMaxCoord: invalid
    CompactCloud cc;
    std::string err;
    ASSERT_TRUE(build_compact(cloud, morton, &cc, &err)) << err;
    ASSERT_EQ(cc.size(), cloud.size());
    ASSERT_EQ(cc.batches.size(), (cloud.size() + kCompactBatch - 1) / kCompactBatch);
    ASSERT_EQ(cc.orig.size(), morton ? cloud.size() : 0u);
    std::vector<uint8_t> seen(cloud.size(), 0);
    double worst_rel = 0.0;  // error / step, over all valid coordinates
    size_t invalid = 0;
    for (size_t s = 0; s < cc.size(); ++s) {
      const size_t j = morton ? cc.orig[s] : s;
      ASSERT_LT(j, cloud.size());
      ASSERT_EQ(seen[j], 0) << "orig must be a permutation";
      seen[j] = 1;
      const CompactBatch& b = cc.batches[s / kCompactBatch];
      float d[3];
      const bool valid = compact_decode(b, cc.words[s], d[0], d[1], d[2]);
      const Float3 v = cloud.positions[j];
      if (j >= 3 && j <= 5) {
        EXPECT_FALSE(valid) << "point " << j << " must be stored invalid";
        ++invalid;
        continue;
      }
      ASSERT_TRUE(valid) << j;
      const float f[3] = {v.x, v.y, v.z};
      for (int a = 0; a < 3; ++a) {
        const double err_a = std::fabs(double(d[a]) - double(f[a]));
        const double step = double(b.scale[a]);
        // Half a step, plus the decode's float rounding (a few ulps of the coordinate).
        const double ulp = std::ldexp(std::fabs(double(f[a])) + std::fabs(double(b.lo[a])), -21);
        EXPECT_LE(err_a, 0.5 * step + ulp) << "point " << j << " axis " << a;
        EXPECT_GE(d[a], b.lo[a] - float(ulp));
        if (step > 0) worst_rel = std::max(worst_rel, err_a / step);
      }
    }
    EXPECT_EQ(invalid, 3u);
    EXPECT_GT(worst_rel, 0.3) << "the bound is tight: some coordinate is near half a step off";
    EXPECT_LE(worst_rel, 0.5 + 1e-3);
  }
}

TEST(Compact, MortonOrderGivesTightBoxes) {
  const PointCloud cloud = make_scene("cube", 1'000'000);
  CompactCloud plain, sorted;
  std::string err;
  ASSERT_TRUE(build_compact(cloud, false, &plain, &err)) << err;
  ASSERT_TRUE(build_compact(cloud, true, &sorted, &err)) << err;
  auto mean_step = [](const CompactCloud& c) {
    double s = 0;
    for (const CompactBatch& b : c.batches) s += double(b.scale[0] + b.scale[1] + b.scale[2]);
    return s / double(3 * c.batches.size());
  };
  // 1e6 points in 245 batches: file-order boxes span the cube, sorted ones about 1/6 of it.
  EXPECT_LT(mean_step(sorted) * 3.0, mean_step(plain));
}

TEST(Compact, EmptyCloudAndAllInvalid) {
  PointCloud empty;
  CompactCloud cc;
  std::string err;
  ASSERT_TRUE(build_compact(empty, true, &cc, &err)) << err;
  EXPECT_EQ(cc.size(), 0u);
  EXPECT_TRUE(cc.batches.empty());
  PointCloud bad = make_scene("cube", 5000);
  for (auto& v : bad.positions) v = Float3{NAN, 1.f, 1.f};
  ASSERT_TRUE(build_compact(bad, false, &cc, &err)) << err;
  for (uint32_t w : cc.words) EXPECT_EQ(w, kCompactInvalid);
  CpuRenderer r(2);
  r.set_options(test::compact_options(true, false));
  ASSERT_TRUE(r.set_cloud(bad, &err)) << err;
  EXPECT_TRUE(r.compact_active());
  RenderSettings rs;
  rs.width = 64;
  rs.height = 48;
  rs.background = kBg;
  EXPECT_EQ(count_drawn(render(r, Camera{}, rs)), 0u);
}

// ------------------------------------------------------------------ CPU compact against plain
// CPU on the decoded floats: the forms put a point where the decoded float lands, but for points
// within about 1e-4 pixel of a pixel's edge

struct Scene {
  const char* name;
  bool morton;
};

TEST(Compact, CpuCompactMatchesPlainPathOnDecodedPositions) {
  size_t drawn = 0, differ = 0;
  for (const Scene sc : {Scene{"cube", false}, Scene{"cube", true}, Scene{"terrain", false},
                         Scene{"terrain", true}, Scene{"galaxy", true}}) {
    const PointCloud cloud = make_scene(sc.name, 200'000);
    CpuRenderer compact(2);
    compact.set_options(test::compact_options(true, sc.morton));
    std::string err;
    ASSERT_TRUE(compact.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(compact.compact_active());
    const PointCloud decoded = decode_compact(compact.compact(), cloud);
    CpuRenderer plain(2);
    ASSERT_TRUE(plain.set_cloud(decoded, &err)) << err;
    const Bounds b = cloud.world_bounds();
    std::vector<Camera> cams = {scene_camera(sc.name, cloud)};
    Camera inside;
    inside.position = b.min + b.size() * 0.3;
    inside.look_at(b.center());
    cams.push_back(inside);
    Camera behind;
    behind.position = b.center();
    behind.yaw = 0.4;
    cams.push_back(behind);
    const int sizes[][3] = {{640, 480, 1}, {333, 177, 2}, {320, 240, 3}, {1, 1, 1}};
    for (size_t ci = 0; ci < cams.size(); ++ci)
      for (const auto& sz : sizes)
        for (uint64_t count : {~uint64_t{0}, uint64_t{100'000}, uint64_t{7}, uint64_t{0}}) {
          RenderSettings rs;
          rs.width = sz[0];
          rs.height = sz[1];
          rs.point_size = sz[2];
          rs.background = kBg;
          rs.point_count = count;
          rs.want_depth = true;
          const Image a = render(compact, cams[ci], rs);
          const Image r = render(plain, cams[ci], rs);
          std::string first;
          const std::string what = std::string(sc.name) + (sc.morton ? "/morton" : "") + " cam " +
                                   std::to_string(ci) + " " + std::to_string(sz[0]) + "x" +
                                   std::to_string(sz[1]) + " ps" + std::to_string(sz[2]) +
                                   " count " + std::to_string(count);
          // A pixel's nearest point may change where two points nearly tie in depth or one lies
          // on a pixel's edge: a few pixels of a frame, each with a depth close to the plain one.
          const size_t n = count_drawn(r), d = count_diff(a, r, &first);
          drawn += n;
          differ += d;
          EXPECT_LE(d, 3 + n / 50) << what << ": " << first;
          size_t far = 0;
          for (size_t i = 0; i < a.depth.size(); ++i) {
            const float x = a.depth[i], y = r.depth[i];
            if (!(x == y) && !(std::fabs(x - y) <= 1e-3f * std::fabs(y))) ++far;
          }
          EXPECT_LE(far, d) << what;
          if (count == 0) {
            EXPECT_EQ(count_drawn(a), 0u) << what;
          }
          if (ci == 0 && count > 100'000 && sz[0] > 1) {
            EXPECT_GT(count_drawn(a), 100u) << what;
          }
        }
  }
  // Over all frames the forms change well under one pixel in a hundred.
  EXPECT_GT(drawn, 100'000u);
  EXPECT_LT(double(differ), 0.005 * double(drawn)) << differ << " of " << drawn;
}

// ------------------------------------------------------------------ culling is conservative

TEST(Compact, BatchCullingNeverDropsAVisiblePoint) {
  std::mt19937 rng(2024);
  test::CullingTally tally;
  for (const Scene sc : {Scene{"cube", true}, Scene{"terrain", true}, Scene{"galaxy", false}}) {
    const PointCloud cloud = make_scene(sc.name, 120'000);
    CpuRenderer culled(2), unculled(2);
    culled.set_options(test::compact_options(true, sc.morton));
    RenderOptions o = test::compact_options(true, sc.morton);
    o.culling = false;
    unculled.set_options(o);
    std::string err;
    ASSERT_TRUE(culled.set_cloud(cloud, &err)) << err;
    ASSERT_TRUE(unculled.set_cloud(cloud, &err)) << err;
    test::compare_culling(culled, unculled, cloud.world_bounds(), cloud.size(), rng, 150, 0,
                          sc.name, tally);
  }
  // The comparison means something only if cameras both draw and cull.
  EXPECT_GT(tally.frames_drawing, 150u);
  EXPECT_GT(tally.frames_culling, 50u);
  EXPECT_GT(tally.culled_batches, 1000u);
}

TEST(Compact, BoxTestAgainstProjectedCornersAndSamples) {
  // Whenever the box test says "not visible", none of the box's decodable points (the 8 corners,
  // the centre and 200 random steps) projects into the image.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_box_test<CompactBatch>(
      7,
      [&](int i, float x0, std::mt19937& rng) {
        CompactBatch b;
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = u(rng) * 10.0f + (a == 0 ? x0 : 0.0f);
          b.scale[a] = (u(rng) + 1.0f) * (i % 5 == 0 ? 1e-5f : 0.003f);
        }
        return b;
      },
      [](const ProjParams& p, const CompactBatch& b) { return compact_box_may_draw(p, b); },
      test::sample_compact_batch);
}

TEST(Compact, BoxInsideMeansEveryPointDrawsAtItsPixel) {
  // compact_box_surely_inside(): every decodable point of a batch it accepts (corners, centre, 200
  // random steps) draws, at the pixel and depth project_inside() gives.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  test::check_inside_test<CompactBatch>(
      17,
      [&](int i, const Camera& cam, std::mt19937& rng) {
        CompactBatch b;
        glm::dvec3 c;
        float size;
        test::inside_test_place(i, cam, &c, &size);
        for (int a = 0; a < 3; ++a) {
          b.lo[a] = float(c[a]) + u(rng) * size;
          b.scale[a] = (u(rng) + 1.0f) * size * (i % 5 == 0 ? 1e-6f : 5e-4f);
        }
        return b;
      },
      [](const ProjParams& p, const CompactBatch& b) { return compact_box_surely_inside(p, b); },
      test::sample_compact_batch);
}

// ------------------------------------------------------------------ the forms

/// Word of steps (q0, q1, q2).
uint32_t word_of(uint32_t q0, uint32_t q1, uint32_t q2) {
  return q0 | (q1 << kCompactBits) | (q2 << (2 * kCompactBits));
}

/// The real projection of step q of batch b (decode and camera in double): px, py (this frame's,
/// less ox, oy), depth.
void exact_projection(const ProjParams& p, const CompactBatch& b, const uint32_t q[3], double& px,
                      double& py, double& depth) {
  double e[3];
  for (int a = 0; a < 3; ++a)
    e[a] = double(b.lo[a]) + double(q[a]) * double(b.scale[a]) - double(p.shift[a]);
  double c[3];
  for (int i = 0; i < 3; ++i)
    c[i] =
        double(p.r[3 * i]) * e[0] + double(p.r[3 * i + 1]) * e[1] + double(p.r[3 * i + 2]) * e[2];
  const bool ortho = p.ortho > 0.0f;
  const double f = double(ortho ? p.ortho : p.focus) * double(p.scale) / (ortho ? 1.0 : c[2]);
  px = c[0] * f + double(p.cx) - double(p.ox);
  py = double(p.cy) - c[1] * f - double(p.oy);
  depth = c[2];
}

TEST(Compact, FormsStayWithinTheirSlackOfTheRealProjection) {
  // Random batches (small and large, near the origin and near x = 1000) seen by random cameras,
  // perspective and orthographic, whole images and tiles: every sampled step's float forms lie
  // within compact_forms_slack() of the real ones, the pixel coordinates of the points in front
  // within the bound the box tests take from the slack, and those of the points in view within a
  // thousandth of a pixel of the real ones.
  std::mt19937 rng(91);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_int_distribution<uint32_t> step(0, kCompactMaxQ);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  size_t checked = 0, close = 0;
  double worst_px = 0.0;
  for (int i = 0; i < 4000; ++i) {
    const bool ortho = i % 7 == 3;
    const float x0 = i % 2 ? 0.0f : 999.0f;
    Camera cam = test::random_camera(rng, world, ortho);
    cam.position.x += double(x0);
    ProjParams p = cam.params(1920, 1080, glm::dvec3(0.0));
    if (i % 3 == 1) {  // a tile of the image (frame_params())
      p.ox = 640.0f;
      p.oy = 270.0f;
      p.width = 640;
      p.height = 540;
    }
    CompactBatch b;
    const float size = i % 5 == 0 ? 30.0f : i % 5 == 1 ? 1e-3f : 4.0f;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f + (a == 0 ? x0 : 0.0f);
      b.scale[a] = (u(rng) + 1.0f) * size / 2046.0f;
    }
    const CompactForms f = compact_forms(p, b);
    const BoxSlack slack = compact_forms_slack(p, b);
    for (int k = 0; k < 50; ++k) {
      const uint32_t q[3] = {step(rng), step(rng), step(rng)};
      const CompactProjected o = compact_forms_project(p, f, word_of(q[0], q[1], q[2]));
      double px, py, depth;
      exact_projection(p, b, q, px, py, depth);
      ASSERT_LE(std::fabs(double(o.depth) - depth), slack.d) << "batch " << i << " step " << k;
      if (ortho) {
        ASSERT_LE(std::fabs(double(o.px) - px), slack.x + 1e-3) << "batch " << i;
        ASSERT_LE(std::fabs(double(o.py) - py), slack.y + 1e-3) << "batch " << i;
      }
      if (!(depth > double(p.near_z))) continue;
      // In front: the pixel coordinates' error, and the bound the box tests take from the slack.
      const double d = ortho ? 1.0 : depth;
      const double wx = double(p.width) + std::fabs(double(p.ox)) + std::fabs(double(p.cx));
      const double wy = double(p.height) + std::fabs(double(p.oy)) + std::fabs(double(p.cy));
      const double ex = std::fabs(double(o.px) - px), ey = std::fabs(double(o.py) - py);
      if (std::fabs(px) < 1e4 && std::fabs(py) < 1e4) {
        const double bx = (slack.x + (ortho ? 0.0 : wx * slack.d)) / d + 4e-7 * std::fabs(px);
        const double by = (slack.y + (ortho ? 0.0 : wy * slack.d)) / d + 4e-7 * std::fabs(py);
        ASSERT_LE(ex, bx + 1e-4) << "batch " << i << " step " << k;
        ASSERT_LE(ey, by + 1e-4) << "batch " << i << " step " << k;
        if (px >= 0.0 && px < double(p.width) && py >= 0.0 && py < double(p.height)) {
          ++checked;  // in view
          close += ex < 1e-3 && ey < 1e-3;
          worst_px = std::max({worst_px, ex, ey});
        }
      }
    }
  }
  EXPECT_GT(checked, 5'000u);
  EXPECT_GT(double(close), 0.99 * double(checked))
      << close << " of " << checked << ", worst " << worst_px;
  RecordProperty("worst_px_error_in_view", std::to_string(worst_px));
}

TEST(Compact, CulledBatchesDrawNoWordThroughTheForms) {
  // check_box_test()'s boxes and cameras with the forms: whenever compact_box_may_draw() says no,
  // none of the box's words (corners, centre, 200 random steps) draws through compact_to_pixel().
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::mt19937 rng(7);
  std::uniform_int_distribution<uint32_t> step(0, kCompactMaxQ);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int rejected = 0, accepted = 0;
  for (int i = 0; i < 20'000; ++i) {
    const bool ortho = i % 9 == 4;
    const float mag = i % 2 ? 1.0f : 1000.0f;
    CompactBatch b;
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = u(rng) * 10.0f + (a == 0 ? mag - 1.0f : 0.0f);
      b.scale[a] = (u(rng) + 1.0f) * (i % 5 == 0 ? 1e-5f : 0.003f);
    }
    Camera cam = test::random_camera(rng, world, ortho);
    cam.position.x += double(mag - 1.0f);
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    if (compact_box_may_draw(p, b)) {
      ++accepted;
      continue;
    }
    ++rejected;
    const CompactForms f = compact_forms(p, b);
    for (int k = 0; k < 209; ++k) {
      uint32_t q[3];
      for (int a = 0; a < 3; ++a)
        q[a] = k < 8 ? ((k >> a) & 1 ? kCompactMaxQ : 0u) : k == 8 ? 511u : step(rng);
      int ix, iy;
      uint32_t dbits;
      ASSERT_FALSE(compact_to_pixel(p, f, word_of(q[0], q[1], q[2]), ix, iy, dbits))
          << "batch " << i << " culled but its step " << k << " lands on " << ix << "," << iy;
    }
  }
  EXPECT_GT(rejected, 2000);
  EXPECT_GT(accepted, 1000);
}

TEST(Compact, InsideBatchesDrawEveryWordThroughTheForms) {
  // check_inside_test()'s boxes and cameras with the forms: whenever compact_box_surely_inside()
  // says yes, every sampled word draws through compact_to_pixel(), at compact_inside()'s pixel
  // and depth.
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  std::uniform_real_distribution<double> far(1.5, 3.0);
  std::uniform_int_distribution<uint32_t> step(0, kCompactMaxQ);
  std::mt19937 rng(17);
  Bounds world;
  world.extend(glm::dvec3(-10.0));
  world.extend(glm::dvec3(10.0));
  int accepted = 0, refused = 0;
  for (int i = 0; i < 20'000; ++i) {
    const bool ortho = i % 9 == 4;
    const double x0 = i % 2 ? 0.0 : 999.0;
    Camera cam = test::random_camera(rng, world, ortho);
    cam.position *= far(rng);
    cam.look_at(glm::dvec3(0.0));
    cam.position.x += x0;
    const ProjParams p = cam.params(i % 2 ? 64 : 1920, i % 2 ? 48 : 1080, glm::dvec3(0.0));
    CompactBatch b;
    glm::dvec3 c;
    float size;
    test::inside_test_place(i, cam, &c, &size);
    for (int a = 0; a < 3; ++a) {
      b.lo[a] = float(c[a]) + u(rng) * size;
      b.scale[a] = (u(rng) + 1.0f) * size * (i % 5 == 0 ? 1e-6f : 5e-4f);
    }
    if (!compact_box_surely_inside(p, b)) {
      ++refused;
      continue;
    }
    ++accepted;
    const CompactForms f = compact_forms(p, b);
    for (int k = 0; k < 209; ++k) {
      uint32_t q[3];
      for (int a = 0; a < 3; ++a)
        q[a] = k < 8 ? ((k >> a) & 1 ? kCompactMaxQ : 0u) : k == 8 ? 511u : step(rng);
      const uint32_t w = word_of(q[0], q[1], q[2]);
      int ix = -1, iy = -1, jx = -2, jy = -2;
      uint32_t d0 = 0, d1 = 1;
      ASSERT_TRUE(compact_to_pixel(p, f, w, ix, iy, d0))
          << "batch " << i << " said inside, its step " << k << " does not draw";
      compact_inside(p, f, w, jx, jy, d1);
      ASSERT_EQ(ix, jx) << "batch " << i << " step " << k;
      ASSERT_EQ(iy, jy) << "batch " << i << " step " << k;
      ASSERT_EQ(d0, d1) << "batch " << i << " step " << k;
    }
  }
  EXPECT_GT(accepted, 2000);
  EXPECT_GT(refused, 2000);
}

TEST(Compact, OffByDefaultAndReportsMemory) {
  const PointCloud cloud = make_scene("cube", 10'000);
  CpuRenderer r(2);
  std::string err;
  ASSERT_TRUE(r.set_cloud(cloud, &err)) << err;
  EXPECT_FALSE(r.compact_active());
  const size_t before = r.memory_bytes();  // no frame yet: no batch boxes
  r.set_options(test::compact_options(true, true));
  ASSERT_TRUE(r.set_cloud(cloud, &err)) << err;
  EXPECT_TRUE(r.compact_active());
  // 4 B word + 4 B original index a point + 24 B a batch.
  EXPECT_EQ(r.memory_bytes() - before, 10'000u * 8u + 3u * sizeof(CompactBatch));
}

}  // namespace
}  // namespace pr
