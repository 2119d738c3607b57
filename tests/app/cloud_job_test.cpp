// What the viewer's background loading reads next of files read in part (read_more_options()).
#include "viewer/cloud_job.h"

#include <gtest/gtest.h>

// What "Read more" reads: a COPC file one level deeper, a file that filled its point budget twice
// the points, "Read everything" all; nothing for files read whole.
TEST(ReadMore, DeeperCopcTwiceTheBudgetOrEverything) {
  pr::FileInfo copc;
  copc.copc.present = true;
  copc.copc.levels.resize(4);
  copc.copc.levels[0].read = copc.copc.levels[1].read = true;
  pr::LoadOptions now, next;
  now.max_depth = 1;
  std::string what;
  ASSERT_TRUE(pr::read_more_options({copc}, now, false, &next, &what));
  EXPECT_EQ(next.max_depth, 2);
  EXPECT_EQ(next.max_points, 0u);
  EXPECT_EQ(what, "COPC: 2 of 4 octree levels read");
  ASSERT_TRUE(pr::read_more_options({copc}, now, true, &next, nullptr));
  EXPECT_EQ(next.max_depth, -1);
  EXPECT_EQ(next.max_points, 0u);
  for (auto& l : copc.copc.levels) l.read = true;
  EXPECT_FALSE(pr::read_more_options({copc}, pr::LoadOptions{}, false, &next, nullptr));

  pr::FileInfo las;  // 1000 points kept of a budget of 1000: the file may hold more
  las.points = 1000;
  now = pr::LoadOptions{};
  now.max_points = 1000;
  ASSERT_TRUE(pr::read_more_options({las, copc}, now, false, &next, &what));
  EXPECT_EQ(next.max_points, 2000u);
  EXPECT_NE(what.find("even subset"), std::string::npos) << what;
  las.points = 999;  // under its budget: read whole
  EXPECT_FALSE(pr::read_more_options({las}, now, false, &next, nullptr));
  EXPECT_FALSE(pr::read_more_options({las}, pr::LoadOptions{}, true, &next, nullptr));
}
