// The --convert progress bar (app/progress_bar.cpp): its line, the redraws on a terminal at most
// ten times a second, the plain lines elsewhere, and the clean line it leaves.
#include "progress_bar.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

/// A ProgressBar writing into memory.
struct Captured {
  char* buf = nullptr;
  size_t size = 0;
  std::FILE* f = open_memstream(&buf, &size);
  ~Captured() {
    if (f) std::fclose(f);
    std::free(buf);
  }
  std::string text() {
    std::fflush(f);
    return std::string(buf, size);
  }
};

size_t count(const std::string& s, char c) {
  size_t n = 0;
  for (char x : s) n += x == c;
  return n;
}

}  // namespace

TEST(ProgressBar, Numbers) {
  EXPECT_EQ(pr::human_points(950), "950");
  EXPECT_EQ(pr::human_points(12345), "12.3k");
  EXPECT_EQ(pr::human_points(4.56e6), "4.56M");
  EXPECT_EQ(pr::human_points(1.2e9), "1.20G");
  EXPECT_EQ(pr::human_size(512), "512 bytes");
  EXPECT_EQ(pr::human_size(2.5e6), "2.5 MB");
  EXPECT_EQ(pr::clock_time(13.4), "0:13");
  EXPECT_EQ(pr::clock_time(3725), "1:02:05");
  EXPECT_EQ(pr::clock_time(-3), "0:00");
}

TEST(ProgressBar, TheLineSaysStagePointsRateAndEta) {
  const std::string stage = pr::convert_stage_name(pr::ConvertProgress::kBuild);
  ASSERT_FALSE(stage.empty());
  // (20M - 4.56M) / 1.2M points a second: 12.9 s.
  EXPECT_EQ(pr::ProgressBar::line(pr::ConvertProgress::kBuild, 4'560'000, 20'000'000, 1.2e6),
            stage + "  4.56M / 20.00M points   23%  1.20M points/s  ETA 0:13");
  // No total yet, no rate yet.
  EXPECT_EQ(pr::ProgressBar::line(pr::ConvertProgress::kBuild, 5000, 0, 0.0),
            stage + "  5000 points");
  EXPECT_NE(std::string(pr::convert_stage_name(pr::ConvertProgress::kScan)), stage);
}

TEST(ProgressBar, ATerminalRedrawsInPlaceAtMostTenTimesASecond) {
  Captured c;
  pr::ProgressBar bar(c.f, true);
  pr::ConvertProgress p;
  p.stage = pr::ConvertProgress::kBin;
  p.total = 1000;
  // 50 polls 20 ms apart (a second): 10 redraws.
  for (int k = 0; k < 50; ++k) {
    p.done = uint64_t(k) * 20;
    bar.update(p, 0.02 * k);
  }
  std::string s = c.text();
  EXPECT_EQ(count(s, '\n'), 0u) << s;
  EXPECT_GE(count(s, '\r'), 9u) << s;
  EXPECT_LE(count(s, '\r'), 11u) << s;
  // The last line drawn: some 900 of 1000 points at 20 points per 20 ms, the rest due in no time.
  const std::string last = s.substr(s.rfind('\r') + 1);
  EXPECT_EQ(last.rfind(std::string(pr::convert_stage_name(pr::ConvertProgress::kBin)) + "  9", 0),
            0u)
      << last;
  EXPECT_NE(last.find(" / 1000 points   9"), std::string::npos) << last;
  EXPECT_NE(last.find("  1000 points/s  ETA 0:00"), std::string::npos) << last;
  // finish() blanks the line and leaves the cursor at its start.
  bar.finish();
  s = c.text();
  const std::string tail = s.substr(s.size() - last.size() - 2);
  std::string blank = "\r";  // built in steps: GCC 12 warns (wrongly, -Wrestrict) on "\r" + string
  blank.append(last.size(), ' ');
  blank += '\r';
  EXPECT_EQ(tail, blank);
}

TEST(ProgressBar, ElsewhereALineAtEachStageAndEveryFewSecondsAfterTheFirst) {
  Captured c;
  pr::ProgressBar bar(c.f, false);
  pr::ConvertProgress p;
  for (int k = 0; k <= 200; ++k) {  // 20 s polled every 0.1 s
    const double t = 0.1 * k;
    p.stage = t < 0.5    ? pr::ConvertProgress::kScan
              : t < 12.0 ? pr::ConvertProgress::kBin
                         : pr::ConvertProgress::kWrite;
    p.done = uint64_t(k) * 100;
    p.total = 20'100;
    bar.update(p, t);
  }
  const std::string s = c.text();
  // Nothing in the first second (scanning goes unsaid); binning at 1, 6, 11; writing at 12, 17.
  EXPECT_EQ(count(s, '\n'), 5u) << s;
  EXPECT_EQ(count(s, '\r'), 0u) << s;
  EXPECT_EQ(s.rfind(pr::convert_stage_name(pr::ConvertProgress::kBin), 0), 0u) << s;
  bar.finish();
  EXPECT_EQ(c.text(), s);
  // Done: nothing more.
  p.stage = pr::ConvertProgress::kDone;
  bar.update(p, 30.0);
  EXPECT_EQ(c.text(), s);
  // A conversion that ends within its first second prints no progress at all.
  Captured quick;
  pr::ProgressBar q(quick.f, false);
  pr::ConvertProgress qp;
  for (int k = 0; k < 9; ++k) {
    qp.stage = k / 3;
    q.update(qp, 0.1 * k);
  }
  EXPECT_EQ(quick.text(), "");
}
