// The lists of a scene read from JSON (scene_reader.h): the clip (boxes, section, polygon), the
// measurements, the annotations and the camera path; an entry with a problem is left out with its
// note, the others are read.
#include "scene_reader.h"

namespace pr::scene_read {

namespace {

/// A pose's position, yaw_deg and pitch_deg; false (with the note) without a position.
bool read_pose(Obj& p, CameraPose* out) {
  const bool ok = p.vec3("position", &out->position);
  if (!ok && !p.take("position")) p.bad("position", "missing");
  p.number("yaw_deg", &out->yaw_deg);
  p.number("pitch_deg", &out->pitch_deg, -90.0, 90.0);
  return ok;
}

/// The objects of `list`, the list `key` of `parent`, each handed to `read` with its path.
template <class F>
void each_in(Obj& parent, const std::string& key, const json& list, F&& read) {
  for (size_t i = 0; i < list.size(); ++i) {
    const json& e = list[i];
    if (!e.is_object()) {
      parent.bad(indexed(key, i), std::string("expected an object, got ") + e.type_name());
      continue;
    }
    Obj item(e, parent.at(indexed(key, i)), parent.notes());
    read(item);
  }
}

/// The objects of the list `key` of `parent`, each handed to `read` with its path.
template <class F>
void each_object(Obj& parent, const std::string& key, F&& read) {
  if (const json* list = parent.array(key)) each_in(parent, key, *list, read);
}

void read_box(Obj& b, Clip& clip) {
  ClipBox box;
  const json* centre = b.take("centre");
  const json* size = b.take("size");
  const bool ok = centre && size && finite_vec3(*centre, &box.centre) &&
                  finite_vec3(*size, &box.size) && box.size.x > 0 && box.size.y > 0 &&
                  box.size.z > 0;
  b.number("yaw_deg", &box.yaw);
  b.number("pitch_deg", &box.pitch);
  b.number("roll_deg", &box.roll);
  std::string mode;
  if (b.text("mode", &mode) && !parse_clip_mode(mode, &box.mode))
    b.bad("mode", in_quotes(mode) + " is not inside, outside or highlight");
  if (!ok) {
    b.notes().add(b.where() +
                  ": needs a centre [X, Y, Z] and a size [SX, SY, SZ] above zero (the box left "
                  "out)");
    return;
  }
  clip.boxes.push_back(box);
}

void read_polygon(Obj& p, Options& o) {
  ClipPolygon poly;
  if (const json* v = p.array("vertices"))
    for (const json& q : *v)
      if (q.is_array() && q.size() == 2 && q[0].is_number() && q[1].is_number())
        poly.vertices.emplace_back(q[0].get<double>(), q[1].get<double>());
  p.boolean("on_image", &poly.on_image);
  long long n = 0;
  if (p.integer("width", &n, 1, 16384)) poly.width = int(n);
  if (p.integer("height", &n, 1, 16384)) poly.height = int(n);
  if (const json* c = p.object("camera")) {
    Obj cam(*c, p.at("camera"), p.notes());
    std::string up;
    if (cam.text("up", &up)) poly.camera.up_axis = up == "z" ? UpAxis::kZ : UpAxis::kY;
    cam.vec3("position", &poly.camera.position);
    cam.number("yaw_rad", &poly.camera.yaw);
    cam.number("pitch_rad", &poly.camera.pitch);
    cam.number("focus", &poly.camera.focus, 1e-4, 1e4);
    std::string proj;
    if (cam.text("projection", &proj)) parse_projection(proj, &poly.camera.projection);
    cam.number("ortho_height", &poly.camera.ortho_height, 1e-9, 1e12);
  }
  std::string why;
  if (!validate_clip_polygon(poly, &why)) {
    p.notes().add(p.where() + ": " + why + " (the polygon left out)");
    return;
  }
  o.clip_polygon = poly;
}

void read_clip(Obj& c, Options& o) {
  Clip clip;
  each_object(c, "boxes", [&](Obj& b) { read_box(b, clip); });
  if (const json* s = c.object("section")) {
    Obj sec(*s, c.at("section"), c.notes());
    ClipSection& cs = clip.section;
    bool ok = sec.vec3("point", &cs.point);
    ok = sec.vec3("normal", &cs.normal) && ok;
    ok = sec.number("thickness", &cs.thickness, 1e-12, kInf) && ok;
    cs.enabled = ok;
    if (!ok) c.notes().add(c.at("section") + " needs a point, a normal and a thickness (left out)");
  }
  long long tint = 0;
  if (c.integer("tint", &tint, 0, 0xFFFFFFFFLL)) clip.tint = uint32_t(tint);
  if (const json* p = c.object("polygon")) {
    Obj poly(*p, c.at("polygon"), c.notes());
    read_polygon(poly, o);
  }
  std::string why;
  if (!validate_clip(clip, &why)) {
    c.notes().add(c.where() + ": " + why + " (the clip left out)");
    return;
  }
  o.clip = clip;
  o.clip_box_has_mode.assign(clip.boxes.size(), true);
}

/// A measurement's values as saved; false (with the note) when one is malformed.
bool read_values(Obj& m, Measurement* out) {
  const json* values = m.array("values");
  if (!values) return false;
  for (const json& v : *values) {
    MeasureValue mv;
    const json* name = v.is_object() && v.contains("name") ? &v.at("name") : nullptr;
    const json* nums = v.is_object() && v.contains("v") ? &v.at("v") : nullptr;
    bool ok = name && name->is_string() && nums && nums->is_array();
    for (size_t k = 0; ok && k < nums->size(); ++k) {
      ok = (*nums)[k].is_number();
      if (ok) mv.v.push_back((*nums)[k].get<double>());
    }
    if (!ok) {
      m.bad("values", "expected {\"name\": ..., \"v\": [numbers]}, got " + v.dump());
      return false;
    }
    mv.name = name->get<std::string>();
    mv.xyz = v.contains("xyz") && v.at("xyz").is_boolean() && v.at("xyz").get<bool>();
    out->values.push_back(std::move(mv));
  }
  return true;
}

void read_measurement(Obj& m, SceneExtras& x) {
  SavedMeasurement s;
  std::string kind;
  if (!m.text("kind", &kind) || !parse_measure_kind(kind, &s.m.kind)) {
    m.notes().add(m.at("kind") + ": '" + kind + "' is not a measurement (left out)");
    m.take("points"), m.take("values"), m.take("attributes"), m.take("visible");
    return;
  }
  if (const json* pts = m.array("points"))
    for (const json& p : *pts) {
      glm::dvec3 q;
      if (finite_vec3(p, &q)) s.m.points.push_back(q);
    }
  int lo = 0, hi = 0;
  measure_point_count(s.m.kind, &lo, &hi);
  const int n = int(s.m.points.size());
  std::string why;
  const bool counted = n >= lo && (hi == 0 || n <= hi);
  if (const json* a = m.array("attributes"))
    for (const json& kv : *a)
      if (kv.is_array() && kv.size() == 2 && kv[0].is_string() && kv[1].is_string())
        s.m.attributes.emplace_back(kv[0].get<std::string>(), kv[1].get<std::string>());
  m.boolean("visible", &s.visible);
  // Values missing: measured again from the points (the kinds that read no cloud).
  const bool valued =
      read_values(m, &s.m) ||
      (counted && evaluate_measurement(s.m.kind, s.m.points, nullptr, MeasureParams{}, &s.m, &why));
  if (!counted || !valued) {
    m.notes().add(m.where() + ": " +
                  (!counted ? "a " + kind + " of " + std::to_string(n) + " points"
                            : "no values, and " + why) +
                  " (left out)");
    return;
  }
  x.measurements.push_back(std::move(s));
}

void read_annotation(Obj& a, Options& o) {
  Annotation an;
  if (!a.text("title", &an.title) || an.title.empty()) {
    a.notes().add(a.at("title") + ": missing or empty (the annotation left out)");
    a.take("text"), a.take("position"), a.take("camera");
    return;
  }
  a.text("text", &an.text);
  if (!a.vec3("position", &an.position)) {
    a.notes().add(a.at("position") + ": missing (the annotation left out)");
    a.take("camera");
    return;
  }
  if (const json* c = a.object("camera")) {
    Obj cam(*c, a.at("camera"), a.notes());
    CameraPose pose;
    if (read_pose(cam, &pose)) an.camera = pose;
  }
  o.annotations.push_back(std::move(an));
}

void read_camera_path(Obj& p, Options& o) {
  CameraPath path;
  each_object(p, "keys", [&](Obj& k) {
    CameraKey key;
    const bool posed = read_pose(k, &key.pose);
    const bool timed = k.number("time", &key.time, 0.0, kInf);
    if (posed && (timed || k.take("time") == nullptr)) path.keys.push_back(key);
  });
  p.boolean("loop", &path.loop);
  p.boolean("constant_speed", &path.constant_speed);
  double d = 0.0;
  if (p.number("duration", &d, 1e-6, 1e7)) o.duration = d;
  o.camera_path = std::move(path);
}

}  // namespace

void read_scene_lists(Obj& top, Options& o) {
  if (const json* c = top.object("clip")) {
    Obj clip(*c, "clip", top.notes());
    read_clip(clip, o);
  }
  if (const json* list = top.array("measurements")) {
    o.scene_extras.measurements.clear();
    each_in(top, "measurements", *list, [&](Obj& m) { read_measurement(m, o.scene_extras); });
  }
  if (const json* list = top.array("annotations")) {
    o.annotations.clear();
    each_in(top, "annotations", *list, [&](Obj& a) { read_annotation(a, o); });
  }
  if (const json* p = top.object("camera_path")) {
    Obj path(*p, "camera_path", top.notes());
    read_camera_path(path, o);
  }
}

}  // namespace pr::scene_read
