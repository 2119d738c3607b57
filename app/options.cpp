// The command line through CLI11: each option's value is converted and checked by a callback that
// throws CLI::ValidationError with the one-line message the program prints; CLI11's own errors
// (a missing value, a value given to a switch, an unknown option) are reworded the same way.
#include "options.h"

#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string_view>

#include "clip_options.h"
#include "engine/io/formats.h"
#include "engine/scenes.h"
#include "measure_export.h"
#include "option_fields.h"
#include "profile_export.h"
#include "scene_file.h"
#include "scene_options.h"
#include "video_options.h"

namespace pr {

namespace {

using cli::bad;
using cli::value;

template <class T>
T parse_number(const std::string& opt, const std::string& v) {
  T x{};
  const char* b = v.data();
  const char* e = b + v.size();
  auto r = std::from_chars(b, e, x);
  if (r.ec != std::errc() || r.ptr != e || v.empty())
    bad("option " + opt + ": '" + v + "' is not a valid number");
  return x;
}

double parse_double(const std::string& opt, const std::string& v) {
  const double d = parse_number<double>(opt, v);
  if (!std::isfinite(d)) bad("option " + opt + ": '" + v + "' is not finite");
  return d;
}

/// An int of [lo, hi]; `range` names the range in the message.
int parse_int(const std::string& opt, const std::string& v, int lo, int hi, const char* range) {
  const long long x = parse_number<long long>(opt, v);
  if (x < lo || x > hi) bad("option " + opt + ": " + range);
  return int(x);
}

/// Point counts accept 1000000, 1e6, 10M, 2.5k, 1G.
uint64_t parse_count(const std::string& opt, const std::string& v) {
  if (v.empty()) bad("option " + opt + " needs a value");
  double mult = 1.0;
  std::string num = v;
  const char last = v.back();
  if (last == 'k' || last == 'K') mult = 1e3;
  if (last == 'm' || last == 'M') mult = 1e6;
  if (last == 'g' || last == 'G' || last == 'b' || last == 'B') mult = 1e9;
  if (mult != 1.0) num.pop_back();
  const double d = parse_double(opt, num) * mult;
  if (d < 0.0 || d > 1.0e12 || d != std::floor(d))
    bad("option " + opt + ": '" + v + "' is not a whole count between 0 and 1e12");
  return uint64_t(d);
}

/// Bytes: 4000000000, 512M, 4G, 1.5G (K, M, G: powers of 1024).
uint64_t parse_bytes(const std::string& opt, const std::string& v) {
  if (v.empty()) bad("option " + opt + " needs a value");
  double mult = 1.0;
  std::string num = v;
  const char last = v.back();
  if (last == 'k' || last == 'K') mult = 1024.0;
  if (last == 'm' || last == 'M') mult = 1048576.0;
  if (last == 'g' || last == 'G') mult = 1073741824.0;
  if (mult != 1.0) num.pop_back();
  double d = 0.0;
  try {
    d = parse_double(opt, num) * mult;
  } catch (const CLI::ValidationError&) {
    bad("option " + opt + ": '" + v + "' is not a byte count (e.g. 4000000000, 512M, 4G)");
  }
  if (!(d >= 1.0) || d > 1.8e19)
    bad("option " + opt + ": '" + v + "' is not a byte count of at least 1");
  return uint64_t(d);
}

/// auto|on|off (also 1 and 0); `allow_auto` false for the switches without a middle position.
Toggle parse_switch(const std::string& opt, const std::string& v, bool allow_auto) {
  Toggle t = Toggle::kAuto;
  if (!parse_toggle(v, &t) || (!allow_auto && t == Toggle::kAuto))
    bad("option " + opt + ": '" + v + "' is not " + (allow_auto ? "auto, on or off" : "on or off"));
  return t;
}

/// X,Y,Z,YAW,PITCH: five finite numbers.
CameraArg parse_camera(const std::string& v) {
  double c[5];
  size_t start = 0;
  for (int k = 0; k < 5; ++k) {
    const size_t comma = v.find(',', start);
    if ((k < 4) != (comma != std::string::npos))
      bad("option --camera: expected X,Y,Z,YAW,PITCH, got '" + v + "'");
    c[k] = parse_double("--camera", v.substr(start, comma == std::string::npos ? std::string::npos
                                                                               : comma - start));
    start = comma + 1;
  }
  return CameraArg{c[0], c[1], c[2], c[3], c[4]};
}

/// X,Y: a pixel, both 0 or more.
std::pair<int, int> parse_pixel(const std::string& v) {
  const size_t comma = v.find(',');
  if (comma == std::string::npos) bad("option --pick: expected X,Y, got '" + v + "'");
  const int x = parse_number<int>("--pick", v.substr(0, comma));
  const int y = parse_number<int>("--pick", v.substr(comma + 1));
  if (x < 0 || y < 0) bad("option --pick: X and Y must be 0 or more");
  return {x, y};
}

/// WxH: a tile's size, each 1 to 16384.
std::pair<int, int> parse_tile(const std::string& v) {
  const size_t x = v.find_first_of("xX");
  if (x == std::string::npos) bad("option --tile: expected WxH, got '" + v + "'");
  const int w = parse_int("--tile", v.substr(0, x), 1, 16384, "W and H must be 1 to 16384");
  const int h = parse_int("--tile", v.substr(x + 1), 1, 16384, "W and H must be 1 to 16384");
  return {w, h};
}

/// A switch without a value (check_switch_values() refuses `--NAME=...`).
void flag(CLI::App& app, const std::string& name, bool& out, const std::string& help) {
  app.add_flag(name, out, help);
}

void add_run_options(CLI::App& app, Options& o) {
  flag(app, "--headless", o.headless,
       "render offscreen: no window; prints frame times and a summary line");
  value(app, "--mode", "cpu|gpu",
        "renderer (gpu needs a CUDA device; headless default: cpu; viewer default:\n"
        "its last choice, else gpu when a CUDA device is there, else cpu)",
        [&o](const std::string& m) {
          if (m != "cpu" && m != "gpu") bad("option --mode: '" + m + "' is not cpu or gpu");
          o.mode = m;
        });
  value(app, "--width", "W", "image (headless) or window width in pixels (default 1280)",
        [&o](const std::string& v) {
          o.width = parse_int("--width", v, 1, 16384, "must be 1 to 16384");
        });
  value(app, "--height", "H", "image (headless) or window height in pixels (default 720)",
        [&o](const std::string& v) {
          o.height = parse_int("--height", v, 1, 16384, "must be 1 to 16384");
        });
  std::string scenes;
  for (const auto& sc : scene_list()) scenes += " " + sc.name;
  value(app, "--scene", "NAME",
        "procedural scene when no FILE is given:" + scenes + "\n(default " + kDefaultScene + ")",
        [&o, scenes](const std::string& v) {
          if (!is_scene(v)) bad("option --scene: unknown scene '" + v + "' (known:" + scenes + ")");
          o.scene = v;
        });
  value(app, "--points", "N",
        "points to draw, e.g. 1000000, 1e6, 10M, 10G (default: scene 4M,\n"
        "files: all); scenes the host cannot hold are made on the GPU\n"
        "(headless, --mode gpu: terrain and cube)",
        [&o](const std::string& v) { o.points = parse_count("--points", v); });
}

void add_view_options(CLI::App& app, Options& o) {
  value(app, "--camera", "X,Y,Z,YAW,PITCH",
        "camera position (world units) and angles in degrees\n"
        "(yaw about +y, 0 looks along +z; pitch up positive)",
        [&o](const std::string& v) { o.camera = parse_camera(v); });
  value(app, "--focus", "F", "focal length in image-plane units (vertical fov = 2*atan(1/F))",
        [&o](const std::string& v) {
          const double f = parse_double("--focus", v);
          if (!(f > 0.0) || f > 1e4) bad("option --focus: must be > 0 and <= 10000");
          o.focus = f;
        });
  value(app, "--projection", "perspective|ortho",
        "perspective (default) or orthographic: parallel rays, no\n"
        "foreshortening; the view is as high as the cloud's framing needs",
        [&o](const std::string& v) {
          if (v == "perspective")
            o.projection = Projection::kPerspective;
          else if (v == "ortho" || v == "orthographic")
            o.projection = Projection::kOrthographic;
          else
            bad("option --projection: '" + v + "' is not perspective or ortho");
        });
  value(app, "--view", "top|bottom|front|back|left|right|iso",
        "a standard view along the up axis or a horizontal one, the\n"
        "cloud framed (replaces --camera's position and angles)",
        [&o](const std::string& v) {
          StandardView sv;
          if (!parse_standard_view(v, &sv))
            bad("option --view: '" + v + "' is not top, bottom, front, back, left, right or iso");
          o.view = sv;
        });
  value(app, "--up", "y|z", "the world's up axis (default: z for files, y for scenes)",
        [&o](const std::string& v) {
          if (v != "y" && v != "z" && v != "Y" && v != "Z")
            bad("option --up: '" + v + "' is not y or z");
          o.up = char(v[0] | 0x20);
        });
  value(app, "--frames", "K", "frames to render (headless default 5; viewer: quit after K)",
        [&o](const std::string& v) {
          o.frames = parse_int("--frames", v, 1, INT_MAX, "must be at least 1");
        });
  value(app, "--screenshot", "OUT.png",
        "save the last frame (headless: the image; viewer: the window)",
        [&o](const std::string& v) {
          if (v.empty()) bad("option --screenshot needs a file name");
          o.screenshot = v;
        });
  value(app, "--point-size", "S", "point size in pixels, 1 to 16 (default 1)",
        [&o](const std::string& v) {
          o.point_size = parse_int("--point-size", v, 1, 16, "must be 1 to 16");
        });
  flag(app, "--adaptive-size", o.adaptive_size,
       "adaptive point size: points larger where the cloud is sparse on\n"
       "screen (the spacing around each point projected), from --point-size\n"
       "up to --max-point-size");
  value(app, "--max-point-size", "S",
        "the largest adaptive point size in pixels, 1 to 32 (default 8)",
        [&o](const std::string& v) {
          o.max_point_size = parse_int("--max-point-size", v, 1, 32, "must be 1 to 32");
        });
  value(app, "--threads", "T", "CPU renderer threads, or --convert's (default: all cores)",
        [&o](const std::string& v) {
          o.threads = unsigned(parse_int("--threads", v, 1, 1024, "must be 1 to 1024"));
        });
}

void add_renderer_options(CLI::App& app, Options& o) {
  flag(app, "--compact", o.compact,
       "compact positions: 4 bytes a point, quantized to 1/1023 of each\n"
       "4096-point batch's box (GPU: 7 bytes a point instead of 15; the\n"
       "viewer also falls back to them when a cloud does not fit)");
  value(app, "--culling", "on|off",
        "skip the 4096-point batches outside the view (default on; the\n"
        "image is the same either way)",
        [&o](const std::string& v) {
          o.culling = parse_switch("--culling", v, false) == Toggle::kOn;
        });
  value(app, "--occlusion", "auto|on|off",
        "skip the batches hidden behind the last frame's depths (default\n"
        "auto: large clouds, while it hides enough; same image)",
        [&o](const std::string& v) { o.occlusion = parse_switch("--occlusion", v, true); });
  value(app, "--sort", "auto|on|off",
        "store the cloud along a Morton curve (default auto: clouds in no\n"
        "spatial order); decides the order compact positions are encoded in",
        [&o](const std::string& v) { o.sort = parse_switch("--sort", v, true); });
  value(app, "--binning", "auto|on|off",
        "CPU renderer: bin 1-pixel points by image band (default auto)",
        [&o](const std::string& v) { o.binning = parse_switch("--binning", v, true); });
  value(app, "--gpu-memory-limit", "BYTES",
        "the most device memory the GPU's cloud may take (K, M, G\n"
        "suffixes: powers of 1024); larger clouds go compact or to the CPU",
        [&o](const std::string& v) { o.gpu_memory_limit = parse_bytes("--gpu-memory-limit", v); });
  value(app, "--tile", "WxH",
        "headless: draw the image in tiles of at most W x H pixels (default:\n"
        "tiles only where one frame does not fit --tile-memory or the GPU's\n"
        "free memory); the same image either way",
        [&o](const std::string& v) { o.tile = parse_tile(v); });
  value(app, "--tile-memory", "BYTES",
        "the most host memory one frame's buffers may take before an image is\n"
        "drawn in tiles (default 512M; K, M, G suffixes)",
        [&o](const std::string& v) { o.tile_memory = parse_bytes("--tile-memory", v); });
}

void add_color_options(CLI::App& app, Options& o) {
  value(app, "--color", "MODE",
        "point colors: rgb, intensity, elevation, classification, return,\n"
        "source or a scalar field's name (default: rgb when the file's\n"
        "colors differ, else intensity when it varies, else elevation)",
        [&o](const std::string& v) {
          ColorMode m;
          if (!parse_color_mode(v, &m, nullptr))
            bad("option --color needs a mode: rgb, intensity, elevation, classification, "
                "return, source or a field's name");
          o.color = v;
        });
  value(app, "--colormap", "NAME",
        "colormap of intensity, elevation and fields: viridis (default),\n"
        "turbo, gray, inferno, plasma",
        [&o](const std::string& v) {
          Colormap map;
          if (!parse_colormap(v, &map))
            bad("option --colormap: '" + v + "' is not viridis, turbo, gray, inferno or plasma");
          o.colormap = map;
        });
  // The strength is optional: normalized_arguments() gives every --edl its value.
  value(app, "--edl", "[STRENGTH]",
        "eye-dome lighting: edges shaded from the depth image (strength\n>= 0, default 1)",
        [&o](const std::string& v) {
          const double s = parse_double("--edl", v);
          if (!(s >= 0.0 && s <= 100.0)) bad("option --edl: strength must be 0 to 100");
          o.edl = float(s);
        });
  flag(app, "--hq", o.hq,
       "high-quality splats: each pixel the average color of its points\n"
       "within 1% of the nearest depth (no shimmer in dense clouds)");
}

void add_viewer_options(CLI::App& app, Options& o) {
  value(app, "--pick", "X,Y",
        "headless: print the point drawn at pixel (X, Y) of the last frame\n"
        "(pick x=... y=... z=... intensity=... class=..., or pick none)",
        [&o](const std::string& v) { o.pick = parse_pixel(v); });
  value(app, "--vsync", "on|off", "viewer vsync (default on)", [&o](const std::string& v) {
    if (v != "on" && v != "off") bad("option --vsync: '" + v + "' is not on or off");
    o.vsync = v == "on";
  });
  value(app, "--ui-scale", "S", "panel scale, 0.5 to 4 (default: from the display's DPI, else 1)",
        [&o](const std::string& v) {
          const double s = parse_double("--ui-scale", v);
          if (!(s >= 0.5 && s <= 4.0)) bad("option --ui-scale: must be 0.5 to 4");
          o.ui_scale = float(s);
        });
}

void add_stream_options(CLI::App& app, Options& o) {
  value(app, "--point-budget", "N",
        "streaming: draw at most N points (1e7, 100M; default: from the\n"
        "renderer's speed and free memory)",
        [&o](const std::string& v) {
          o.point_budget = parse_count("--point-budget", v);
          if (*o.point_budget == 0) bad("option --point-budget: must be at least 1");
        });
  value(app, "--sse", "PX",
        "streaming: refine an octree node while its point spacing on screen\n"
        "exceeds PX pixels (default 1; 0: every node in view)",
        [&o](const std::string& v) {
          const double d = parse_double("--sse", v);
          if (d < 0.0 || d > 1e4) bad("option --sse: must be 0 to 10000");
          o.sse = d;
        });
  value(app, "--cache-memory", "SIZE",
        "streaming: host memory for decoded nodes (512M, 4G; default: a\n"
        "quarter of the machine's memory)",
        [&o](const std::string& v) { o.cache_memory = parse_bytes("--cache-memory", v); });
  value(
      app, "--stream", "on|off",
      "on: stream COPC files and EPT datasets by level of detail (the\n"
      "default); off: read them whole (URLs, other folders and .vpc surveys\n"
      "always stream)",
      [&o](const std::string& v) { o.stream = parse_switch("--stream", v, false) == Toggle::kOn; });
  flag(app, "--no-wait", o.no_wait,
       "headless streaming: draw the frames as the nodes arrive, without\n"
       "waiting for the view to converge");
  value(app, "--ca-file", "PATH",
        "https:// URLs: trust the certificate authorities in PATH (a PEM\n"
        "bundle) besides the system's store",
        [&o](const std::string& v) {
          std::error_code ec;
          if (!std::filesystem::is_regular_file(v, ec))
            bad("option --ca-file: " + v + " is not a file");
          o.ca_file = v;
        });
}

void add_convert_options(CLI::App& app, Options& o) {
  value(app, "--convert", "OUT",
        "write the FILEs, merged, to OUT: COPC (OUT ends in .copc.laz),\n"
        "LAZ (.laz) or LAS (.las); prints what it chose and wrote",
        [&o](const std::string& v) {
          if (convert_format(v).empty())
            bad("option --convert: '" + v +
                "' ends in none of the suffixes that pick a format: " + convert_suffixes());
          o.convert = v;
        });
  value(app, "--temp", "DIR",
        "--convert: folder for the temporary buckets (default: OUT's folder;\n"
        "removed when the conversion ends)",
        [&o](const std::string& v) {
          if (v.empty()) bad("option --temp needs a folder");
          o.temp_dir = v;
        });
  value(app, "--memory", "SIZE",
        "--convert: memory it may hold (512M, 4G; default: half the\nmachine's)",
        [&o](const std::string& v) { o.memory = parse_bytes("--memory", v); });
  flag(app, "--timings", o.timings,
       "--convert: print the seconds of each stage (scanning, binning,\nbuilding and encoding)");
}

/// X,Y,Z;X,Y,Z;...: the points of `what` (an option and its kind: "--measure area"), each of
/// three finite numbers.
std::vector<glm::dvec3> parse_points(const std::string& what, const std::string& v) {
  const std::string opt = what.substr(0, what.find(' '));
  std::vector<glm::dvec3> points;
  size_t start = 0;
  while (start <= v.size()) {
    const size_t semi = std::min(v.find(';', start), v.size());
    const std::string p = v.substr(start, semi - start);
    double c[3];
    size_t at = 0;
    for (int k = 0; k < 3; ++k) {
      const size_t comma = k < 2 ? p.find(',', at) : p.size();
      if (comma == std::string::npos || (k == 2 && p.find(',', at) != std::string::npos))
        bad("option " + what + ": expected X,Y,Z;X,Y,Z;..., got '" + v + "'");
      c[k] = parse_double(opt, p.substr(at, comma - at));
      at = comma + 1;
    }
    points.emplace_back(c[0], c[1], c[2]);
    start = semi + 1;
  }
  return points;
}

void add_measure_options(CLI::App& app, Options& o) {
  // normalized_arguments() joins `--measure KIND POINTS` into one value, "KIND POINTS", so that
  // points starting with a minus sign are not read as options.
  value(app, "--measure", "KIND X,Y,Z;...",
        "measure on the points loaded, print 'measure KIND name=value ...'\n"
        "and exit: point, distance, height, angle, area, circle, box\n"
        "(X,Y,Z;SX,SY,SZ[;YAW,PITCH,ROLL]) or volume (docs/MEASURE.md)",
        [&o](const std::string& v) {
          const size_t space = v.find(' ');
          MeasureArg m;
          const std::string kind = v.substr(0, space);
          if (!parse_measure_kind(kind, &m.kind))
            bad("option --measure: '" + kind +
                "' is not point, distance, height, angle, area, circle, box or volume");
          if (space == std::string::npos) bad("option --measure " + kind + " needs its points");
          m.points = parse_points("--measure " + kind, v.substr(space + 1));
          int lo = 0, hi = 0;
          measure_point_count(m.kind, &lo, &hi);
          const int n = int(m.points.size());
          if (n < lo || (hi && n > hi))
            bad("option --measure " + kind + ": needs " +
                (lo == hi ? std::to_string(lo)
                 : hi     ? std::to_string(lo) + " to " + std::to_string(hi)
                          : "at least " + std::to_string(lo)) +
                " points, got " + std::to_string(n));
          o.measures.push_back(std::move(m));
        });
  value(app, "--measure-base", "H", "volume: the base plane's height (default: the polygon's mean)",
        [&o](const std::string& v) { o.measure_base = parse_double("--measure-base", v); });
  value(app, "--measure-cell", "S",
        "volume: the grid's cell size (default: the polygon's side / 200)",
        [&o](const std::string& v) {
          o.measure_cell = parse_double("--measure-cell", v);
          if (!(o.measure_cell > 0.0)) bad("option --measure-cell: must be above 0");
        });
  value(app, "--measure-height", "min|mean|max",
        "volume: a cell's height from its points (default mean)", [&o](const std::string& v) {
          if (!parse_cell_height(v, &o.measure_height))
            bad("option --measure-height: '" + v + "' is not min, mean or max");
        });
  value(app, "--measure-out", "FILE",
        "--measure: also write the measurements to FILE (.geojson or .csv)",
        [&o](const std::string& v) {
          if (measure_export_format(v) == MeasureFormat::kNone)
            bad("option --measure-out: '" + v + "' ends in neither .geojson nor .csv");
          o.measure_out = v;
        });
  flag(app, "--measure-show", o.measure_show,
       "--measure: open the viewer with the measurements listed and drawn, not print them");
}

void add_profile_options(CLI::App& app, Options& o) {
  // normalized_arguments() joins `--profile POINTS` into one value, so that points starting with
  // a minus sign are not read as options.
  value(app, "--profile", "X,Y,Z;X,Y,Z;...",
        "the points within --profile-width / 2 of this polyline, unrolled\n"
        "(docs/PROFILE.md): print 'profile ...' and exit; with\n"
        "--profile-out and --profile-image",
        [&o](const std::string& v) { o.profile_line = parse_points("--profile", v); });
  value(app, "--profile-width", "W", "--profile: the corridor's full width (above 0)",
        [&o](const std::string& v) {
          o.profile_width = parse_double("--profile-width", v);
          if (!(*o.profile_width > 0.0)) bad("option --profile-width: must be above 0");
        });
  value(app, "--profile-out", "FILE",
        "--profile: write the corridor's points to FILE (.las, .laz or\n"
        ".csv) with their distance along the line",
        [&o](const std::string& v) {
          if (profile_export_format(v) == ProfileFormat::kNone)
            bad("option --profile-out: '" + v + "' ends in neither .las, .laz nor .csv");
          o.profile_out = v;
        });
  value(app, "--profile-image", "FILE.png",
        "--profile: draw the profile view (--mode, --width, --height)", [&o](const std::string& v) {
          if (v.empty()) bad("option --profile-image needs a file name");
          o.profile_image = v;
        });
}

void add_file_options(CLI::App& app, Options& o) {
  value(app, "--scan", "K",
        "E57: load scan K (0-based; repeat for several; default: all,\n"
        "merged with their poses)",
        [&o](const std::string& v) {
          const long long k = parse_number<long long>("--scan", v);
          if (k < 0 || k > 0xFFFFFFFFll) bad("option --scan: must be 0 or more");
          o.scans.push_back(uint32_t(k));
        });
  value(app, "--max-points", "N",
        "read at most N points of a file (1e6, 10M like --points): COPC\n"
        "its octree's top levels that fit, other formats an even subset\n"
        "of their records",
        [&o](const std::string& v) { o.max_points = parse_count("--max-points", v); });
  value(app, "--max-depth", "D", "COPC: read the octree levels 0 to D", [&o](const std::string& v) {
    o.max_depth = parse_int("--max-depth", v, 0, 64, "must be 0 to 64");
  });
  add_stream_options(app, o);
  flag(app, "--info", o.info, "print format, point count, bounds, origin and attributes per FILE");
  flag(app, "--json", o.json, "with --info: one JSON object per file");
  add_convert_options(app, o);
  flag(app, "-h,--help", o.help, "this text");
  app.add_option("FILE", o.files,
                 "point-cloud files (LAS, LAZ, COPC, E57, PLY, PCD, text), or a\n"
                 "scene file (.json, docs/SCENE.md) that the other options apply over")
      ->type_name("");
}

/// The --help text's head: what the program is and its three ways to run.
class HelpFormatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App*, std::string) const override {
    return "usage:\n"
           "  pointraster [options] [FILE...]             open the viewer on FILEs or a scene\n"
           "  pointraster --headless [options] [FILE...]  render without a window, print "
           "timings\n"
           "  pointraster [--headless] [options] VIEW.json  open a scene file (docs/SCENE.md)\n"
           "  pointraster --info [--json] FILE...         describe point-cloud files\n"
           "  pointraster --convert OUT FILE...           convert to COPC, LAZ or LAS (OUT's "
           "suffix)\n"
           "  pointraster --measure KIND X,Y,Z;... [FILE...]  measure, print the values\n"
           "  pointraster --profile X,Y,Z;... --profile-width W [FILE...]  a profile\n";
  }
};

