// A conversion's progress on a terminal (engine/io/convert.h's ConvertProgress, polled from the
// main thread while the conversion runs on another; a video's frames through show()): on a terminal
// one line redrawn in place, at most ten times a second; elsewhere (a log, a pipe) plain lines, one
// when the stage changes and one every few seconds, from the first second on (a conversion that
// ends sooner prints only its result or its one-line error).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "engine/io/convert.h"

namespace pr {

/// A point count as the bar prints it: 950, 12.3k, 4.56M, 1.20G.
std::string human_points(double n);
/// A size in bytes: 512 bytes, 12.3 kB, 4.5 MB, 1.20 GB (powers of 1000).
std::string human_size(double bytes);
/// Seconds as h:mm:ss, or m:ss under an hour.
std::string clock_time(double seconds);

class ProgressBar {
 public:
  /// Writes to `out`; `terminal`: redraw one line in place (\r) rather than print lines.
  ProgressBar(std::FILE* out, bool terminal) : out_(out), terminal_(terminal) {}

  /// Reads `progress` at `now_s` (seconds on any steady clock) and writes what is due: on a
  /// terminal the line again when 0.1 s have passed since the last; otherwise, once kPlainAfter
  /// seconds have passed since the first update, a line when the stage differs from the last
  /// line's or kPlainEvery seconds have passed.
  void update(const ConvertProgress& progress, double now_s);
  /// Another job's line, `text`, at `now_s`, on the same terms as update(): written when due, a
  /// plain line also when `stage` differs from the last line's.
  void show(int stage, const std::string& text, double now_s);
  /// Ends the bar: a terminal's line is cleared (the caller prints the result or the error on a
  /// clean line); plain output gets nothing more.
  void finish();

  /// The line for a stage at `done` of `total` points (total 0: not known yet), `rate` points a
  /// second through the stage (0: not known): "building  4.56M / 20.0M points  23%  1.20M
  /// points/s  ETA 0:13".
  static std::string line(int stage, uint64_t done, uint64_t total, double rate);

  static constexpr double kRedrawEvery = 0.1;  ///< terminal: seconds between redraws
  static constexpr double kPlainEvery = 5.0;   ///< plain lines: seconds between lines
  static constexpr double kPlainAfter = 1.0;   ///< plain lines: none before this many seconds

 private:
  bool due(int stage, double now_s);  // whether a line is due now (the first call starts the clock)
  void put(int stage, const std::string& text, double now_s);

  std::FILE* out_;
  bool terminal_;
  double first_ = -1.0;      // the first update's time
  int written_stage_ = -1;   // plain lines: the stage of the last line
  int stage_ = -1;           // the stage last seen
  double stage_start_ = 0;   // when it was first seen
  uint64_t stage_done_ = 0;  // its points done then (a stage may start part way)
  double last_write_ = -1e30;
  size_t drawn_ = 0;  // terminal: characters of the line on screen
};

}  // namespace pr
