// Frame statistics: the timing history and the median.
#include "engine/frame_stats.h"

#include <gtest/gtest.h>

#include <vector>

namespace pr {
namespace {

TEST(FrameStats, HistoryKeepsTheLastValuesInOrder) {
  History h(3);
  for (float v : {1.f, 2.f, 3.f, 4.f}) h.push(v);
  EXPECT_EQ(h.values(), (std::vector<float>{2.f, 3.f, 4.f}));
  EXPECT_FLOAT_EQ(h.average(), 3.f);
  EXPECT_EQ(median({5.0, 1.0, 3.0}), 3.0);
  EXPECT_EQ(median({4.0, 1.0, 3.0, 2.0}), 2.5);
}

}  // namespace
}  // namespace pr