/// The parser, writing into `o`.
void build_parser(CLI::App& app, Options& o) {
  app.description(
      "pointraster: a real-time point-cloud viewer (CUDA and multi-threaded CPU rasterizers)\n");
  auto formatter = std::make_shared<HelpFormatter>();
  formatter->column_width(24);
  formatter->label("Positionals", "arguments");
  app.formatter(formatter);
  app.set_help_flag();  // --help is an ordinary flag: bad options are reported first
  app.allow_extras();   // unknown options are named by check_extras()
  app.option_defaults()->group("options");
  add_run_options(app, o);
  add_view_options(app, o);
  add_renderer_options(app, o);
  add_color_options(app, o);
  add_viewer_options(app, o);
  add_measure_options(app, o);
  add_profile_options(app, o);
  add_file_options(app, o);
  add_clip_options(app, o);
  add_scene_options(app, o);
  add_video_options(app, o);
}

/// Whether `s` reads whole as a number (strtod: also 1e3, inf, 0x10).
bool is_number(const char* s) {
  char* end = nullptr;
  (void)std::strtod(s, &end);
  return end != s && *end == '\0';
}

/// The arguments for CLI11, every --edl with its strength inline: the strength is the next
/// argument when that reads as a number ("--edl -1" is a bad strength, not another option),
/// else 1.
std::vector<std::string> normalized_arguments(const std::vector<std::string>& args) {
  std::vector<std::string> out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--measure" && i + 2 < args.size()) {
      out.push_back("--measure=" + args[i + 1] + " " + args[i + 2]);
      i += 2;
    } else if ((args[i] == "--profile" || args[i] == "--camera-path") && i + 1 < args.size()) {
      out.push_back(args[i] + "=" + args[i + 1]);
      ++i;
    } else if (args[i] != "--edl") {
      out.push_back(args[i]);
    } else if (i + 1 < args.size() && is_number(args[i + 1].c_str())) {
      out.push_back("--edl=" + args[++i]);
    } else {
      out.push_back("--edl=1");
    }
  }
  return out;
}

