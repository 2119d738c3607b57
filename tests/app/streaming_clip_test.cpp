// lod_view() with a clip (app/streaming.cpp): the view's node test hides the boxes the clip shows
// no point of, keeps those it may show, and its key follows the clip, so that the streaming
// selection runs again when the clip changes.
#include <gtest/gtest.h>

#include "streaming.h"

namespace {

pr::Bounds box(glm::dvec3 lo, glm::dvec3 hi) {
  pr::Bounds b;
  b.min = lo;
  b.max = hi;
  b.empty = false;
  return b;
}

TEST(StreamingClip, LodViewHidesTheNodesAClipHides) {
  pr::Camera cam;
  const pr::LodView plain = pr::lod_view(cam, 640, 480);
  EXPECT_FALSE(plain.hidden);
  pr::Clip clip;
  pr::ClipBox b;
  // UTM-sized coordinates: the test runs in a frame at the box.
  b.centre = glm::dvec3(500000.0, 4000000.0, 100.0);
  b.size = glm::dvec3(10.0, 10.0, 10.0);
  clip.boxes.push_back(b);
  const pr::LodView v = pr::lod_view(cam, 640, 480, &clip);
  ASSERT_TRUE(v.hidden);
  EXPECT_FALSE(v.hidden(box({499990.0, 3999990.0, 90.0}, {500001.0, 4000001.0, 101.0})));
  EXPECT_TRUE(v.hidden(box({500006.0, 3999990.0, 90.0}, {500020.0, 4000010.0, 110.0})));
  EXPECT_TRUE(v.hidden(box({0.0, 0.0, 0.0}, {1.0, 1.0, 1.0})));
  // Outside mode: a node wholly inside the box is hidden, one around it is not.
  clip.boxes[0].mode = pr::ClipMode::kOutside;
  const pr::LodView out = pr::lod_view(cam, 640, 480, &clip);
  EXPECT_NE(out.hidden_key, v.hidden_key);
  EXPECT_TRUE(out.hidden(box({499998.0, 3999998.0, 98.0}, {500002.0, 4000002.0, 102.0})));
  EXPECT_FALSE(out.hidden(box({499980.0, 3999980.0, 80.0}, {500020.0, 4000020.0, 120.0})));
  // The same clip, the same key.
  EXPECT_EQ(pr::lod_view(cam, 640, 480, &clip).hidden_key, out.hidden_key);
}

}  // namespace
