// The point cloud: merging clouds of different origins.
#include "engine/point_cloud.h"

#include <gtest/gtest.h>

namespace pr {
namespace {

TEST(PointCloud, AppendRebasesToFirstOrigin) {
  PointCloud a, b;
  a.origin = {1000, 0, 0};
  a.positions.push_back({1, 2, 3});
  a.colors.push_back(1);
  b.origin = {1010, 5, 0};
  b.positions.push_back({0, 0, 1});
  b.colors.push_back(2);
  b.intensity.push_back(0.5f);
  append_cloud(a, b);
  ASSERT_EQ(a.size(), 2u);
  EXPECT_EQ(a.positions[1].x, 10.0f);
  EXPECT_EQ(a.positions[1].y, 5.0f);
  EXPECT_EQ(a.colors[1], 2u);
  ASSERT_EQ(a.intensity.size(), 2u);
  EXPECT_EQ(a.intensity[0], 0.0f);
  EXPECT_EQ(a.intensity[1], 0.5f);
  const Bounds w = a.world_bounds();
  EXPECT_EQ(w.min.x, 1001.0);
  EXPECT_EQ(w.max.x, 1010.0);
}

}  // namespace
}  // namespace pr