/// A switch given a value (`--hq=1`; CLI11 would read it as the switch's state), and `--` (no
/// option ends the options).
void check_switch_values(const CLI::App& app, const std::vector<std::string>& args) {
  for (const std::string& a : args) {
    if (a == "--") bad("unknown option '--' (see --help)");
    const size_t eq = a.find('=');
    if (a.rfind("--", 0) != 0 || eq == std::string::npos) continue;
    const CLI::Option* opt = app.get_option_no_throw(a.substr(0, eq));
    if (opt && opt->get_expected_max() == 0) bad("option " + a.substr(0, eq) + " takes no value");
  }
}

/// CLI11's message for a missing value (`--frames: 1 required TEXT missing`) in the program's
/// words; its other messages as they are.
std::string reworded(const CLI::ParseError& e) {
  const std::string what = e.what();
  const std::string name = what.substr(0, what.find(':'));
  if (dynamic_cast<const CLI::ArgumentMismatch*>(&e) && name.rfind("--", 0) == 0 &&
      name.find(' ') == std::string::npos)
    return "option " + name + " needs a value";
  return what;
}

/// The first argument CLI11 did not know, as an unknown option.
void check_extras(const CLI::App& app) {
  const std::vector<std::string> rest = app.remaining();
  if (rest.empty()) return;
  bad("unknown option '" + rest.front().substr(0, rest.front().find('=')) + "' (see --help)");
}

