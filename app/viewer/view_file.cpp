// Scene files in the viewer (view_file.h): the live view as Options (what headless mode draws the
// same image from), written; a scene read and applied over the viewer.
#include "viewer/view_file.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/scenes.h"
#include "scene_file.h"
#include "startup.h"
#include "streaming.h"
#include "viewer/panel_widgets.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace fs = std::filesystem;

ViewFileState::Action ViewFileState::draw_section(const std::string& dir,
                                                  const std::string& scene_file,
                                                  PanelMarks& marks) {
  const bool open = ImGui::CollapsingHeader("Views");
  marks.mark("view.header");
  if (!open) return Action::kNone;
  if (!suggested) {
    suggested = true;
    const std::string p = scene_file.empty() ? (fs::path(dir) / "view.json").string() : scene_file;
    std::snprintf(path, sizeof path, "%s", p.c_str());
  }
  ImGui::InputText("view path", path, sizeof path);
  marks.mark("view.path");
  std::error_code ec;
  const bool exists = path[0] && fs::exists(path, ec);
  Action a = Action::kNone;
  if (ImGui::Button(exists ? "Save view (replace)###saveview" : "Save view###saveview"))
    a = Action::kSave;
  marks.mark("view.save");
  tooltip(
      "Writes the view to a scene file (.json, docs/SCENE.md): the inputs, the camera, the\n"
      "renderer's settings, colors, clip, measurements, annotations and camera path.\n"
      "pointraster FILE.json opens it; --headless draws the same image.");
  ImGui::SameLine();
  ImGui::BeginDisabled(!exists);
  if (ImGui::Button("Open view")) a = Action::kOpen;
  marks.mark("view.open");
  ImGui::EndDisabled();
  return a;
}

// ---------------------------------------------------------------------------------------------
// The live view as Options

namespace {

std::string color_name(const ColorSettings& c) {
  return c.mode == ColorMode::kField ? c.field : color_mode_name(c.mode);
}

/// The colors a scene asks for (its --color, colormap, gamma and range) over `c`, elevation
/// along `up`.
ColorSettings scene_colors(const Options& o, ColorSettings c, UpAxis up) {
  parse_color_mode(o.color, &c.mode, &c.field);
  c.colormap = o.colormap.value_or(Colormap::kViridis);
  c.gamma = o.scene_extras.gamma;
  c.auto_range = !o.scene_extras.color_range;
  if (const auto& r = o.scene_extras.color_range) {
    c.range_lo = r->first;
    c.range_hi = r->second;
  }
  c.up_axis = up == UpAxis::kZ ? 2 : 1;
  return c;
}

}  // namespace

Options Viewer::Impl::live_scene() const {
  Options s;
  SceneExtras& x = s.scene_extras;
  if (stream.scene) {
    s.files = stream.scene_inputs();
    s.point_budget = stream.options.point_budget;
    s.sse = stream.options.sse_px;
    s.cache_memory = stream.options.cache_bytes;
  } else if (!cloud.scene.empty()) {
    s.scene = cloud.scene;
    s.points = cloud.scene_points;
  } else {
    s.files = cloud.file_paths();
    s.scans = cloud.files_options.scans;
    s.max_points = cloud.files_options.max_points;
    s.max_depth = cloud.files_options.max_depth;
    if (cloud.points && cloud.point_target < cloud.points->size()) s.points = cloud.point_target;
  }
  s.stream = opt.stream;
  s.up = up_axis_shown() == UpAxis::kZ ? 'z' : 'y';
  x.camera = view.camera;
  x.image_width = win.display->width();
  x.image_height = win.display->height();
  s.mode = backend->gpu_active() ? "gpu" : "cpu";
  s.point_size = win.settings.point_size;
  s.adaptive_size = win.settings.adaptive_size;
  s.max_point_size = win.settings.max_point_size;
  if (rs.edl) s.edl = rs.edl_strength;
  x.edl_radius = rs.edl_radius;
  s.hq = rs.hq;
  const float* bg = win.settings.background;
  x.background = std::array<float, 3>{bg[0], bg[1], bg[2]};
  const RenderOptions& ro = backend->options();
  s.compact = ro.compact;
  s.culling = ro.culling;
  s.occlusion = ro.occlusion;
  s.sort = ro.sort;
  s.binning = ro.binning;
  const ColorSettings& c = colors.shown;
  s.color = color_name(c);
  s.colormap = c.colormap;
  x.gamma = c.gamma;
  if (!c.auto_range) x.color_range = std::make_pair(c.range_lo, c.range_hi);
  for (int k = 0; k < 256; ++k)
    if (colors.hidden_classes[size_t(k)]) x.hidden_classes.push_back(uint8_t(k));
  s.clip = clips.clip;
  s.clip_box_has_mode.assign(s.clip.boxes.size(), true);
  s.clip_polygon = polygon.closed;
  for (const MeasureState::Item& it : measures.items) x.measurements.push_back({it.m, it.visible});
  s.annotations = annotations.items;
  s.camera_path = path.path;  // the Camera path section's keys, as edited
  s.duration = opt.duration;
  return s;
}

UpAxis Viewer::Impl::up_axis_shown() const {
  return cloud.scene.empty() ? view.files_up : up_axis_for(opt, false);
}

bool Viewer::Impl::save_view(const std::string& file) {
  if (!cloud.drawable() || win.display->empty()) {
    set_status("save view: no view on screen yet", true);
    return false;
  }
  std::string why;
  const Options scene = live_scene();
  if (!write_scene_file(file, scene, &why)) {
    set_status("save view: " + why, true);
    return false;
  }
  opt.scene_file = file;
  // Points handed over in memory (an embedding program's, Python's view()) have no file for the
  // view to name: it keeps the camera, colors and tools, and says so.
  if (scene.files.empty() && scene.scene.empty())
    set_status("saved the view to " + file +
                   " without its points (they came from memory, not from a file: save them "
                   "with Save and open that file to see them with the view)",
               false);
  else
    set_status("saved the view to " + file, false);
  return true;
}

