#include "options.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "engine/scenes.h"

namespace pr {

namespace {

struct BadValue {
  std::string message;
};

template <class T>
T parse_number(const std::string& opt, const std::string& v) {
  T x{};
  const char* b = v.data();
  const char* e = b + v.size();
  auto r = std::from_chars(b, e, x);
  if (r.ec != std::errc() || r.ptr != e || v.empty())
    throw BadValue{"option " + opt + ": '" + v + "' is not a valid number"};
  return x;
}

double parse_double(const std::string& opt, const std::string& v) {
  const double d = parse_number<double>(opt, v);
  if (!std::isfinite(d)) throw BadValue{"option " + opt + ": '" + v + "' is not finite"};
  return d;
}

/// Point counts accept 1000000, 1e6, 10M, 2.5k, 1G.
uint64_t parse_count(const std::string& opt, const std::string& v) {
  if (v.empty()) throw BadValue{"option " + opt + " needs a value"};
  double mult = 1.0;
  std::string num = v;
  const char last = v.back();
  if (last == 'k' || last == 'K') mult = 1e3;
  if (last == 'm' || last == 'M') mult = 1e6;
  if (last == 'g' || last == 'G' || last == 'b' || last == 'B') mult = 1e9;
  if (mult != 1.0) num.pop_back();
  const double d = parse_double(opt, num) * mult;
  if (d < 0.0 || d > 4.0e9 || d != std::floor(d))
    throw BadValue{"option " + opt + ": '" + v + "' is not a whole count between 0 and 4e9"};
  return uint64_t(d);
}

/// auto|on|off (also 1 and 0); `allow_auto` false for the switches without a middle position.
Toggle parse_switch(const std::string& opt, const std::string& v, bool allow_auto) {
  Toggle t = Toggle::kAuto;
  if (!parse_toggle(v, &t) || (!allow_auto && t == Toggle::kAuto))
    throw BadValue{"option " + opt + ": '" + v + "' is not " +
                   (allow_auto ? "auto, on or off" : "on or off")};
  return t;
}

/// Bytes: 4000000000, 512M, 4G, 1.5G (K, M, G: powers of 1024).
uint64_t parse_bytes(const std::string& opt, const std::string& v) {
  if (v.empty()) throw BadValue{"option " + opt + " needs a value"};
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
  } catch (const BadValue&) {
    throw BadValue{"option " + opt + ": '" + v +
                   "' is not a byte count (e.g. 4000000000, 512M, 4G)"};
  }
  if (!(d >= 1.0) || d > 1.8e19)
    throw BadValue{"option " + opt + ": '" + v + "' is not a byte count of at least 1"};
  return uint64_t(d);
}

}  // namespace

std::string usage_text() {
  std::ostringstream s;
  s << "pointraster: a real-time point-cloud viewer (CUDA and multi-threaded CPU rasterizers)\n"
       "\n"
       "usage:\n"
       "  pointraster [options] [FILE...]             open the viewer on FILEs or a scene\n"
       "  pointraster --headless [options] [FILE...]  render without a window, print timings\n"
       "  pointraster --info [--json] FILE...         describe point-cloud files\n"
       "\n"
       "options:\n"
       "  --headless            render offscreen: no window; prints frame times and a summary "
       "line\n"
       "  --mode cpu|gpu        renderer (gpu needs a CUDA device; headless default: cpu; viewer "
       "default:\n"
       "                        its last choice, else gpu when a CUDA device is there, else cpu)\n"
       "  --width W, --height H image (headless) or window size in pixels (default 1280x720)\n"
       "  --scene NAME          procedural scene when no FILE is given:";
  for (const auto& sc : scene_list()) s << " " << sc.name;
  s << " (default " << kDefaultScene
    << ")\n"
       "  --points N            points to draw, e.g. 1000000, 1e6, 10M (default: scene 4M, files: "
       "all)\n"
       "  --camera X,Y,Z,YAW,PITCH  camera position (world units) and angles in degrees\n"
       "                        (yaw about +y, 0 looks along +z; pitch up positive)\n"
       "  --focus F             focal length in image-plane units (vertical fov = 2*atan(1/F))\n"
       "  --up y|z              the world's up axis (default: z for files, y for scenes)\n"
       "  --frames K            frames to render (headless default 5; viewer: quit after K)\n"
       "  --screenshot OUT.png  save the last frame (headless: the image; viewer: the window)\n"
       "  --point-size S        point size in pixels, 1 to 16 (default 1)\n"
       "  --threads T           CPU renderer threads (default: all cores)\n"
       "  --compact             compact positions: 4 bytes a point, quantized to 1/1023 of each\n"
       "                        4096-point batch's box (GPU: 7 bytes a point instead of 15; the\n"
       "                        viewer also falls back to them when a cloud does not fit)\n"
       "  --culling on|off      skip the 4096-point batches outside the view (default on; the\n"
       "                        image is the same either way)\n"
       "  --occlusion auto|on|off  skip the batches hidden behind the last frame's depths "
       "(default\n"
       "                        auto: large clouds, while it hides enough; same image)\n"
       "  --sort auto|on|off    store the cloud along a Morton curve (default auto: clouds in no\n"
       "                        spatial order); decides the order compact positions are encoded "
       "in\n"
       "  --binning auto|on|off CPU renderer: bin 1-pixel points by image band (default auto)\n"
       "  --gpu-memory-limit BYTES  the most device memory the GPU's cloud may take (K, M, G\n"
       "                        suffixes: powers of 1024); larger clouds go compact or to the CPU\n"
       "  --color MODE          point colors: rgb, intensity, elevation, classification, return,\n"
       "                        source or a scalar field's name (default: rgb when the file's\n"
       "                        colors differ, else intensity when it varies, else elevation)\n"
       "  --colormap NAME       colormap of intensity, elevation and fields: viridis (default),\n"
       "                        turbo, gray, inferno, plasma\n"
       "  --edl [STRENGTH]      eye-dome lighting: edges shaded from the depth image (strength\n"
       "                        >= 0, default 1)\n"
       "  --hq                  high-quality splats: each pixel the average color of its points\n"
       "                        within 1% of the nearest depth (no shimmer in dense clouds)\n"
       "  --pick X,Y            headless: print the point drawn at pixel (X, Y) of the last frame\n"
       "                        (pick x=... y=... z=... intensity=... class=..., or pick none)\n"
       "  --vsync on|off        viewer vsync (default on)\n"
       "  --ui-scale S          panel scale, 0.5 to 4 (default: from the display's DPI, else 1)\n"
       "  --scan K              E57: load scan K (0-based; repeat for several; default: all,\n"
       "                        merged with their poses)\n"
       "  --max-points N        read at most N points of a file (1e6, 10M like --points): COPC\n"
       "                        its octree's top levels that fit, other formats an even subset\n"
       "                        of their records\n"
       "  --max-depth D         COPC: read the octree levels 0 to D\n"
       "  --info                print format, point count, bounds, origin and attributes per FILE\n"
       "  --json                with --info: one JSON object per file\n"
       "  --help                this text\n";
  return s.str();
}