void check_combinations(const Options& o) {
  if (o.info && o.files.empty()) bad("--info needs at least one FILE");
  if (o.json && !o.info) bad("--json goes with --info");
  if (!o.convert.empty() && o.files.empty() && o.scene.empty() && o.scene_file.empty())
    bad("--convert needs at least one FILE, or --scene NAME");
  if (!o.convert.empty() && (o.info || o.headless))
    bad(std::string("give either --convert or ") + (o.info ? "--info" : "--headless") +
        ", not both");
  // The conversion writes every point of every scan: what limits reading does not apply.
  if (!o.convert.empty() && (!o.scans.empty() || o.max_points || o.max_depth >= 0))
    bad(std::string(!o.scans.empty() ? "--scan"
                    : o.max_points   ? "--max-points"
                                     : "--max-depth") +
        " does not go with --convert (it writes every point of every scan)");
  if (o.convert.empty() && (!o.temp_dir.empty() || o.memory || o.timings))
    bad(std::string(!o.temp_dir.empty() ? "--temp"
                    : o.memory          ? "--memory"
                                        : "--timings") +
        " goes with --convert");
  if (!o.scene.empty() && !o.files.empty()) bad("give either --scene or FILEs, not both");
  if (o.clip_polygon && (o.headless || o.info))
    bad(std::string("--clip-polygon selects what --convert and the viewer's Save write: ") +
        (o.headless ? "--headless frames do not draw it" : "--info does not take it"));
  if (!o.measures.empty() && (o.info || o.headless || !o.convert.empty()))
    bad(std::string("give either --measure or ") +
        (o.info       ? "--info"
         : o.headless ? "--headless"
                      : "--convert") +
        ", not both");
  if (o.measures.empty() &&
      (o.measure_base || o.measure_cell > 0.0 || !o.measure_out.empty() || o.measure_show))
    bad(std::string(o.measure_base         ? "--measure-base"
                    : o.measure_cell > 0.0 ? "--measure-cell"
                    : o.measure_show       ? "--measure-show"
                                           : "--measure-out") +
        " goes with --measure");
  if (o.measure_show && !o.measure_out.empty())
    bad("--measure-show opens the viewer: export from its Measurements section, not --measure-out");
}

