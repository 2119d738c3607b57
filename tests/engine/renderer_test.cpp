// The renderer interface (engine/renderer.h): the tri-state switch's names, the options every
// renderer takes, and the start that every render() shares.
#include "engine/renderer.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/cpu_renderer.h"

namespace pr {
namespace {

TEST(Toggle, NamesParseAndPrint) {
  Toggle t = Toggle::kAuto;
  EXPECT_TRUE(parse_toggle("off", &t));
  EXPECT_EQ(t, Toggle::kOff);
  EXPECT_TRUE(parse_toggle("1", &t));
  EXPECT_EQ(t, Toggle::kOn);
  EXPECT_TRUE(parse_toggle("auto", &t));
  EXPECT_EQ(t, Toggle::kAuto);
  EXPECT_TRUE(parse_toggle("0", &t));
  EXPECT_EQ(t, Toggle::kOff);
  EXPECT_TRUE(parse_toggle("on", &t));
  EXPECT_EQ(t, Toggle::kOn);
  for (const char* bad : {"yes", "", "ON", "auto ", "2", "of"}) {
    EXPECT_FALSE(parse_toggle(bad, &t)) << bad;
    EXPECT_EQ(t, Toggle::kOn) << "a refused name leaves the value: " << bad;
  }
  for (const Toggle v : {Toggle::kOff, Toggle::kAuto, Toggle::kOn}) {
    Toggle back = v == Toggle::kOn ? Toggle::kOff : Toggle::kOn;
    EXPECT_TRUE(parse_toggle(toggle_name(v), &back)) << toggle_name(v);
    EXPECT_EQ(back, v);
  }
  EXPECT_STREQ(toggle_name(Toggle::kOff), "off");
  EXPECT_STREQ(toggle_name(Toggle::kAuto), "auto");
  EXPECT_STREQ(toggle_name(Toggle::kOn), "on");
}

TEST(RenderOptions, DefaultsAndComparison) {
  const RenderOptions d;
  EXPECT_TRUE(d.culling);
  EXPECT_EQ(d.occlusion, Toggle::kAuto);
  EXPECT_FALSE(d.compact);
  EXPECT_EQ(d.sort, Toggle::kAuto);
  EXPECT_EQ(d.binning, Toggle::kAuto);
  RenderOptions o;
  EXPECT_EQ(o, d);
  o.binning = Toggle::kOff;
  EXPECT_NE(o, d);
  // A renderer starts with the defaults and keeps what it is given.
  CpuRenderer r(1);
  EXPECT_EQ(r.options(), d);
  r.set_options(o);
  EXPECT_EQ(r.options(), o);
}

TEST(BeginFrame, SizesTheImageOrRefusesANegativeSize) {
  RenderSettings s;
  s.width = 7;
  s.height = 5;
  s.want_depth = true;
  Image out;
  FrameStats stats;
  stats.total_ms = 3.0;
  std::string err;
  EXPECT_EQ(begin_frame(s, out, stats, &err), FrameStart::kDraw);
  EXPECT_EQ(stats.total_ms, 0.0) << "stats reset";
  EXPECT_EQ(out.width, 7);
  EXPECT_EQ(out.height, 5);
  EXPECT_EQ(out.rgba.size(), 35u);
  EXPECT_EQ(out.depth.size(), 35u);
  s.height = 0;
  EXPECT_EQ(begin_frame(s, out, stats, &err), FrameStart::kEmpty);
  EXPECT_TRUE(err.empty()) << "an empty image is no error";
  s.height = -1;
  EXPECT_EQ(begin_frame(s, out, stats, &err), FrameStart::kError);
  EXPECT_EQ(err, "negative image size");
  EXPECT_EQ(begin_frame(s, out, stats, nullptr), FrameStart::kError) << "no message wanted";
}

}  // namespace
}  // namespace pr
