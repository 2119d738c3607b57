// --measure: loads the cloud only when a measurement reads points (point, box, volume), measures
// in order and prints each line; the first bad one ends the run.
#include "measure_run.h"

#include <cstdio>

#include "measure_export.h"
#include "startup.h"

namespace pr {

MeasureParams measure_params(const Options& o, bool from_files) {
  MeasureParams p;
  p.up = up_axis_for(o, from_files);
  p.auto_base = !o.measure_base.has_value();
  p.base = o.measure_base.value_or(0.0);
  p.cell = o.measure_cell;
  p.height = o.measure_height;
  p.threads = o.threads;
  return p;
}

int run_measure(const Options& o) {
  bool needs_cloud = false;
  for (const MeasureArg& a : o.measures)
    needs_cloud = needs_cloud || a.kind == MeasureKind::kPoint || a.kind == MeasureKind::kBox ||
                  a.kind == MeasureKind::kVolume;
  Startup s;
  std::string why;
  if (needs_cloud && !build_startup(o, s, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  const MeasureParams params = measure_params(o, !o.files.empty());
  std::vector<Measurement> done;
  for (const MeasureArg& a : o.measures) {
    Measurement m;
    if (!evaluate_measurement(a.kind, a.points, needs_cloud ? &s.cloud : nullptr, params, &m,
                              &why)) {
      std::fprintf(stderr, "pointraster: --measure %s\n", why.c_str());
      return 2;
    }
    std::printf("%s\n", measurement_line(m).c_str());
    done.push_back(std::move(m));
  }
  if (!o.measure_out.empty()) {
    if (!write_measurements(o.measure_out, done, &why)) {
      std::fprintf(stderr, "pointraster: --measure-out %s\n", why.c_str());
      return 1;
    }
    std::printf("wrote %s\n", o.measure_out.c_str());
  }
  return 0;
}

}  // namespace pr