void check_profile(const Options& o) {
  const bool any = !o.profile_line.empty() || o.profile_width || !o.profile_out.empty() ||
                   !o.profile_image.empty();
  if (!any) return;
  if (o.profile_line.empty())
    bad(std::string(o.profile_width          ? "--profile-width"
                    : !o.profile_out.empty() ? "--profile-out"
                                             : "--profile-image") +
        " goes with --profile");
  if (!o.profile_width) bad("--profile needs --profile-width");
  if (o.info || o.headless || !o.convert.empty() || !o.measures.empty())
    bad(std::string("give either --profile or ") +
        (o.info               ? "--info"
         : o.headless         ? "--headless"
         : o.measures.empty() ? "--convert"
                              : "--measure") +
        ", not both");
  std::string why;
  // The up axis does not change what makes a line bad but which points coincide; z is checked
  // here, the run checks again on the cloud's axis.
  if (!validate_profile(Profile{o.profile_line, *o.profile_width}, UpAxis::kZ, &why))
    bad("option --" + why);
}

}  // namespace

std::string convert_format(const std::string& path) {
  const FormatEntry* f = find_format_by_path(path);
  return f && f->write != ConvertOutput::kNone ? f->name : "";
}

std::string usage_text() {
  Options ignored;
  CLI::App app;
  build_parser(app, ignored);
  return app.help();
}

