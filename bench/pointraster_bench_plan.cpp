// pointraster_bench's command line (pointraster_bench_plan.h).
#include "pointraster_bench_plan.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <iterator>

#include "common/bench_util.h"

namespace pr::bench {

namespace {

/// The rounds a GPU mode's token "rN" forces (CudaTuning::rounds), or 0 for other tokens.
int mode_rounds(const std::string& t) {
  for (const char* r : {"r1", "r2", "r4", "r8"})
    if (t == r) return std::atoi(r + 1);
  return 0;
}

bool parse_size(const std::string& s, std::pair<int, int>& out) {
  int w = 0, h = 0;
  if (std::sscanf(s.c_str(), "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 16384 || h > 16384)
    return false;
  out = {w, h};
  return true;
}

bool known_gpu_mode(const std::string& m) {
  if (m == "default") return true;
  bool known = true;
  size_t b = 0;
  while (b <= m.size()) {
    const size_t e = std::min(m.find('+', b), m.size());
    const std::string t = m.substr(b, e - b);
    known = known && (t == "nosort" || t == "compact" || t == "nocull" || t == "occl" ||
                      t == "noocc" || t == "edl" || t == "hq" || t == "clip" || t == "clipall" ||
                      t == "adaptive" || mode_rounds(t) > 0);
    b = e + 1;
  }
  return known;
}

bool parse_sizes(const std::string& v, Options& o) {
  o.sizes.clear();
  for (const std::string& s : split_list(v)) {
    std::pair<int, int> wh;
    if (!parse_size(s, wh)) {
      std::fprintf(stderr, "pointraster_bench: bad size '%s' (want WxH)\n", s.c_str());
      return false;
    }
    o.sizes.push_back(wh);
  }
  return true;
}

bool parse_gpu_modes(const std::string& v, Options& o) {
  o.gpu_modes = split_list(v);
  o.gpu_modes_given = true;
  for (const std::string& m : o.gpu_modes)
    if (!known_gpu_mode(m)) {
      std::fprintf(stderr,
                   "pointraster_bench: unknown GPU mode '%s' (default, or nosort, compact, "
                   "nocull, occl, noocc, edl, hq, clip, clipall, adaptive, r1|r2|r4|r8 joined "
                   "with '+')\n",
                   m.c_str());
      return false;
    }
  return true;
}

/// The first count of a list (--cpu-max and the like); false without a message when it is bad.
bool parse_one_count(const std::string& v, uint64_t& out) {
  std::vector<uint64_t> c;
  std::string err;
  if (!parse_counts(v, c, &err)) return false;
  out = c[0];
  return true;
}

const char* const kValueOptions[] = {
    "--renderers", "--points",  "--orders",  "--cameras", "--sizes",     "--frames",  "--budget",
    "--threads",   "--cpu-max", "--gpu-max", "--gl-max",  "--gpu-modes", "--json-out"};

bool takes_value(const std::string& a) {
  return std::find(std::begin(kValueOptions), std::end(kValueOptions), a) !=
         std::end(kValueOptions);
}

/// Option `a` (one of kValueOptions) with its value `v`; false after a message when `v` is bad.
bool set_option(const std::string& a, const std::string& v, Options& o) {
  if (a == "--renderers") {
    o.renderers = split_list(v);
  } else if (a == "--points") {
    std::string err;
    if (!parse_counts(v, o.points, &err)) {
      std::fprintf(stderr, "pointraster_bench: %s\n", err.c_str());
      return false;
    }
  } else if (a == "--orders") {
    o.orders = split_list(v);
  } else if (a == "--cameras") {
    o.cameras = split_list(v);
  } else if (a == "--sizes") {
    return parse_sizes(v, o);
  } else if (a == "--frames") {
    o.frames = std::max(1, std::atoi(v.c_str()));
  } else if (a == "--budget") {
    o.budget_s = std::max(0.0, std::atof(v.c_str()));
  } else if (a == "--threads") {
    o.threads = unsigned(std::max(0, std::atoi(v.c_str())));
  } else if (a == "--cpu-max") {
    return parse_one_count(v, o.cpu_max);
  } else if (a == "--gpu-max") {
    return parse_one_count(v, o.gpu_max);
  } else if (a == "--gl-max") {
    return parse_one_count(v, o.gl_max);
  } else if (a == "--gpu-modes") {
    return parse_gpu_modes(v, o);
  } else if (a == "--json-out") {
    o.json_out = v;
  }
  return true;
}

/// False after a message naming the first of `names` that is not one of `known`.
bool all_known(const std::vector<std::string>& names, std::initializer_list<const char*> known,
               const char* what, const char* choices) {
  for (const std::string& n : names)
    if (std::find(known.begin(), known.end(), n) == known.end()) {
      std::fprintf(stderr, "pointraster_bench: unknown %s '%s' (%s)\n", what, n.c_str(), choices);
      return false;
    }
  return true;
}

bool parse_args(int argc, char** argv, Options& o) {
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--json") {
      o.json = true;
    } else if (a == "--stage-timing") {
      o.stage_timing = true;
    } else if (!takes_value(a)) {
      return false;
    } else if (i + 1 >= argc) {
      std::fprintf(stderr, "pointraster_bench: %s needs a value\n", a.c_str());
      return false;
    } else if (!set_option(a, argv[++i], o)) {
      return false;
    }
  }
  return all_known(o.renderers, {"cpu", "gpu", "gl"}, "renderer", "cpu, gpu, gl") &&
         all_known(o.orders, {"random", "morton"}, "order", "random, morton") &&
         all_known(o.cameras, {"overview", "inside", "orbit"}, "camera", "overview, inside");
}

}  // namespace

const char* const kUsage =
    "usage: pointraster_bench [--renderers cpu,gpu,gl] [--points 1e5,1e6,...] "
    "[--orders random,morton]\n"
    "         [--cameras overview,inside,orbit] [--sizes 1920x1080,...] [--frames N] [--budget "
    "SECONDS]\n"
    "         [--cpu-max N] [--gpu-max N] [--gl-max N] [--threads T] [--json] [--json-out FILE]\n"
    "         [--gpu-modes "
    "default,nosort,compact,nocull,occl,noocc,edl,hq,clip,clipall,adaptive,r1..r8 "
    "(tokens joined "
    "with "
    "'+')]\n"
    "         [--stage-timing]\n";

GpuMode gpu_mode(const std::string& mode) {
  GpuMode m;
  m.name = mode;
  RenderOptions& ro = m.options;
  ro.sort = mode.find("nosort") == std::string::npos ? Toggle::kOn : Toggle::kOff;
  ro.compact = mode.find("compact") != std::string::npos;
  ro.culling = mode.find("nocull") == std::string::npos;
  if (mode.find("noocc") != std::string::npos)
    ro.occlusion = Toggle::kOff;
  else if (mode.find("occl") != std::string::npos)
    ro.occlusion = Toggle::kOn;
  for (size_t b = 0; b <= mode.size();) {
    const size_t e = std::min(mode.find('+', b), mode.size());
    if (const int r = mode_rounds(mode.substr(b, e - b)); r > 0) m.rounds = r;
    b = e + 1;
  }
  m.edl = mode.find("edl") != std::string::npos;
  m.hq = mode.find("hq") != std::string::npos;
  m.adaptive = mode.find("adaptive") != std::string::npos;
  m.clip = mode.find("clipall") != std::string::npos ? 2 : mode.find("clip") != std::string::npos;
  return m;
}

bool make_plan(int argc, char** argv, Plan& plan) {
  if (!parse_args(argc, argv, plan.options)) return false;
  for (const auto& wh : plan.options.sizes)
    for (const std::string& cam : plan.options.cameras)
      plan.views.push_back({wh.first, wh.second, cam});
  for (const std::string& m : plan.options.gpu_modes) plan.gpu_modes.push_back(gpu_mode(m));
  return true;
}

bool wants(const Options& o, const char* r) {
  return std::find(o.renderers.begin(), o.renderers.end(), r) != o.renderers.end();
}

}  // namespace pr::bench
