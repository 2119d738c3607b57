// A scene as JSON (scene_json.h): the inputs, image, camera, renderer, colors, streaming, clip,
// measurements, annotations and camera path of an Options, by the schema of docs/SCENE.md.
// Doubles are written as the shortest text that reads back to the same bits, so that a scene
// read back draws the same image.
#include <algorithm>
#include <filesystem>

#include "engine/io/open_byte_source.h"
#include "engine/scenes.h"
#include "scene_file.h"
#include "scene_json.h"
#include "startup.h"

namespace pr {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;  // the keys in the schema's order

namespace {

json vec3(const glm::dvec3& v) {
  return json::array({v.x, v.y, v.z});
}

json pose_json(const CameraPose& p) {
  return {{"position", vec3(p.position)}, {"yaw_deg", p.yaw_deg}, {"pitch_deg", p.pitch_deg}};
}

json camera_json(const Camera& c) {
  json j = {{"position", vec3(c.position)},
            {"yaw_rad", c.yaw},
            {"pitch_rad", c.pitch},
            {"focus", c.focus},
            {"projection", projection_key(c.projection)}};
  if (c.ortho()) j["ortho_height"] = c.ortho_height;
  return j;
}

json inputs_json(const Options& o, const std::string& folder) {
  json j = json::object();
  if (!o.files.empty()) {
    json files = json::array();
    for (const std::string& f : o.files) files.push_back(stored_input(f, folder));
    j["files"] = files;
  } else {
    j["scene"] = o.scene.empty() ? kDefaultScene : o.scene;
  }
  if (o.points) j["points"] = *o.points;
  j["up"] = up_axis_for(o, !o.files.empty()) == UpAxis::kZ ? "z" : "y";
  if (!o.scans.empty()) j["scans"] = o.scans;
  if (o.max_points) j["max_points"] = o.max_points;
  if (o.max_depth >= 0) j["max_depth"] = o.max_depth;
  if (!o.stream) j["stream"] = false;
  return j;
}

json render_json(const Options& o) {
  const SceneExtras& x = o.scene_extras;
  json j = {{"point_size", o.point_size}, {"adaptive_size", o.adaptive_size}};
  if (o.mode) j["mode"] = *o.mode;
  if (o.max_point_size) j["max_point_size"] = *o.max_point_size;
  j["edl"] = o.edl.has_value();
  if (o.edl) j["edl_strength"] = *o.edl;
  if (x.edl_radius) j["edl_radius"] = *x.edl_radius;
  j["hq"] = o.hq;
  if (x.background) j["background"] = *x.background;
  j["compact"] = o.compact;
  j["culling"] = o.culling;
  j["occlusion"] = toggle_name(o.occlusion);
  j["sort"] = toggle_name(o.sort);
  j["binning"] = toggle_name(o.binning);
  return j;
}

json color_json(const Options& o) {
  const SceneExtras& x = o.scene_extras;
  json j = json::object();
  if (!o.color.empty()) j["mode"] = o.color;
  if (o.colormap) j["colormap"] = colormap_name(*o.colormap);
  if (x.gamma != 1.0) j["gamma"] = x.gamma;
  if (x.color_range) j["range"] = {x.color_range->first, x.color_range->second};
  if (!x.hidden_classes.empty()) j["hidden_classes"] = x.hidden_classes;
  return j;
}

json clip_json(const Options& o) {
  json j = json::object();
  json boxes = json::array();
  for (const ClipBox& b : o.clip.boxes)
    boxes.push_back({{"centre", vec3(b.centre)},
                     {"size", vec3(b.size)},
                     {"yaw_deg", b.yaw},
                     {"pitch_deg", b.pitch},
                     {"roll_deg", b.roll},
                     {"mode", clip_mode_name(b.mode)}});
  if (!boxes.empty()) j["boxes"] = boxes;
  const ClipSection& s = o.clip.section;
  if (s.enabled)
    j["section"] = {
        {"point", vec3(s.point)}, {"normal", vec3(s.normal)}, {"thickness", s.thickness}};
  if (o.clip.tint != Clip{}.tint) j["tint"] = o.clip.tint;
  if (const auto& p = o.clip_polygon) {
    json v = json::array();
    for (const glm::dvec2& q : p->vertices) v.push_back({q.x, q.y});
    json poly = {{"vertices", v}, {"on_image", p->on_image}};
    if (p->on_image) {
      poly["camera"] = camera_json(p->camera);
      poly["camera"]["up"] = p->camera.up_axis == UpAxis::kZ ? "z" : "y";
      poly["width"] = p->width;
      poly["height"] = p->height;
    }
    j["polygon"] = poly;
  }
  return j;
}

json measurements_json(const std::vector<SavedMeasurement>& list) {
  json out = json::array();
  for (const SavedMeasurement& s : list) {
    const Measurement& m = s.m;
    json pts = json::array(), values = json::array(), attrs = json::array();
    for (const glm::dvec3& p : m.points) pts.push_back(vec3(p));
    for (const MeasureValue& v : m.values)
      values.push_back({{"name", v.name}, {"v", v.v}, {"xyz", v.xyz}});
    for (const auto& [k, v] : m.attributes) attrs.push_back({k, v});
    json e = {{"kind", measure_kind_name(m.kind)}, {"points", pts}, {"values", values}};
    if (!attrs.empty()) e["attributes"] = attrs;
    if (!s.visible) e["visible"] = false;
    out.push_back(e);
  }
  return out;
}

json annotations_json(const std::vector<Annotation>& list) {
  json out = json::array();
  for (const Annotation& a : list) {
    json e = {{"title", a.title}, {"text", a.text}, {"position", vec3(a.position)}};
    if (a.camera) e["camera"] = pose_json(*a.camera);
    out.push_back(e);
  }
  return out;
}

json camera_path_json(const Options& o) {
  json keys = json::array();
  for (const CameraKey& k : o.camera_path.keys) {
    json e = pose_json(k.pose);
    e["time"] = k.time;
    keys.push_back(e);
  }
  json j = {{"keys", keys}};
  if (o.camera_path.loop) j["loop"] = true;
  if (o.camera_path.constant_speed) j["constant_speed"] = true;
  if (o.duration) j["duration"] = *o.duration;
  return j;
}

}  // namespace

const char* projection_key(Projection p) {
  return p == Projection::kOrthographic ? "ortho" : "perspective";
}

bool parse_projection(const std::string& s, Projection* out) {
  if (s == "perspective")
    *out = Projection::kPerspective;
  else if (s == "ortho" || s == "orthographic")
    *out = Projection::kOrthographic;
  else
    return false;
  return true;
}

std::string scene_folder(const std::string& scene_path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(scene_path), ec);
  return (ec ? fs::path(scene_path) : abs).lexically_normal().parent_path().string();
}