int parse_arguments(const std::vector<std::string>& args, Options& o, std::string* error) {
  CLI::App app;
  build_parser(app, o);
  std::vector<std::string> normalized = normalized_arguments(args);
  try {
    check_switch_values(app, normalized);
    std::reverse(normalized.begin(), normalized.end());  // CLI11 takes them last first
    app.parse(normalized);
    check_extras(app);
    finish_scene_options(o);
    check_combinations(o);
    check_profile(o);
    finish_clip_options(o);
    finish_video_options(o);
  } catch (const CLI::ParseError& e) {
    if (error) *error = reworded(e);
    return 2;
  }
  return 0;
}

int parse_options(int argc, char** argv, Options& o) {
  std::string error;
  const std::vector<std::string> args(argv + std::min(argc, 1), argv + argc);
  if (parse_arguments(args, o, &error) != 0) {
    std::fprintf(stderr, "pointraster: %s\n", error.c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(usage_text().c_str(), stdout);
    return -1;  // caller exits 0
  }
  if (o.scene_file.empty()) return 0;
  // A scene file: its options under the command line's, each problem in it one line.
  std::vector<std::string> notes;
  int rc = 0;
  const bool ok = apply_scene_file(args, o, &notes, &error, &rc);
  for (const std::string& n : notes) std::fprintf(stderr, "pointraster: %s\n", n.c_str());
  if (!ok) std::fprintf(stderr, "pointraster: %s\n", error.c_str());
  return ok ? 0 : rc;
}

}  // namespace pr
