// The window's layout math (viewer/layout.h): the docked panel's width between its limits, and the
// image's rectangle beside it, for ordinary, HiDPI, narrow and empty windows. No display needed.
#include "viewer/layout.h"

#include <gtest/gtest.h>

TEST(Layout, PanelWidthScalesAndKeepsTheImageAQuarter) {
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 1280.0f, 1.0f), 370.0f);
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 1280.0f, 2.0f), 740.0f);
  // The image keeps a quarter of the window: 600 of 800 at most.
  EXPECT_FLOAT_EQ(pr::panel_width_units(5000, 800.0f, 1.0f), 600.0f);
  // Never narrower than 160 units at the scale, where the window has room.
  EXPECT_FLOAT_EQ(pr::panel_width_units(10, 800.0f, 1.0f), 160.0f);
  EXPECT_FLOAT_EQ(pr::panel_width_units(10, 800.0f, 1.5f), 240.0f);
  // A narrow window: the panel takes three quarters, less than its minimum.
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 200.0f, 1.0f), 150.0f);
  // Too narrow for a panel at all, and no window: none.
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 60.0f, 1.0f), 0.0f);
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 0.0f, 1.0f), 0.0f);
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, -5.0f, 1.0f), 0.0f);
  EXPECT_FLOAT_EQ(pr::panel_width_units(370, 1280.0f, 0.0f), 370.0f);  // no scale: 1
}

TEST(Layout, ImageRectIsTheWindowLessThePanel) {
  pr::ImageRect r = pr::image_rect(370.0f, 1280, 720, 1280, 720);
  EXPECT_EQ(r.x, 370);
  EXPECT_EQ(r.y, 0);
  EXPECT_EQ(r.w, 910);
  EXPECT_EQ(r.h, 720);
  EXPECT_FLOAT_EQ(r.ux, 370.0f);
  EXPECT_FLOAT_EQ(r.uw, 910.0f);
  EXPECT_TRUE(r.contains(370.0f, 0.0f));
  EXPECT_TRUE(r.contains(1279.5f, 719.5f));
  EXPECT_FALSE(r.contains(369.9f, 100.0f));
  EXPECT_FALSE(r.contains(1280.0f, 100.0f));
  EXPECT_DOUBLE_EQ(r.aspect(), 910.0 / 720.0);
  // HiDPI: a drawable twice the window's size; the panel's edge in pixels.
  r = pr::image_rect(370.0f, 1280, 720, 2560, 1440);
  EXPECT_EQ(r.x, 740);
  EXPECT_EQ(r.w, 1820);
  EXPECT_EQ(r.h, 1440);
  EXPECT_FLOAT_EQ(r.uw, 910.0f);
  // Hidden panel: the whole window.
  r = pr::image_rect(0.0f, 800, 500, 800, 500);
  EXPECT_EQ(r.x, 0);
  EXPECT_EQ(r.w, 800);
}

TEST(Layout, EmptyAndTooNarrowWindowsGiveNoNegativeRect) {
  for (const int w : {0, -4}) {
    const pr::ImageRect r = pr::image_rect(370.0f, w, 500, w, 500);
    EXPECT_TRUE(r.empty());
    EXPECT_EQ(r.w, 0);
    EXPECT_FALSE(r.contains(0.0f, 0.0f));
    EXPECT_DOUBLE_EQ(r.aspect(), 1.0);
  }
  EXPECT_TRUE(pr::image_rect(370.0f, 800, 500, 0, 0).empty());  // minimized
  // A panel wider than the window: clamped, the image empty, nothing negative.
  const pr::ImageRect r = pr::image_rect(5000.0f, 300, 200, 300, 200);
  EXPECT_EQ(r.x, 300);
  EXPECT_EQ(r.w, 0);
  EXPECT_TRUE(r.empty());
  EXPECT_FLOAT_EQ(r.uw, 0.0f);
  EXPECT_FALSE(pr::image_rect(-10.0f, 300, 200, 300, 200).empty());
}

TEST(Layout, TabHidesAndShowsThePanel) {
  pr::PanelLayout p;
  EXPECT_FLOAT_EQ(p.drawn_width(1280.0f, 1.0f), float(pr::kDefaultPanelWidth));
  p.toggle(1000);
  EXPECT_FALSE(p.shown);
  EXPECT_FLOAT_EQ(p.drawn_width(1280.0f, 1.0f), 0.0f);
  p.toggle(2000);
  EXPECT_TRUE(p.shown);
  p.width = 500;
  EXPECT_FLOAT_EQ(p.drawn_width(1280.0f, 1.0f), 500.0f);
}
