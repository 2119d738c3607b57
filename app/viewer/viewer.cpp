// The viewer's frame loop, in the shape of Dear ImGui's example_sdl2_opengl3: events (to ImGui,
// and to the app what ImGui does not want), the finished background jobs, the rendered image, the
// panel, then the swap; and the code that joins the features: a new cloud or survey handed to the
// renderers, the colors, the camera and Recent files, and what opens next.
#include "viewer/viewer.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>

#include "engine/scenes.h"
#include "measure_run.h"
#include "scene_options.h"
#include "startup.h"
#include "streaming.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

uint32_t to_rgba(const float c[3]) {
  auto b = [](float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  return rgba(b(c[0]), b(c[1]), b(c[2]));
}

std::string time_stamp() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  localtime_r(&t, &tm);
  char b[32];
  std::strftime(b, sizeof b, "%Y%m%d-%H%M%S", &tm);
  return b;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Impl

void Viewer::Impl::frame_cloud() {
  if (cloud.drawable()) view.frame(cloud.bounds, win.aspect());
}

void Viewer::Impl::start_inputs() {
  // The files, else the scene; made in the background.
  cloud.job.set_color_request(colors.request_for_jobs(opt, view.files_up));
  if (!opt.files.empty()) {
    start_files(opt.files, load_options(opt), false);
  } else {
    const std::string scene = opt.scene.empty() ? kDefaultScene : opt.scene;
    cloud.job.start_scene(scene, opt.points.value_or(kDefaultScenePoints), backend->gpu_active());
  }
}

void Viewer::Impl::start_first_cloud() {
  // An input asked for before open() (viewer.h) is the first cloud, taken by the first frame.
  if (!requests.input_waiting()) start_inputs();
  open_box.budget = opt.max_points;
  open_box.dir = win.settings.open_dir.empty() ? std::filesystem::current_path().string()
                                               : win.settings.open_dir;
  open_box.relist(status);
}

void Viewer::Impl::choose_first_mode() {
  const std::string mode = opt.mode.value_or(win.settings.mode);
  // When the GPU is unavailable, switch_mode prints the one-line reason and stays on the CPU.
  // "auto" (no --mode, no saved choice): the GPU when there is one, without a word otherwise.
  if (mode == "gpu" || (mode == "auto" && backend->gpu_unavailable().empty()))
    backend->switch_mode(true);
}

void Viewer::Impl::poll_events() {
  SDL_Event e;
  while (SDL_PollEvent(&e)) {
    ImGui_ImplSDL2_ProcessEvent(&e);
    handle_event(e);
  }
}

void Viewer::Impl::advance(double frame_ms) {
  times.frame_started(frame_ms);
  if (ImGui::GetIO().WantCaptureKeyboard) view.fly.release_all();
  // A flight to an annotation gives way to the user's own moves.
  if (view.fly.moving() || view.looking) annotations.flight.active = false;
  annotations.flight.step(view.camera, frame_ms * 1e-3);
  view.fly.update(view.camera, frame_ms * 1e-3);
  path.advance(frame_ms * 1e-3, view.camera);  // a path playing moves the view
  CloudJob::Result r;
  if (cloud.job.take(r) || cloud.job.take_preview(r)) install_cloud(r);
  update_colors();
  update_stream();
  update_video();
  save.update(status);
  update_image_save();
  picks.update(cloud.points, *backend, status);
  measures.update(picks, pick_frame(), status);
  profile.update(picks, cloud.points, stream.scene ? &stream.inputs() : nullptr, stream.options,
                 colors.shown_fixed(), status);
  clips.update(picks, measures.active || profile.active, cloud.bounds, status);
}

bool Viewer::Impl::fit_display(int* w, int* h) {
  win.drawable_size(w, h);
  int ww = 0, wh = 0;
  SDL_GetWindowSize(win.window, &ww, &wh);
  // The image is the window less the docked panel: the renderers draw only what shows.
  area = image_rect(panel.drawn_width(float(ww), win.ui_scale), ww, wh, *w, *h);
  Display& d = *win.display;
  if (!area.empty() && (area.w != d.width() || area.h != d.height())) {
    // CUDA must let go of the PBO before GL reallocates it, then take the new one.
    backend->release_interop();
    d.resize(area.w, area.h);
    backend->update_interop(true);
  }
  return *w > 0 && *h > 0;
}

void Viewer::Impl::render_frame() {
  have_image = have_image && cloud.points;
  // Render video draws offscreen at its own size: the window keeps its last image meanwhile.
  if (path.render.rendering()) return;
  if (!cloud.drawable() || win.display->empty() || area.empty()) {
    times.render_ms = times.upload_ms = 0;
    return;
  }
  // An image being saved takes the renderer for its tiles (image_save.h): the view pauses.
  if (image_save.job.busy()) return;
  rs.width = win.display->width();
  rs.height = win.display->height();
  rs.point_size = win.settings.point_size;
  rs.adaptive_size = win.settings.adaptive_size;
  rs.max_point_size = win.settings.max_point_size;
  rs.background = to_rgba(win.settings.background);
  rs.clip = clips.clip;
  std::string err;
  FrameStats st;
  if (!backend->draw(view.camera, rs, image, st, times.render_ms, times.upload_ms, &err)) {
    set_status(err, true);
    return;
  }
  times.last_stats = st;
  have_image = true;
}

void Viewer::Impl::draw_window(int w, int h) {
  Stopwatch ui;
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplSDL2_NewFrame();
  ImGui::NewFrame();
  draw_panel();
  picks.draw_marks(pick_frame(), win.ui_scale);
  measures.draw_marks(pick_frame(), win.ui_scale);
  annotations.draw_marks(pick_frame(), win.ui_scale);
  profile.draw_marks(pick_frame(), win.ui_scale);
  path.draw_marks(pick_frame(), win.ui_scale);
  profile.draw_window(backend->gpu_active(), opt, to_rgba(win.settings.background), win.ui_scale,
                      status);
  if (have_image) clips.draw_edges(view.camera, rs, area, win.ui_scale);
  polygon.draw_over(pick_frame(), win.ui_scale);
  panel.draw_hint(SDL_GetTicks(), win.ui_scale);
  ImGui::Render();

  const float* bg = win.settings.background;
  glViewport(0, 0, w, h);
  glClearColor(bg[0], bg[1], bg[2], 1);
  glClear(GL_COLOR_BUFFER_BIT);
  // GL's viewport counts rows from the bottom.
  if (have_image && !area.empty()) win.display->draw(area.x, h - area.y - area.h, area.w, area.h);
  ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
  times.ui_drawn(ui.ms());
}

bool Viewer::Impl::count_frame(int* counted) {
  if (cloud.job.busy() || stream.opening()) return false;
  // A streamed survey counts its frames once the view has converged, as headless mode does.
  if (stream.scene && !stream.stats.converged) return false;
  ++*counted;
  // The first counted frame still pays for the upload.
  if (opt.frames > 0 && *counted > 1) times.sample();
  return opt.frames > 0 && *counted >= opt.frames;
}

bool Viewer::Impl::write_screenshot(int w, int h) {
  const auto px = read_framebuffer(w, h);
  std::string err;
  if (!write_png_rgba(opt.screenshot, px.data(), w, h, &err)) {
    std::fprintf(stderr, "pointraster: %s\n", err.c_str());
    return false;
  }
  std::printf("pointraster: wrote %s (%dx%d window, %s)\n", opt.screenshot.c_str(), w, h,
              backend->display_path().c_str());
  return true;
}

bool Viewer::Impl::save_screenshot_key() {
  std::vector<uint32_t> px;
  if (!have_image || !win.display->read_image(px)) {
    set_status("screenshot: no image on screen yet", true);
    return false;
  }
  for (auto& p : px) p |= 0xff000000u;
  const std::string name = "pointraster-" + time_stamp() + ".png";
  std::string err;
  if (!write_png_rgba(name, px.data(), win.display->width(), win.display->height(), &err)) {
    set_status(err, true);
    return false;
  }
  std::error_code ec;
  set_status("screenshot saved: " + std::filesystem::absolute(name, ec).string(), false);
  return true;
}

PickFrame Viewer::Impl::pick_frame() const {
  PickFrame f;
  f.cloud = cloud.points;
  f.drawn = cloud.drawable() && have_image;
  f.camera = view.camera;
  f.settings = rs;
  f.area = area;
  return f;
}

// ---------------------------------------------------------------------------------------------
// What arrives in a frame, and what opens next

void Viewer::Impl::install_cloud(CloudJob::Result& r) {
  // More of the same files keeps the view, as a regenerated scene does; so does the whole cloud
  // after its preview (CloudJob::take_preview), which leaves the cloud "first" until it arrives.
  const bool more = (cloud.loading_more || r.after_preview) && !r.files.empty();
  if (!r.preview) cloud.loading_more = false;
  if (!r.ok) {
    if (cloud.first) cloud.initial_load_failed = true;
    if (r.after_preview) cloud.first = false;  // its preview stays on screen
    set_status(r.error, r.error != "loading cancelled");
    return;
  }
  // Files without points are read, not failed: nothing to draw, and the cloud on screen stays.
  if (r.cloud->empty()) {
    cloud.say_nothing_to_show(r, status);
    return;
  }
  const bool same_view = (!r.scene.empty() && r.scene == cloud.scene && cloud.points) || more ||
                         (r.keep_view && cloud.points);
  if (!take_cloud(r)) return;
  cloud.reset_point_target(opt.points, rs);
  if (!r.after_preview) place_camera(same_view);
  if (cloud.first && !r.preview && opt.measure_show) show_start_measures();
  if (cloud.first && !r.preview) hide_view_classes();  // a scene file's class filter
  if ((cloud.first || cloud.scene.empty()) && !more)
    for (const auto& f : cloud.files) win.settings.add_recent(f.file);
  if (!r.preview) cloud.first = false;
}

bool Viewer::Impl::take_cloud(CloudJob::Result& r) {
  std::string err, note;  // note: what the GPU's upload adds to the status line
  bool refused = false;
  const bool was_streaming = stream.scene != nullptr;
  if (was_streaming) backend->set_streaming(false);  // the new cloud is drawn in the options
  const bool taken =
      r.device_points ? backend->set_device_scene(*r.cloud, r.scene, r.device_points, &err, &note)
                      : backend->set_cloud(*r.cloud, &err, &note, &refused);
  if (!taken) {
    if (was_streaming) backend->set_streaming(true);
    set_status(err, true);
    return false;
  }
  stream.scene.reset();  // the streamed survey's workers stop; its pool goes with cloud.points
  colors.take_cloud_colors(r, status);
  cloud.show(r);
  cloud.say_ready(r, note, refused, status);
  return true;
}

/// --measure-show: the command line's measurements, measured on the first cloud and listed; a
/// bad one is named in the status line and left out.
void Viewer::Impl::show_start_measures() {
  const MeasureParams params = measure_params(opt, !opt.files.empty());
  for (const MeasureArg& a : opt.measures) {
    MeasureState::Item item;
    std::string why;
    if (!evaluate_measurement(a.kind, a.points, cloud.points.get(), params, &item.m, &why)) {
      set_status("--measure " + why, true);
      continue;
    }
    measures.items.push_back(std::move(item));
  }
}

void Viewer::Impl::place_camera(bool same_view) {
  const double aspect = win.aspect();
  if (cloud.first) {
    view.camera = starting_camera(opt, *cloud.points, cloud.scene, aspect);
  } else if (!same_view) {  // a regenerated scene keeps the view: only the density changed
    const UpAxis up = cloud.scene.empty() ? view.files_up : up_axis_for(opt, false);
    const Projection projection = view.camera.projection;  // the new cloud seen the same way
    view.camera = cloud_camera(*cloud.points, cloud.scene, up, aspect, view.camera.focus);
    view.camera.set_projection(projection, cloud.bounds);
  }
  if (!same_view) {
    view.fly.speed = FlyCamera::speed_for(cloud.bounds);
    view.home = view.camera;
  }
}

void Viewer::Impl::install_stream(std::shared_ptr<StreamingScene> scene) {
  std::string note;
  bool refused = false;
  if (!stream.install(std::move(scene), *backend, status, &note, &refused)) return;
  const bool first = cloud.first;
  cloud.show_survey(stream.scene, rs);
  const double aspect = win.aspect();
  if (first)
    view.camera = stream_camera(opt, cloud.bounds, aspect);
  else
    frame_files_camera(view.camera, cloud.bounds, aspect, view.files_up);
  view.fly.speed = FlyCamera::speed_for(cloud.bounds);
  view.home = view.camera;
  cloud.first = false;
  for (const std::string& f : stream.inputs()) win.settings.add_recent(f);
  colors.start_survey(stream.scene->info(), view.files_up);
  if (first) hide_view_classes();  // a scene file's class filter
  stream.say_installed(note, refused, status);
}

void Viewer::Impl::update_colors() {
  if (!cloud.job.busy()) cloud.job.set_color_request(colors.request_for_jobs(opt, view.files_up));
  // Elevation follows the up axis the panel sets for files (or --up for the scenes).
  const UpAxis up = cloud.scene.empty() ? view.files_up : up_axis_for(opt, false);
  ColorTarget t;
  t.cloud = cloud.points.get();
  // A survey of no points has nothing to color (its pool is a slot of NaN points).
  t.drawable = cloud.drawable() && !(stream.scene && stream.scene->info().points == 0);
  t.bounds = cloud.bounds;
  t.up_axis = up == UpAxis::kZ ? 2 : 1;
  t.stream = stream.scene.get();
  t.device_scene = cloud.device_points != 0;
  t.read_elsewhere = save.job.reads(t.cloud) || picks.job.reads(t.cloud) ||
                     measures.job.reads(t.cloud) || profile.reads(t.cloud) ||
                     image_save.job.draws(t.cloud);
  if (colors.update(t, *backend, status)) picks.job.forget_positions();  // made from them before
}

void Viewer::Impl::update_stream() {
  std::shared_ptr<StreamingScene> opened;
  std::string why;
  if (stream.take(opened, &why)) {
    if (opened)
      install_stream(std::move(opened));
    else
      set_status(why, true);
  }
  // A color job, a pick or a volume reads the pool: it stays as it is until they are done.
  if (!stream.scene || win.display->empty() || colors.job.busy() || picks.job.busy() ||
      measures.job.busy() || profile.reads(cloud.points.get()) || image_save.job.busy())
    return;
  // While a video renders, the survey reads the view of its next frame, at its size.
  const bool video = path.render.rendering();
  const LodView lod =
      video ? lod_view(path.render.next_camera(), path.render.settings().width,
                       path.render.settings().height, &path.render.settings().clip)
            : lod_view(view.camera, win.display->width(), win.display->height(), &clips.clip);
  // A pick's boxes came from the pool before its points changed.
  if (stream.update(lod, colors.shown_fixed(), *backend, status)) picks.job.forget_positions();
  video_stream_frame = video ? path.render.next_frame() : -1;
}

void Viewer::Impl::update_video() {
  if (!path.render.busy()) return;
  const DrawFrame draw = [this](const Camera& camera, const RenderSettings& settings, Image& img,
                                std::string* error) {
    if (!cloud.drawable()) {
      *error = "no cloud on screen";
      return FrameDraw::kFailed;
    }
    // A survey's frame waits until the view read for its camera has converged.
    if (stream.scene && (video_stream_frame != path.render.next_frame() || !stream.stats.converged))
      return FrameDraw::kWait;
    return backend->render_image(camera, settings, img, error) ? FrameDraw::kDrawn
                                                               : FrameDraw::kFailed;
  };
  path.render.update(draw, status);
}

void Viewer::Impl::start_files(const std::vector<std::string>& paths, const LoadOptions& options,
                               bool more) {
  if (paths.empty()) return;
  std::string why;
  if (streams(paths, opt.stream, &why)) {
    stream.open(paths, status);
    return;
  }
  if (!why.empty()) {
    set_status(why, true);
    return;
  }
  cloud.start_files(paths, options, more, status);
}

void Viewer::Impl::fly_to_annotation(size_t i) {
  // Without a saved camera, the point is seen from about two seconds' flying away.
  annotations.fly_to(i, view.camera, 2.0 * view.fly.speed);
}

void Viewer::Impl::start_open(const std::vector<std::string>& paths) {
  // A scene file opens as a view (view_file.cpp), alone.
  for (const std::string& p : paths)
    if (is_scene_file(p)) {
      if (paths.size() > 1)
        set_status("open a scene file (.json) alone, not with other files", true);
      else
        open_view(p);
      return;
    }
  // The Open box's point budget (the command line's --max-points to begin with) and --max-depth
  // hold for every file opened (--scan names the scans of the command line's own files).
  LoadOptions o;
  o.max_points = open_box.budget;
  o.max_depth = opt.max_depth;
  start_files(paths, o, false);
}

bool Viewer::Impl::load_more(bool everything) {
  if (stream.scene) {
    set_status(
        "a streamed survey reads what the view needs: raise the point budget or lower "
        "the target error (Streaming)",
        false);
    return false;
  }
  LoadOptions next;
  if (!cloud.more_options(everything, &next, status)) return false;
  start_files(cloud.file_paths(), next, true);
  return cloud.job.busy();
}

// ---------------------------------------------------------------------------------------------
// Viewer

Viewer::Viewer(const Options& options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
  impl_->view.files_up = up_axis_for(options, true);
  Impl* m = impl_.get();
  impl_->backend = std::make_unique<RenderBackend>(
      options, [m](const std::string& s, bool error) { m->set_status(s, error); });
}

Viewer::~Viewer() {
  Impl& m = *impl_;
  m.cloud.job.cancel();
  m.path.render.cancel(m.status);    // a video not finished is removed
  m.save.cancel_and_wait(m.status);  // its output is removed; one that ends anyway says so
  m.image_save.job.cancel();         // its unfinished PNG is removed (the writer joins)
  m.colors.job.join();               // its staging calls into the backend
  m.picks.job.cancel();              // a GPU pick calls into the backend too
  m.stream.scene.reset();            // its workers stop before the renderers go
  m.win.settings.projection = m.view.camera.ortho() ? "ortho" : "perspective";
  m.win.settings.panel_width = m.panel.width;
  m.win.save_settings(m.backend->gpu_active() ? "gpu" : "cpu");
  m.backend.reset();  // CUDA lets go of the display's buffer
  m.win.close();
}

bool Viewer::open(std::string* error) {
  Impl& m = *impl_;
  m.view.marks = &m.marks;
  m.win.load_settings(m.opt);
  if (m.opt.edl) {
    m.rs.edl = true;
    m.rs.edl_strength = *m.opt.edl;
  }
  if (m.opt.hq) m.rs.hq = true;
  m.clips.clip = m.opt.clip;                // --clip-box, --section
  m.polygon.closed = m.opt.clip_polygon;    // --clip-polygon: what Save writes within
  m.annotations.items = m.opt.annotations;  // --annotation
  m.path.load(m.opt);                       // --camera-path, --video, --fps
  // A scene file: its settings, clip and lists over the user's (docs/SCENE.md).
  if (!m.opt.scene_file.empty()) m.apply_view();
  // The projection last used, unless the command line or a scene's camera chose one.
  if (!m.opt.projection && !m.opt.scene_extras.camera && m.win.settings.projection == "ortho")
    m.opt.projection = Projection::kOrthographic;
  const SceneExtras& x = m.opt.scene_extras;
  m.fit_view_image = x.image_width > 0 && x.image_height > 0 && !m.opt.width && !m.opt.height;
  m.size_window_for_view();
  if (!m.win.create(m.opt, error)) return false;
  m.win.init_imgui(m.opt);
  m.size_window_for_view();
  m.backend->attach(m.win.display.get());
  m.panel.width = m.win.settings.panel_width;
  int w = 0, h = 0;
  m.fit_display(&w, &h);  // the image's size, before a cloud's first view is placed for it
  m.choose_first_mode();
  m.stream.options = stream_options(m.opt, m.backend->gpu_active());
  m.start_first_cloud();
  return true;
}

int Viewer::run_frames(const std::function<void(int frame)>& on_frame) {
  Impl& m = *impl_;
  Stopwatch clock;
  double last = clock.ms();
  int counted = 0;  // scripted frames: counted once the cloud is on screen
  int rc = 0;
  while (!m.quit) {
    if (on_frame) on_frame(m.frame);
    m.take_requests();
    m.poll_events();
    const double now = clock.ms();
    m.advance(now - last);
    m.publish_shown();
    last = now;
    int w = 0, h = 0;
    if (!m.fit_display(&w, &h)) {
      // Minimized: nothing to draw into; wait for events instead of spinning.
      SDL_WaitEventTimeout(nullptr, 50);
      ++m.frame;
      continue;
    }
    m.render_frame();
    m.times.frame_rendered();
    m.draw_window(w, h);
    m.write_requested_screenshots();
    const bool last_frame = m.count_frame(&counted);
    if (last_frame && !m.opt.screenshot.empty() && !m.write_screenshot(w, h)) rc = 1;
    SDL_GL_SwapWindow(m.win.window);
    ++m.frame;
    if (last_frame) break;
  }
  if (m.cloud.initial_load_failed && m.opt.frames > 0) rc = 1;
  m.times.print_summary(m.backend->gpu_active() ? "gpu" : "cpu", m.win.vsync,
                        m.backend->display_path());
  return rc;
}

int run_viewer(const Options& options) {
  Viewer v(options);
  std::string err;
  if (!v.open(&err)) {
    std::fprintf(stderr,
                 "pointraster: %s\n(no display? `pointraster --headless` renders without a "
                 "window)\n",
                 err.c_str());
    return 1;
  }
  return v.run();
}

}  // namespace pr
