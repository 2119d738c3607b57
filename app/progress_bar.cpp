#include "progress_bar.h"

#include <algorithm>
#include <cmath>

namespace pr {

std::string human_points(double n) {
  char s[32];
  if (n >= 1e9)
    std::snprintf(s, sizeof s, "%.2fG", n / 1e9);
  else if (n >= 1e6)
    std::snprintf(s, sizeof s, "%.2fM", n / 1e6);
  else if (n >= 1e4)
    std::snprintf(s, sizeof s, "%.1fk", n / 1e3);
  else
    std::snprintf(s, sizeof s, "%.0f", n);
  return s;
}

std::string human_size(double b) {
  char s[32];
  if (b >= 1e9)
    std::snprintf(s, sizeof s, "%.2f GB", b / 1e9);
  else if (b >= 1e6)
    std::snprintf(s, sizeof s, "%.1f MB", b / 1e6);
  else if (b >= 1e3)
    std::snprintf(s, sizeof s, "%.1f kB", b / 1e3);
  else
    std::snprintf(s, sizeof s, "%.0f bytes", b);
  return s;
}

std::string clock_time(double seconds) {
  const long long t = std::llround(std::clamp(seconds, 0.0, 3.6e8));
  char s[32];
  if (t >= 3600)
    std::snprintf(s, sizeof s, "%lld:%02lld:%02lld", t / 3600, t / 60 % 60, t % 60);
  else
    std::snprintf(s, sizeof s, "%lld:%02lld", t / 60, t % 60);
  return s;
}

std::string ProgressBar::line(int stage, uint64_t done, uint64_t total, double rate) {
  char s[160];
  std::string out = convert_stage_name(stage);
  if (total > 0) {
    const double f = std::min(1.0, double(done) / double(total));
    std::snprintf(s, sizeof s, "  %s / %s points  %3.0f%%", human_points(double(done)).c_str(),
                  human_points(double(total)).c_str(), f * 100.0);
  } else {
    std::snprintf(s, sizeof s, "  %s points", human_points(double(done)).c_str());
  }
  out += s;
  if (rate > 0.0) {
    out += "  " + human_points(rate) + " points/s";
    // The ETA of the stage at its rate so far: the stages differ too much in cost per point for
    // one rate to predict the next.
    if (total > done) out += "  ETA " + clock_time(double(total - done) / rate);
  }
  return out;
}

bool ProgressBar::due(int stage, double now_s) {
  if (first_ < 0.0) first_ = now_s;
  const double since = now_s - last_write_;
  return !(terminal_
               ? since < kRedrawEvery
               : now_s - first_ < kPlainAfter || (stage == written_stage_ && since < kPlainEvery));
}

void ProgressBar::put(int stage, const std::string& text, double now_s) {
  written_stage_ = stage;
  last_write_ = now_s;
  if (terminal_) {
    // Spaces over what is left of a longer line before (no terminal escapes: any terminal).
    const size_t pad = drawn_ > text.size() ? drawn_ - text.size() : 0;
    std::fprintf(out_, "\r%s%*s", text.c_str(), int(pad), "");
    drawn_ = text.size();
  } else {
    std::fprintf(out_, "%s\n", text.c_str());
  }
  std::fflush(out_);
}

void ProgressBar::update(const ConvertProgress& progress, double now_s) {
  const int stage = progress.stage.load();
  const uint64_t done = progress.done.load();
  const uint64_t total = progress.total.load();
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = now_s;
    stage_done_ = done;
  }
  if (stage == ConvertProgress::kDone || !due(stage, now_s)) return;
  const double elapsed = now_s - stage_start_;
  // A rate from less than half a second of a stage says little.
  const double rate =
      elapsed >= 0.5 && done > stage_done_ ? double(done - stage_done_) / elapsed : 0.0;
  put(stage, line(stage, done, total, rate), now_s);
}

void ProgressBar::show(int stage, const std::string& text, double now_s) {
  if (due(stage, now_s)) put(stage, text, now_s);
}

void ProgressBar::finish() {
  if (terminal_ && drawn_ > 0) {
    std::fprintf(out_, "\r%*s\r", int(drawn_), "");
    std::fflush(out_);
  }
  drawn_ = 0;
}

}  // namespace pr