// ---------------------------------------------------------------------------------------------
// A scene applied over the viewer

void Viewer::Impl::size_window_for_view() {
  if (!fit_view_image) return;
  const SceneExtras& x = opt.scene_extras;
  const float s = win.window ? win.ui_scale : opt.ui_scale.value_or(1.0f);
  const int wanted = win.settings.panel_width;
  // The panel's width in a window as wide as the image and the panel (layout.h's rule).
  const float p = panel_width_units(wanted, float(x.image_width) + float(wanted) * s, s);
  const int w = x.image_width + int(std::lround(p)), h = x.image_height;
  if (!win.window) {
    win.settings.width = w;
    win.settings.height = h;
    return;
  }
  int ww = 0, wh = 0;
  SDL_GetWindowSize(win.window, &ww, &wh);
  if (ww != w || wh != h) SDL_SetWindowSize(win.window, w, h);
}

void Viewer::Impl::apply_view() {
  const SceneExtras& x = opt.scene_extras;
  ViewerSettings& st = win.settings;
  st.point_size = opt.point_size;
  st.adaptive_size = opt.adaptive_size;
  if (opt.max_point_size) st.max_point_size = *opt.max_point_size;
  if (x.background)
    for (int k = 0; k < 3; ++k) st.background[k] = (*x.background)[size_t(k)];
  rs.edl = opt.edl.has_value();
  if (opt.edl) rs.edl_strength = *opt.edl;
  if (x.edl_radius) rs.edl_radius = *x.edl_radius;
  rs.hq = opt.hq;
  clips.clip = opt.clip;
  polygon.closed = opt.clip_polygon;
  measures.items.clear();
  for (const SavedMeasurement& m : x.measurements) measures.items.push_back({m.m, m.visible});
  annotations.items = opt.annotations;
  annotations.editing = -1;
  annotations.flight.active = false;
  path.path = opt.camera_path;
  path.playing = false;
  view.files_up = up_axis_for(opt, true);
}

void Viewer::Impl::hide_view_classes() {
  for (const uint8_t c : opt.scene_extras.hidden_classes) colors.set_class_visible(c, false);
}

namespace {

std::string absolute_path(const std::string& p) {
  std::error_code ec;
  const fs::path a = fs::absolute(p, ec);
  return (ec ? fs::path(p) : a).lexically_normal().string();
}

bool same_paths(std::vector<std::string> a, std::vector<std::string> b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (absolute_path(a[i]) != absolute_path(b[i])) return false;
  return true;
}

}  // namespace

bool Viewer::Impl::view_inputs_shown() const {
  if (cloud.job.busy() || stream.opening() || !cloud.drawable()) return false;
  if (stream.scene) return opt.stream && same_paths(opt.files, stream.scene_inputs());
  if (!opt.files.empty())
    return cloud.scene.empty() && same_paths(opt.files, cloud.file_paths()) &&
           opt.scans == cloud.files_options.scans &&
           opt.max_points == cloud.files_options.max_points &&
           opt.max_depth == cloud.files_options.max_depth;
  const std::string scene = opt.scene.empty() ? kDefaultScene : opt.scene;
  return cloud.scene == scene && opt.points.value_or(kDefaultScenePoints) == cloud.scene_points;
}

void Viewer::Impl::apply_view_renderer() {
  if (opt.mode) backend->switch_mode(*opt.mode == "gpu");
  if (backend->options().culling != opt.culling) backend->set_culling(opt.culling);
  if (backend->options().occlusion != opt.occlusion) backend->set_occlusion(opt.occlusion);
  if (opt.sort != Toggle::kAuto && backend->options().sort != opt.sort)
    backend->set_sort(opt.sort == Toggle::kOn);
  if (backend->options().compact != opt.compact) backend->set_compact(opt.compact);
  stream.options = stream_options(opt, backend->gpu_active());
  stream.options_changed = true;
}

bool Viewer::Impl::open_view(const std::string& file) {
  Options s;
  std::vector<std::string> notes;
  std::string why;
  if (!read_scene_file(file, s, &notes, &why)) {
    set_status("open view: " + why, true);
    return false;
  }
  // What the program was run with stays: a scripted run's frames, the window's options.
  s.frames = opt.frames;
  s.screenshot = opt.screenshot;
  s.vsync = opt.vsync;
  s.ui_scale = opt.ui_scale;
  s.threads = opt.threads;
  s.gpu_memory_limit = opt.gpu_memory_limit;
  s.scene_file = file;
  opt = std::move(s);
  apply_view();
  apply_view_renderer();
  if (view_inputs_shown()) {
    // The cloud on screen is the scene's: its camera, colors and classes at once.
    Camera cam;
    if (scene_file_camera(opt, cloud.scene.empty(), &cam)) view.camera = view.home = cam;
    if (!opt.color.empty()) colors.wanted = scene_colors(opt, colors.wanted, up_axis_shown());
    colors.hidden_classes = {};
    colors.filter_dirty = true;
    hide_view_classes();
    if (!stream.scene)
      cloud.set_point_target(opt.points.value_or(cloud.point_total()), backend->gpu_active(), rs,
                             status);
  } else {
    cloud.first = true;  // the scene's cloud arrives as the first did: its camera and classes
    colors.chosen = false;
    start_inputs();
  }
  std::string said = "opened the view " + file;
  for (const std::string& n : notes) said += "; " + n;
  set_status(said, !notes.empty());
  return true;
}

}  // namespace pr
