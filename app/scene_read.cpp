// A scene read from JSON (scene_json.h): each object's keys taken one by one, each value checked
// for its type and range as the command line checks the option it stands for; a problem adds one
// note and leaves out what it concerns, an unknown key is named, and the rest is read.
#include <cmath>
#include <filesystem>
#include <limits>

#include "engine/io/open_byte_source.h"
#include "engine/scenes.h"
#include "scene_reader.h"

namespace pr {

namespace fs = std::filesystem;
using namespace scene_read;  // NOLINT: this file's own helpers

namespace {

constexpr double kPi = 3.14159265358979323846;

void read_inputs(Obj& in, const std::string& folder, Options& o) {
  if (const json* files = in.array("files")) {
    o.files.clear();
    o.scene.clear();
    for (size_t i = 0; i < files->size(); ++i) {
      const json& f = (*files)[i];
      if (!f.is_string()) {
        in.bad(indexed("files", i), std::string("expected a path, got ") + f.type_name());
        continue;
      }
      const std::string path = resolved_input(f.get<std::string>(), folder);
      std::error_code ec;
      if (!is_url(path) && !fs::exists(path, ec)) {
        in.notes().add("input '" + path + "' is not there (left out)");
        continue;
      }
      o.files.push_back(path);
    }
  }
  std::string scene;
  if (in.text("scene", &scene) && o.files.empty()) {
    if (is_scene(scene))
      o.scene = scene;
    else
      in.bad("scene", "unknown scene '" + scene + "'");
  }
  long long n = 0;
  if (in.integer("points", &n, 0, 4'000'000'000LL)) o.points = uint64_t(n);
  std::string up;
  if (in.text("up", &up)) {
    if (up == "y" || up == "z")
      o.up = up[0];
    else
      in.bad("up", in_quotes(up) + " is not y or z");
  }
  if (const json* scans = in.array("scans")) {
    o.scans.clear();
    for (const json& s : *scans)
      if (s.is_number_unsigned() && s.get<uint64_t>() <= 0xFFFFFFFFull)
        o.scans.push_back(uint32_t(s.get<uint64_t>()));
      else
        in.bad("scans", in_quotes(s.dump()) + " is not a scan number");
  }
  if (in.integer("max_points", &n, 0, 4'000'000'000LL)) o.max_points = uint64_t(n);
  if (in.integer("max_depth", &n, -1, 64)) o.max_depth = int(n);
  in.boolean("stream", &o.stream);
}

void read_image(Obj& im, SceneExtras& x) {
  long long w = 0, h = 0;
  if (im.integer("width", &w, 1, 16384)) x.image_width = int(w);
  if (im.integer("height", &h, 1, 16384)) x.image_height = int(h);
}

/// A camera's keys into `c`; false when it has no position.
bool read_camera_keys(Obj& cam, Camera* c) {
  if (!cam.vec3("position", &c->position)) {
    cam.notes().add(cam.at("position") + ": missing (the camera left out)");
    cam.take("yaw_rad"), cam.take("pitch_rad"), cam.take("focus"), cam.take("vfov_deg");
    cam.take("projection"), cam.take("ortho_height"), cam.take("up");
    return false;
  }
  cam.number("yaw_rad", &c->yaw);
  cam.number("pitch_rad", &c->pitch, -kPi / 2, kPi / 2);
  double vfov = 0.0;
  if (cam.number("vfov_deg", &vfov, 1e-3, 179.0))
    c->focus = Camera::focus_for_vfov(vfov * kPi / 180);
  cam.number("focus", &c->focus, 1e-4, 1e4);  // the focus, exact, over a field of view
  std::string p;
  if (cam.text("projection", &p) && !parse_projection(p, &c->projection))
    cam.bad("projection", in_quotes(p) + " is not perspective or ortho");
  cam.number("ortho_height", &c->ortho_height, 1e-9, 1e12);
  return true;
}

void read_render(Obj& r, Options& o) {
  SceneExtras& x = o.scene_extras;
  std::string mode;
  if (r.text("mode", &mode)) {
    if (mode == "cpu" || mode == "gpu")
      o.mode = mode;
    else
      r.bad("mode", in_quotes(mode) + " is not cpu or gpu");
  }
  long long n = 0;
  if (r.integer("point_size", &n, 1, 16)) o.point_size = int(n);
  r.boolean("adaptive_size", &o.adaptive_size);
  if (r.integer("max_point_size", &n, 1, 32)) o.max_point_size = int(n);
  bool edl = o.edl.has_value();
  double d = 0.0;
  const bool edl_given = r.boolean("edl", &edl);
  if (r.number("edl_strength", &d, 0.0, 100.0)) o.edl = float(d);
  if (edl && !o.edl) o.edl = 1.0f;
  if (edl_given && !edl) o.edl.reset();
  if (r.number("edl_radius", &d, 0.5, 16.0)) x.edl_radius = float(d);
  r.boolean("hq", &o.hq);
  if (const json* bg = r.take("background")) {
    glm::dvec3 c(0.0);
    if (finite_vec3(*bg, &c) && c.x >= 0 && c.y >= 0 && c.z >= 0 && c.x <= 1 && c.y <= 1 &&
        c.z <= 1)
      x.background = std::array<float, 3>{float(c.x), float(c.y), float(c.z)};
    else
      r.bad("background", "expected [R, G, B] from 0 to 1, got " + bg->dump());
  }
  r.boolean("compact", &o.compact);
  r.boolean("culling", &o.culling);
  for (auto [key, t] : {std::pair<const char*, Toggle*>{"occlusion", &o.occlusion},
                        {"sort", &o.sort},
                        {"binning", &o.binning}}) {
    std::string v;
    if (r.text(key, &v) && !parse_toggle(v, t))
      r.bad(key, in_quotes(v) + " is not auto, on or off");
  }
}

void read_color(Obj& c, Options& o) {
  SceneExtras& x = o.scene_extras;
  std::string v;
  ColorMode mode;
  if (c.text("mode", &v)) {
    if (parse_color_mode(v, &mode, nullptr))
      o.color = v;
    else
      c.bad("mode", "an empty mode");
  }
  Colormap map;
  if (c.text("colormap", &v)) {
    if (parse_colormap(v, &map))
      o.colormap = map;
    else
      c.bad("colormap", in_quotes(v) + " is not viridis, turbo, gray, inferno or plasma");
  }
  c.number("gamma", &x.gamma, 0.01, 100.0);
  if (const json* r = c.take("range")) {
    if (r->is_array() && r->size() == 2 && (*r)[0].is_number() && (*r)[1].is_number() &&
        (*r)[0].get<double>() < (*r)[1].get<double>() && std::isfinite((*r)[0].get<double>()) &&
        std::isfinite((*r)[1].get<double>()))
      x.color_range = std::make_pair((*r)[0].get<double>(), (*r)[1].get<double>());
    else
      c.bad("range", "expected [LOW, HIGH] with LOW below HIGH, got " + r->dump());
  }
  if (const json* h = c.array("hidden_classes")) {
    x.hidden_classes.clear();
    for (const json& k : *h)
      if (k.is_number_unsigned() && k.get<uint64_t>() <= 255)
        x.hidden_classes.push_back(uint8_t(k.get<uint64_t>()));
      else
        c.bad("hidden_classes", in_quotes(k.dump()) + " is not a class (0 to 255)");
  }
}

void read_streaming(Obj& s, Options& o) {
  long long n = 0;
  double d = 0.0;
  if (s.integer("point_budget", &n, 1, 4'000'000'000LL)) o.point_budget = uint64_t(n);
  if (s.number("sse", &d, 0.0, 1e4)) o.sse = d;
  if (s.number("cache_memory", &d, 1.0, 1.8e19)) o.cache_memory = uint64_t(d);
}

/// The scene's sections, each its own object.
void read_sections(const json& j, const std::string& folder, const Notes& notes, Options& o) {
  Obj top(j, "", notes);
  std::string format;
  if (top.text("format", &format) && format != kSceneFormat)
    notes.add("format '" + format + "' is not '" + kSceneFormat + "' (read anyway)");
  const std::string as_current = "read as version " + std::to_string(kSceneVersion);
  const json* version = top.take("version");
  if (!version)
    notes.add("no version: " + as_current);
  else if (!version->is_number_integer() || version->get<long long>() < 1)
    notes.add("version: expected a whole number from 1, got " + version->dump() + ": " +
              as_current);
  else if (version->get<long long>() > kSceneVersion)
    notes.add("version " + version->dump() + " is newer than this program's (" +
              std::to_string(kSceneVersion) + "): what version " + std::to_string(kSceneVersion) +
              " holds is read");
  if (const json* v = top.object("inputs")) {
    Obj in(*v, "inputs", notes);
    read_inputs(in, folder, o);
  }
  if (const json* v = top.object("image")) {
    Obj im(*v, "image", notes);
    read_image(im, o.scene_extras);
  }
  if (const json* v = top.object("camera")) {
    Obj cam(*v, "camera", notes);
    Camera c;
    if (read_camera_keys(cam, &c)) o.scene_extras.camera = c;
  }
  if (const json* v = top.object("render")) {
    Obj r(*v, "render", notes);
    read_render(r, o);
  }
  if (const json* v = top.object("color")) {
    Obj c(*v, "color", notes);
    read_color(c, o);
  }
  if (const json* v = top.object("streaming")) {
    Obj s(*v, "streaming", notes);
    read_streaming(s, o);
  }
  read_scene_lists(top, o);
}

}  // namespace

void read_scene_json(const json& j, const std::string& scene_path, const std::string& name,
                     Options& o, std::vector<std::string>* notes_out) {
  const Notes notes{name, notes_out};
  if (!j.is_object()) {
    notes.add(std::string("not a scene: expected a JSON object, got ") + j.type_name() +
              " (nothing read)");
    return;
  }
  read_sections(j, scene_folder(scene_path), notes, o);
}

}  // namespace pr
