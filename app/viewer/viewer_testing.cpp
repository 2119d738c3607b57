#include "viewer/viewer_testing.h"

#include <cstdio>

#include "viewer/screen_map.h"
#include "viewer/viewer_impl.h"

namespace pr {

int ViewerTesting::run(const ViewerHooks* hooks) {
  if (!hooks || !hooks->on_frame) return run_frames({});
  return run_frames([this, hooks](int frame) { hooks->on_frame(frame, *this); });
}

SDL_Window* ViewerTesting::window() const {
  return impl_->win.window;
}
Camera& ViewerTesting::camera() {
  return impl_->view.camera;
}
std::string ViewerTesting::mode() const {
  return impl_->backend->gpu_active() ? "gpu" : "cpu";
}
bool ViewerTesting::set_mode(const std::string& mode) {
  return impl_->backend->switch_mode(mode == "gpu");
}
bool ViewerTesting::set_compact(bool on) {
  impl_->backend->set_compact(on);
  return impl_->backend->compact_active();
}
bool ViewerTesting::set_gpu_sort(bool on) {
  impl_->backend->set_sort(on);
  return impl_->backend->gpu_sorted();
}
void ViewerTesting::set_culling(bool on) {
  impl_->backend->set_culling(on);
}
void ViewerTesting::set_occlusion(Toggle mode) {
  impl_->backend->set_occlusion(mode);
}
const RenderOptions& ViewerTesting::render_options() const {
  return impl_->backend->options();
}
Clip& ViewerTesting::clip() {
  return impl_->clips.clip;
}
void ViewerTesting::add_clip_box() {
  impl_->clips.add_box(impl_->cloud.bounds);
}
void ViewerTesting::set_clip_drawing(bool on) {
  impl_->clips.drawing = on;
}
void ViewerTesting::set_section_through_picks(bool on) {
  impl_->clips.three_points = on;
  impl_->clips.section_picks.clear();
}
bool ViewerTesting::clip_drawing() const {
  return impl_->clips.drawing;
}
bool ViewerTesting::window_point(const glm::dvec3& p, float* x, float* y) const {
  const PickFrame f = impl_->pick_frame();
  const std::optional<ImVec2> at = ScreenMap(f.camera, f.settings, f.area).point(p);
  if (!at) return false;
  *x = at->x;
  *y = at->y;
  return true;
}
bool ViewerTesting::clip_handle(int box, int handle, float* x, float* y) const {
  const PickFrame f = impl_->pick_frame();
  return impl_->clips.handle_at(box, handle, f.camera, f.settings, f.area, x, y);
}
void ViewerTesting::add_clip_box_around_view() {
  impl_->clips.add_box_around_view(impl_->view.camera, impl_->cloud.bounds);
}

uint64_t ViewerTesting::cpu_culled_batches() const {
  return impl_->backend->cpu().culled_batches();
}
uint64_t ViewerTesting::cpu_occluded_batches() const {
  return impl_->backend->cpu().occluded_batches();
}
std::string ViewerTesting::display_path() const {
  return impl_->backend->display_path();
}
int ViewerTesting::display_allocations() const {
  return impl_->win.display ? impl_->win.display->allocations() : 0;
}
int ViewerTesting::image_width() const {
  return impl_->win.display ? impl_->win.display->width() : 0;
}
int ViewerTesting::image_height() const {
  return impl_->win.display ? impl_->win.display->height() : 0;
}
ImageRect ViewerTesting::image_area() const {
  return impl_->area;
}
bool ViewerTesting::panel_shown() const {
  return impl_->panel.shown;
}
int ViewerTesting::panel_width() const {
  return impl_->panel.width;
}
Bounds ViewerTesting::cloud_bounds() const {
  return impl_->cloud.points ? impl_->cloud.bounds : Bounds{};
}
float ViewerTesting::ui_scale() const {
  return impl_->win.ui_scale;
}
bool ViewerTesting::cloud_busy() const {
  return impl_->cloud.job.busy() || impl_->stream.opening();
}
void ViewerTesting::cancel_cloud_job() {
  impl_->cloud.job.cancel();
}
void ViewerTesting::hold_cloud_job(bool on) {
  impl_->cloud.job.hold(on);
}
uint64_t ViewerTesting::cloud_points() const {
  return impl_->cloud.point_total();
}
void ViewerTesting::set_point_count(uint64_t n) {
  impl_->cloud.set_point_target(n, impl_->backend->gpu_active(), impl_->rs, impl_->status);
}
uint64_t ViewerTesting::points_drawn() const {
  return impl_->times.last_stats.points_drawn;
}
std::string ViewerTesting::status() const {
  return impl_->status.text;
}
bool ViewerTesting::read_image(std::vector<uint32_t>& px, int& w, int& h) const {
  const Display& d = *impl_->win.display;
  w = d.width();
  h = d.height();
  return impl_->have_image && d.read_image(px);
}

bool ViewerTesting::set_color(const std::string& mode) {
  ColorState& cs = impl_->colors;
  ColorSettings c = cs.wanted;
  const PointCloud* cloud = impl_->cloud.points.get();
  if (!cloud || !parse_color_mode(mode, &c.mode, &c.field) ||
      !color_mode_available(*cloud, c.mode, c.field))
    return false;
  cs.choose(c);
  return true;
}
std::string ViewerTesting::color_mode() const {
  const ColorSettings& c = impl_->colors.shown;
  return c.mode == ColorMode::kField ? c.field : color_mode_name(c.mode);
}
bool ViewerTesting::color_busy() const {
  return impl_->colors.busy();
}
std::vector<std::string> ViewerTesting::color_modes() const {
  std::vector<std::string> out;
  if (const PointCloud* cloud = impl_->cloud.points.get())
    for (const ColorSettings& c : pr::color_modes(impl_->colors, *cloud))
      out.push_back(c.mode == ColorMode::kField ? c.field : color_mode_name(c.mode));
  return out;
}
std::vector<std::pair<int, uint64_t>> ViewerTesting::class_list() const {
  return class_rows(impl_->colors);
}

void ViewerTesting::set_class_visible(int code, bool visible) {
  impl_->colors.set_class_visible(code, visible);
}

int ViewerTesting::pick_count() const {
  return impl_->picks.count;
}
bool ViewerTesting::pick_pending() const {
  return impl_->picks.pending();
}
double ViewerTesting::last_pick_ms() const {
  return impl_->picks.last_ms;
}
void ViewerTesting::hold_picks(bool on) {
  impl_->picks.job.hold(on);
}
PickResult ViewerTesting::pick(int i) const {
  const PickState& p = impl_->picks;
  return i >= 0 && i < p.count ? p.points[i] : PickResult{};
}

void ViewerTesting::set_profile_tool(bool on) {
  impl_->profile.choose(on);
  if (on) impl_->measures.choose(false, impl_->measures.tool);
}
std::vector<glm::dvec3>& ViewerTesting::profile_line() {
  return impl_->profile.line;
}
void ViewerTesting::set_profile_width(double width) {
  impl_->profile.width = width;
}
bool ViewerTesting::make_profile() {
  return impl_->profile.make(impl_->pick_frame(), impl_->status);
}
bool ViewerTesting::profile_busy() const {
  return impl_->profile.job.busy();
}
const ProfileCloud* ViewerTesting::profile() const {
  return impl_->profile.profile.get();
}
bool ViewerTesting::profile_window_shown() const {
  return impl_->profile.profile && impl_->profile.view.open;
}
bool ViewerTesting::profile_image_rect(float* x0, float* y0, float* x1, float* y1) const {
  const ProfileView& v = impl_->profile.view;
  if (!(v.x1 > v.x0)) return false;
  *x0 = v.x0, *y0 = v.y0, *x1 = v.x1, *y1 = v.y1;
  return true;
}
const Image& ViewerTesting::profile_image() const {
  return impl_->profile.view.image;
}
const Camera& ViewerTesting::profile_camera() const {
  return impl_->profile.view.camera;
}
std::vector<PickResult> ViewerTesting::profile_picks() const {
  const ProfileView& v = impl_->profile.view;
  return std::vector<PickResult>(v.picks, v.picks + v.pick_count);
}
ProfileSpan ViewerTesting::profile_span() const {
  return impl_->profile.span();
}
bool ViewerTesting::export_profile(const std::string& path) {
  return impl_->profile.export_to(path, impl_->status);
}
bool ViewerTesting::profile_export_busy() const {
  return impl_->profile.export_job.busy();
}
bool ViewerTesting::set_measure_tool(const std::string& kind) {
  MeasureKind k = MeasureKind::kDistance;
  if (kind.empty()) {
    impl_->measures.choose(false, k);
    return true;
  }
  if (!parse_measure_kind(kind, &k)) return false;
  impl_->measures.choose(true, k);
  return true;
}
std::vector<Measurement> ViewerTesting::measurements() const {
  std::vector<Measurement> out;
  for (const MeasureState::Item& it : impl_->measures.items) out.push_back(it.m);
  return out;
}
size_t ViewerTesting::measure_pending() const {
  return impl_->measures.pending.size();
}
bool ViewerTesting::export_measurements(const std::string& path) {
  return impl_->measures.export_all(path, impl_->status);
}

std::vector<std::pair<std::string, std::string>> ViewerTesting::point_attributes(
    uint64_t index) const {
  const CloudState& c = impl_->cloud;
  if (!c.points) return {};
  return pr::point_attributes(*c.points, index, c.file_colors());
}

bool ViewerTesting::open_files(const std::vector<std::string>& paths) {
  impl_->start_open(paths);
  return impl_->cloud.job.busy() || impl_->stream.opening();
}
bool ViewerTesting::read_more(bool everything) {
  return impl_->load_more(everything);
}
const std::vector<std::string>& ViewerTesting::recent_files() const {
  return impl_->win.settings.recent;
}
void ViewerTesting::request_quit() {
  impl_->quit = true;
}
bool ViewerTesting::panel_item(const std::string& name, PanelItem* item) {
  PanelMarks& marks = impl_->marks;
  marks.on = true;
  const auto it = marks.items.find(name);
  if (it == marks.items.end()) return false;
  const PanelMarks::Rect& r = it->second;
  *item = PanelItem{r.x0, r.y0, r.x1, r.y1, r.visible};
  return true;
}

bool ViewerTesting::streaming() const {
  return impl_->stream.scene != nullptr;
}
bool ViewerTesting::stream_opening() const {
  return impl_->stream.opening();
}
StreamStats ViewerTesting::stream_stats() const {
  return impl_->stream.stats;
}
void ViewerTesting::set_stream_options(const StreamOptions& options) {
  impl_->stream.options = options;
  impl_->stream.options_changed = true;
}
const StreamOptions& ViewerTesting::stream_options() const {
  return impl_->stream.options;
}
std::vector<std::string> ViewerTesting::stream_lines() const {
  StreamFigures f = stream_figures(impl_->stream.stats, impl_->stream.options);
  f.counts.push_back(f.progress);
  return f.counts;
}

bool ViewerTesting::save_cloud(const std::string& path) {
  std::snprintf(impl_->save.path, sizeof impl_->save.path, "%s", path.c_str());
  const ExportSelection sel{&impl_->clips.clip, impl_->polygon.selection()};
  return impl_->save.start(impl_->save.path, impl_->cloud, impl_->stream, sel, impl_->status);
}
std::string ViewerTesting::save_unavailable() const {
  return impl_->save.unavailable(impl_->cloud, impl_->stream);
}
void ViewerTesting::set_save_selection_only(bool on) {
  impl_->save.only_selection = on;
}
void ViewerTesting::start_polygon() {
  impl_->polygon.start();
}
bool ViewerTesting::polygon_drawing() const {
  return impl_->polygon.drawing;
}
size_t ViewerTesting::polygon_pending() const {
  return impl_->polygon.vertices.size();
}
const ClipPolygon* ViewerTesting::polygon() const {
  return impl_->polygon.selection();
}
void ViewerTesting::clear_polygon() {
  impl_->polygon.clear();
}
bool ViewerTesting::save_busy() const {
  return impl_->save.job.busy();
}
void ViewerTesting::cancel_save() {
  impl_->save.job.cancel();
}
bool ViewerTesting::save_image(const std::string& path, int width, int height,
                               uint64_t tile_pixels) {
  ImageSaveState& im = impl_->image_save;
  std::snprintf(im.path, sizeof im.path, "%s", path.c_str());
  im.view_shape = false;
  im.width = width;
  im.height = height;
  im.tile_pixels = tile_pixels;
  return impl_->start_image_save();
}
bool ViewerTesting::image_save_busy() const {
  return impl_->image_save.job.busy();
}
double ViewerTesting::image_save_progress() const {
  return impl_->image_save.job.fraction();
}
void ViewerTesting::cancel_image_save() {
  impl_->image_save.job.cancel();
}
const RenderSettings& ViewerTesting::render_settings() const {
  return impl_->rs;
}

bool ViewerTesting::save_view(const std::string& path) {
  return impl_->save_view(path);
}
bool ViewerTesting::open_view(const std::string& path) {
  return impl_->open_view(path);
}
std::vector<Annotation>& ViewerTesting::annotations() {
  return impl_->annotations.items;
}
bool ViewerTesting::add_annotation(const std::string& title, const std::string& text) {
  Viewer::Impl& m = *impl_;
  if (m.picks.count == 0) return false;
  std::snprintf(m.annotations.title, sizeof m.annotations.title, "%s", title.c_str());
  std::snprintf(m.annotations.text, sizeof m.annotations.text, "%s", text.c_str());
  return m.annotations.add(m.picks.points[m.picks.count - 1].world, m.status);
}
bool ViewerTesting::annotation_flying() const {
  return impl_->annotations.flight.active;
}
bool ViewerTesting::annotation_label(size_t i, float* x, float* y) const {
  for (const auto& [r, item] : impl_->annotations.labels)
    if (item == i) {
      *x = 0.5f * (r.x + r.z);
      *y = 0.5f * (r.y + r.w);
      return true;
    }
  return false;
}
CameraPath& ViewerTesting::camera_path() {
  return impl_->path.path;
}
void ViewerTesting::add_path_key() {
  impl_->path.add_key(impl_->view.camera);
}
void ViewerTesting::play_path(bool on) {
  impl_->path.play(on);
}
bool ViewerTesting::path_playing() const {
  return impl_->path.playing;
}
bool ViewerTesting::render_video(const std::string& path, int width, int height, int fps) {
  Impl& m = *impl_;
  std::snprintf(m.path.render.path, sizeof m.path.render.path, "%s", path.c_str());
  m.path.render.width = width;
  m.path.render.height = height;
  m.path.render.fps = fps;
  return m.path.render.start(m.path.path, m.view.camera, m.rs, m.status);
}
bool ViewerTesting::video_busy() const {
  return impl_->path.render.busy();
}
int ViewerTesting::video_next_frame() const {
  return impl_->path.render.next_frame();
}
void ViewerTesting::cancel_video() {
  impl_->path.render.cancel(impl_->status);
}

}  // namespace pr
