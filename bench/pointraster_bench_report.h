// pointraster_bench's results: a row a renderer, view and cloud, printed as a table as they come
// and kept for the JSON document (--json, --json-out).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "common/bench_util.h"
#include "pointraster_bench_plan.h"

namespace pr::bench {

struct Row {
  std::string renderer, order, camera, check, note;
  uint64_t points = 0;
  int width = 0, height = 0;
  Spread ms;
  double extra_ms = -1;  // a second time for the frame, named by extra_name
  std::string extra_name = "none";
  double bytes_per_point = 0, copy_fraction = -1;
};

/// The results as they come: each row printed to the table (stdout, or stderr under --json, where
/// stdout carries only the JSON document) and kept for the document.
struct Report {
  explicit Report(const Options& o) : options(o), table(o.json ? stderr : stdout) {}

  const Options& options;
  FILE* const table;
  unsigned cpu_threads = 0;
  std::string gpu_name = "none", gl_name = "none";
  double copy_bw = 0.0;
  int failures = 0;
  std::vector<Row> rows;

  /// Keeps `r`, rewrites --json-out and prints the row.
  void add(const Row& r);
  /// The JSON document of the host and every row so far.
  std::string document() const;
  /// Rewritten after every row, so a run cut short by a time limit still leaves its rows.
  void write_json_out() const;
  /// The document where asked for, the failures counted; the exit code.
  int finish() const;
};

/// The host CPU's model name (/proc/cpuinfo).
std::string cpu_model();

/// The table's header line.
void print_header(FILE* f);

}  // namespace pr::bench