std::string stored_input(const std::string& input, const std::string& folder) {
  if (is_url(input)) return input;
  std::error_code ec;
  const fs::path abs = fs::absolute(fs::path(input), ec).lexically_normal();
  if (ec) return input;
  const fs::path rel = abs.lexically_relative(fs::path(folder));
  // Under the scene's folder: relative, so that the folder moves with its data; elsewhere the
  // absolute path, so that the scene file moves alone.
  if (rel.empty() || *rel.begin() == "..") return abs.string();
  return rel.string();
}

std::string resolved_input(const std::string& stored, const std::string& folder) {
  if (is_url(stored) || stored.empty()) return stored;
  const fs::path p(stored);
  return p.is_absolute() ? stored : (fs::path(folder) / p).lexically_normal().string();
}

json scene_json(const Options& o, const std::string& scene_path) {
  const SceneExtras& x = o.scene_extras;
  const std::string folder = scene_folder(scene_path);
  json j = {{"format", kSceneFormat}, {"version", kSceneVersion}};
  j["inputs"] = inputs_json(o, folder);
  j["image"] = {{"width", x.image_width > 0 ? x.image_width : o.width.value_or(1280)},
                {"height", x.image_height > 0 ? x.image_height : o.height.value_or(720)}};
  if (x.camera) j["camera"] = camera_json(*x.camera);
  j["render"] = render_json(o);
  j["color"] = color_json(o);
  json streaming = json::object();
  if (o.point_budget) streaming["point_budget"] = *o.point_budget;
  if (o.sse) streaming["sse"] = *o.sse;
  if (o.cache_memory) streaming["cache_memory"] = *o.cache_memory;
  if (!streaming.empty()) j["streaming"] = streaming;
  if (json clip = clip_json(o); !clip.empty()) j["clip"] = clip;
  if (!x.measurements.empty()) j["measurements"] = measurements_json(x.measurements);
  if (!o.annotations.empty()) j["annotations"] = annotations_json(o.annotations);
  if (!o.camera_path.keys.empty() || o.duration) j["camera_path"] = camera_path_json(o);
  return j;
}

namespace {

/// A number, string or boolean as JSON; a title that is not UTF-8 is written with U+FFFD in its
/// place, not refused.
std::string scalar(const json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

/// `j` as text: an object's keys a line each, indented by two; a list of numbers, strings or
/// booleans on one line ("[1.5, 2.0, 3.0]", a point), other lists an element a line.
void dump(const json& j, int indent, std::string& out) {
  if (!j.is_structured() || (j.is_object() && j.empty())) {
    out += scalar(j);
    return;
  }
  const bool flat = std::all_of(j.begin(), j.end(), [](const json& e) { return e.is_primitive(); });
  if (j.is_array() && flat) {
    out += '[';
    for (size_t i = 0; i < j.size(); ++i) {
      if (i) out += ", ";
      out += scalar(j[i]);
    }
    out += ']';
    return;
  }
  out += j.is_object() ? "{\n" : "[\n";
  size_t i = 0;
  for (auto it = j.begin(); it != j.end(); ++it) {
    out.append(size_t(indent + 2), ' ');
    if (j.is_object()) {
      out += scalar(json(it.key()));
      out += ": ";
    }
    dump(*it, indent + 2, out);
    out += ++i < j.size() ? ",\n" : "\n";
  }
  out.append(size_t(indent), ' ');
  out += j.is_object() ? '}' : ']';
}

}  // namespace

std::string scene_text(const Options& o, const std::string& scene_path) {
  std::string out;
  dump(scene_json(o, scene_path), 0, out);
  return out + "\n";
}

}  // namespace pr