int parse_options(int argc, char** argv, Options& o) {
  try {
    for (int i = 1; i < argc; ++i) {
      std::string a = argv[i];
      std::string value;
      bool has_inline = false;
      if (a.rfind("--", 0) == 0) {
        const size_t eq = a.find('=');
        if (eq != std::string::npos) {
          value = a.substr(eq + 1);
          a = a.substr(0, eq);
          has_inline = true;
        }
      }
      auto need = [&]() -> std::string {
        if (has_inline) return value;
        if (i + 1 >= argc) throw BadValue{"option " + a + " needs a value"};
        return argv[++i];
      };
      auto no_value = [&]() {
        if (has_inline) throw BadValue{"option " + a + " takes no value"};
      };
      if (a == "--help" || a == "-h") {
        no_value();
        o.help = true;
      } else if (a == "--compact") {
        no_value();
        o.compact = true;
      } else if (a == "--headless") {
        no_value();
        o.headless = true;
      } else if (a == "--info") {
        no_value();
        o.info = true;
      } else if (a == "--json") {
        no_value();
        o.json = true;
      } else if (a == "--mode") {
        const std::string m = need();
        if (m != "cpu" && m != "gpu")
          throw BadValue{"option --mode: '" + m + "' is not cpu or gpu"};
        o.mode = m;
      } else if (a == "--width" || a == "--height") {
        const int v = parse_number<int>(a, need());
        if (v < 1 || v > 16384) throw BadValue{"option " + a + ": must be 1 to 16384"};
        (a == "--width" ? o.width : o.height) = v;
      } else if (a == "--scene") {
        o.scene = need();
        if (!is_scene(o.scene)) {
          std::string known;
          for (const auto& sc : scene_list()) known += " " + sc.name;
          throw BadValue{"option --scene: unknown scene '" + o.scene + "' (known:" + known + ")"};
        }
      } else if (a == "--points") {
        o.points = parse_count(a, need());
      } else if (a == "--camera") {
        const std::string v = need();
        double c[5];
        size_t start = 0;
        for (int k = 0; k < 5; ++k) {
          const size_t comma = v.find(',', start);
          if ((k < 4) != (comma != std::string::npos))
            throw BadValue{"option --camera: expected X,Y,Z,YAW,PITCH, got '" + v + "'"};
          c[k] = parse_double(
              a, v.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
          start = comma + 1;
        }
        o.camera = CameraArg{c[0], c[1], c[2], c[3], c[4]};
      } else if (a == "--focus") {
        const double f = parse_double(a, need());
        if (!(f > 0.0) || f > 1e4) throw BadValue{"option --focus: must be > 0 and <= 10000"};
        o.focus = f;
      } else if (a == "--up") {
        const std::string v = need();
        if (v != "y" && v != "z" && v != "Y" && v != "Z")
          throw BadValue{"option --up: '" + v + "' is not y or z"};
        o.up = char(v[0] | 0x20);
      } else if (a == "--frames") {
        const int k = parse_number<int>(a, need());
        if (k < 1) throw BadValue{"option --frames: must be at least 1"};
        o.frames = k;
      } else if (a == "--screenshot") {
        o.screenshot = need();
        if (o.screenshot.empty()) throw BadValue{"option --screenshot needs a file name"};
      } else if (a == "--point-size") {
        const int s = parse_number<int>(a, need());
        if (s < 1 || s > 16) throw BadValue{"option --point-size: must be 1 to 16"};
        o.point_size = s;
      } else if (a == "--threads") {
        const int t = parse_number<int>(a, need());
        if (t < 1 || t > 1024) throw BadValue{"option --threads: must be 1 to 1024"};
        o.threads = unsigned(t);
      } else if (a == "--ui-scale") {
        const double s = parse_double(a, need());
        if (!(s >= 0.5 && s <= 4.0)) throw BadValue{"option --ui-scale: must be 0.5 to 4"};
        o.ui_scale = float(s);
      } else if (a == "--culling") {
        o.culling = parse_switch(a, need(), false) == Toggle::kOn;
      } else if (a == "--occlusion") {
        o.occlusion = parse_switch(a, need(), true);
      } else if (a == "--sort") {
        o.sort = parse_switch(a, need(), true);
      } else if (a == "--binning") {
        o.binning = parse_switch(a, need(), true);
      } else if (a == "--gpu-memory-limit") {
        o.gpu_memory_limit = parse_bytes(a, need());
      } else if (a == "--max-points") {
        o.max_points = parse_count(a, need());
      } else if (a == "--max-depth") {
        const long long d = parse_number<long long>(a, need());
        if (d < 0 || d > 64) throw BadValue{"option --max-depth: must be 0 to 64"};
        o.max_depth = int(d);
      } else if (a == "--scan") {
        const long long k = parse_number<long long>(a, need());
        if (k < 0 || k > 0xFFFFFFFFll) throw BadValue{"option --scan: must be 0 or more"};
        o.scans.push_back(uint32_t(k));
      } else if (a == "--color") {
        o.color = need();
        ColorMode m;
        if (!parse_color_mode(o.color, &m, nullptr))
          throw BadValue{
              "option --color needs a mode: rgb, intensity, elevation, classification, "
              "return, source or a field's name"};
      } else if (a == "--colormap") {
        const std::string v = need();
        Colormap map;
        if (!parse_colormap(v, &map))
          throw BadValue{"option --colormap: '" + v +
                         "' is not viridis, turbo, gray, inferno or plasma"};
        o.colormap = map;
      } else if (a == "--edl") {
        // The strength is optional: the next argument when it is a number ("--edl -1" is a bad
        // strength, not another option).
        std::string v = value;
        if (!has_inline && i + 1 < argc) {
          char* end = nullptr;
          const char* next = argv[i + 1];
          (void)std::strtod(next, &end);
          if (end != next && *end == '\0') v = argv[++i];
        }
        const double s = v.empty() && !has_inline ? 1.0 : parse_double(a, v);
        if (!(s >= 0.0 && s <= 100.0)) throw BadValue{"option --edl: strength must be 0 to 100"};
        o.edl = float(s);
      } else if (a == "--hq") {
        if (has_inline) throw BadValue{"option --hq takes no value"};
        o.hq = true;
      } else if (a == "--pick") {
        const std::string v = need();
        const size_t comma = v.find(',');
        if (comma == std::string::npos)
          throw BadValue{"option --pick: expected X,Y, got '" + v + "'"};
        const int x = parse_number<int>(a, v.substr(0, comma));
        const int y = parse_number<int>(a, v.substr(comma + 1));
        if (x < 0 || y < 0) throw BadValue{"option --pick: X and Y must be 0 or more"};
        o.pick = std::make_pair(x, y);
      } else if (a == "--vsync") {
        const std::string v = need();
        if (v != "on" && v != "off") throw BadValue{"option --vsync: '" + v + "' is not on or off"};
        o.vsync = v == "on";
      } else if (a.size() > 1 && a[0] == '-') {
        throw BadValue{"unknown option '" + a + "' (see --help)"};
      } else {
        o.files.push_back(a);
      }
    }
    if (o.info && o.files.empty()) throw BadValue{"--info needs at least one FILE"};
    if (o.json && !o.info) throw BadValue{"--json goes with --info"};
    if (!o.scene.empty() && !o.files.empty())
      throw BadValue{"give either --scene or FILEs, not both"};
  } catch (const BadValue& e) {
    std::fprintf(stderr, "pointraster: %s\n", e.message.c_str());
    return 2;
  }
  if (o.help) {
    std::fputs(usage_text().c_str(), stdout);
    return -1;  // caller exits 0
  }
  return 0;
}

}  // namespace pr
