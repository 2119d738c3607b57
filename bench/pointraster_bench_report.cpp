// pointraster_bench's results (pointraster_bench_report.h).
#include "pointraster_bench_report.h"

#include <fstream>
#include <sstream>

namespace pr::bench {

namespace {

std::string json_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o;
}

std::string row_json(const Row& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "{\"renderer\": \"%s\", \"points\": %llu, \"order\": \"%s\", \"camera\": \"%s\", "
                "\"width\": %d, \"height\": %d, \"frames\": %zu, \"median_ms\": %.5f, "
                "\"min_ms\": %.5f, \"max_ms\": %.5f, \"p25_ms\": %.5f, \"p75_ms\": %.5f, "
                "\"%s\": %.5f, \"points_per_s\": %.6g, \"bytes_per_point\": %.2f, "
                "\"copy_bw_fraction\": %.4f, \"check\": \"%s\", \"note\": \"%s\"}",
                r.renderer.c_str(), (unsigned long long)r.points, r.order.c_str(), r.camera.c_str(),
                r.width, r.height, r.ms.count, r.ms.median, r.ms.min, r.ms.max, r.ms.p25, r.ms.p75,
                r.extra_name.c_str(), r.extra_ms,
                r.ms.median > 0 ? double(r.points) / (r.ms.median * 1e-3) : 0.0, r.bytes_per_point,
                r.copy_fraction, json_escape(r.check).c_str(), json_escape(r.note).c_str());
  return buf;
}

std::string human_rate(double v) {
  char b[32];
  if (v >= 1e9)
    std::snprintf(b, sizeof b, "%.2f G", v * 1e-9);
  else if (v >= 1e6)
    std::snprintf(b, sizeof b, "%.1f M", v * 1e-6);
  else
    std::snprintf(b, sizeof b, "%.0f", v);
  return b;
}

void print_row(FILE* f, const Row& r) {
  char size[32], spread[64], frac[16];
  std::snprintf(size, sizeof size, "%dx%d", r.width, r.height);
  std::snprintf(spread, sizeof spread, "[%.4f .. %.4f]", r.ms.min, r.ms.max);
  if (r.copy_fraction >= 0)
    std::snprintf(frac, sizeof frac, "%.1f%%", r.copy_fraction * 100.0);
  else
    std::snprintf(frac, sizeof frac, "-");
  const double pps = r.ms.median > 0 ? double(r.points) / (r.ms.median * 1e-3) : 0.0;
  std::fprintf(f, "%-8s %11llu %-7s %-9s %9s %10.4f %21s %10s %6.1f %8s %6zu  %s%s%s\n",
               r.renderer.c_str(), (unsigned long long)r.points, r.order.c_str(), r.camera.c_str(),
               size, r.ms.median, spread, human_rate(pps).c_str(), r.bytes_per_point, frac,
               r.ms.count, r.check.c_str(), r.note.empty() ? "" : "  ", r.note.c_str());
  std::fflush(f);
}

}  // namespace

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) {
      const size_t c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown CPU";
}

void print_header(FILE* f) {
  std::fprintf(f, "%-8s %11s %-7s %-9s %9s %10s %21s %10s %6s %8s %6s  %s\n", "renderer", "points",
               "order", "camera", "size", "median_ms", "[min .. max] ms", "pts/s", "B/pt",
               "copy_bw", "frames", "check");
}

void Report::add(const Row& r) {
  rows.push_back(r);
  write_json_out();
  print_row(table, r);
}

std::string Report::document() const {
  std::ostringstream js;
  js << "{\n  \"host\": \"" << json_escape(cpu_model()) << "\",\n  \"cpu_threads\": " << cpu_threads
     << ",\n  \"gpu\": \"" << json_escape(gpu_name) << "\",\n  \"gl\": \"" << json_escape(gl_name)
     << "\",\n  \"copy_bw_bytes_per_s\": " << copy_bw << ",\n  \"failures\": " << failures
     << ",\n  \"rows\": [\n";
  for (size_t i = 0; i < rows.size(); ++i)
    js << "    " << row_json(rows[i]) << (i + 1 < rows.size() ? ",\n" : "\n");
  js << "  ]\n}\n";
  return js.str();
}

void Report::write_json_out() const {
  if (options.json_out.empty()) return;
  std::ofstream f(options.json_out);
  f << document();
  if (!f) std::fprintf(stderr, "pointraster_bench: cannot write %s\n", options.json_out.c_str());
}

int Report::finish() const {
  if (options.json) std::fputs(document().c_str(), stdout);
  write_json_out();
  if (failures) std::fprintf(table, "# %d check(s) FAILED\n", failures);
  return failures ? 1 : 0;
}

}  // namespace pr::bench
