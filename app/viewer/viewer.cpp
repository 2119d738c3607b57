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
#include "startup.h"
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

void Viewer::Impl::set_status(const std::string& s, bool error) {
  status = s;
  status_is_error = error;
  std::fprintf(error ? stderr : stdout, "pointraster: %s\n", s.c_str());
}

void Viewer::Impl::set_up_axis(UpAxis up) {
  if (up == camera.up_axis) return;
  if (scene.empty()) files_up = up;
  const int w = std::max(display->width(), 1), h = std::max(display->height(), 1);
  if (cloud && !cloud->empty()) {
    frame_files_camera(camera, cloud_bounds, double(w) / double(h), up);
  } else {
    camera.up_axis = up;
  }
  home_camera = camera;
}

void Viewer::Impl::frame_cloud() {
  if (!cloud || cloud->empty()) return;
  const int w = std::max(display->width(), 1), h = std::max(display->height(), 1);
  camera.fill_view(cloud_bounds, double(w) / double(h));
}

void Viewer::Impl::install_cloud(CloudJob::Result& r) {
  // More of the same files keeps the view, as a regenerated scene does.
  const bool more = loading_more && !r.files.empty();
  loading_more = false;
  if (!r.ok) {
    if (first_cloud) initial_load_failed = true;
    set_status(r.error, r.error != "loading cancelled");
    return;
  }
  std::string err, note;  // note: what the GPU's upload adds to the status line
  bool refused = false;
  if (!backend->set_cloud(*r.cloud, &err, &note, &refused)) {
    set_status(err, true);
    return;
  }
  const bool same_view = (!r.scene.empty() && r.scene == scene && cloud) || more;
  take_cloud_colors(r);
  cloud = std::move(r.cloud);
  cloud_bounds = cloud->world_bounds();
  if (!r.files.empty()) files_options = loading_options;
  files = std::move(r.files);
  scene = r.scene;
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %zu points ready in %.2f s%s", cloud->name.c_str(),
                cloud->size(), r.seconds, r.sorted ? " (reordered along a Morton curve)" : "");
  set_status(msg + note, refused);
  if (!scene.empty()) {
    scene_points = cloud->size();
    point_target = scene_points;
    rs.point_count = ~uint64_t{0};
  } else {
    point_target =
        opt.points && first_cloud ? std::min<uint64_t>(*opt.points, cloud->size()) : cloud->size();
    rs.point_count = point_target;
  }
  const int w = std::max(display->width(), 1), h = std::max(display->height(), 1);
  const double aspect = double(w) / double(h);
  if (first_cloud) {
    camera = starting_camera(opt, *cloud, scene, aspect);
  } else if (!same_view) {  // a regenerated scene keeps the view: only the density changed
    const UpAxis up = scene.empty() ? files_up : up_axis_for(opt, false);
    camera = cloud_camera(*cloud, scene, up, aspect, camera.focus);
  }
  if (!same_view) fly.speed = FlyCamera::speed_for(cloud_bounds);
  if ((first_cloud || scene.empty()) && !more)
    for (const auto& f : files) settings.add_recent(f.file);
  if (!same_view) home_camera = camera;
  first_cloud = false;
}

void Viewer::Impl::render_frame() {
  have_image = have_image && cloud;
  if (!cloud || cloud->empty() || display->empty()) {
    render_ms = upload_ms = 0;
    return;
  }
  rs.width = display->width();
  rs.height = display->height();
  rs.point_size = settings.point_size;
  rs.background = to_rgba(settings.background);
  std::string err;
  FrameStats st;
  if (!backend->draw(camera, rs, image, st, render_ms, upload_ms, &err)) {
    set_status(err, true);
    return;
  }
  last_stats = st;
  have_image = true;
}

bool Viewer::Impl::save_screenshot_key() {
  std::vector<uint32_t> px;
  if (!have_image || !display->read_image(px)) {
    set_status("screenshot: no image on screen yet", true);
    return false;
  }
  for (auto& p : px) p |= 0xff000000u;
  const std::string name = "pointraster-" + time_stamp() + ".png";
  std::string err;
  if (!write_png_rgba(name, px.data(), display->width(), display->height(), &err)) {
    set_status(err, true);
    return false;
  }
  std::error_code ec;
  set_status("screenshot saved: " + std::filesystem::absolute(name, ec).string(), false);
  return true;
}

void Viewer::Impl::start_files(const std::vector<std::string>& paths, const LoadOptions& options,
                               bool more) {
  if (paths.empty()) return;
  if (job.busy()) {
    set_status("still making " + job.label() + "; cancel it first", true);
    return;
  }
  job.start_files(paths, options);
  loading_options = options;
  loading_more = more;
  set_status((more ? "reading more of " : "loading ") + job.label() + " ...", false);
}

void Viewer::Impl::start_open(const std::vector<std::string>& paths) {
  // The Open box's point budget (the command line's --max-points to begin with) and --max-depth
  // hold for every file opened (--scan names the scans of the command line's own files).
  LoadOptions o;
  o.max_points = open_budget;
  o.max_depth = opt.max_depth;
  start_files(paths, o, false);
}

bool Viewer::Impl::load_more(bool everything) {
  LoadOptions next;
  if (!scene.empty() || files.empty()) {
    set_status("no file on screen to read more of", true);
    return false;
  }
  if (!read_more_options(files, files_options, everything, &next, nullptr)) {
    set_status("every point of the files on screen is read", false);
    return false;
  }
  std::vector<std::string> paths;
  for (const FileInfo& f : files) paths.push_back(f.file);
  start_files(paths, next, true);
  return job.busy();
}

void Viewer::Impl::handle_event(const SDL_Event& e) {
  ImGuiIO& io = ImGui::GetIO();
  switch (e.type) {
    case SDL_QUIT:
      quit = true;
      break;
    case SDL_WINDOWEVENT:
      if (e.window.event == SDL_WINDOWEVENT_CLOSE && e.window.windowID == SDL_GetWindowID(window))
        quit = true;
      if (e.window.event == SDL_WINDOWEVENT_FOCUS_LOST) {
        fly.release_all();
        if (looking) SDL_SetRelativeMouseMode(SDL_FALSE);
        looking = false;
      }
      break;
    case SDL_DROPFILE:
      if (e.drop.file) {
        dropped.emplace_back(e.drop.file);
        SDL_free(e.drop.file);
      }
      break;
    case SDL_DROPCOMPLETE: {
      auto d = std::move(dropped);
      dropped.clear();
      start_open(d);
      break;
    }
    case SDL_KEYDOWN:
    case SDL_KEYUP: {
      const bool down = e.type == SDL_KEYDOWN;
      const SDL_Keycode k = e.key.keysym.sym;
      // Releases always reach the camera, so a key pressed before ImGui took focus never sticks.
      if (down && io.WantCaptureKeyboard) break;
      auto set = [&](FlyCamera::Key key) { fly.set_key(key, down); };
      switch (k) {
        case SDLK_w:
          set(FlyCamera::kForward);
          break;
        case SDLK_s:
          set(FlyCamera::kBack);
          break;
        case SDLK_a:
          set(FlyCamera::kLeft);
          break;
        case SDLK_d:
          set(FlyCamera::kRight);
          break;
        case SDLK_q:
        case SDLK_c:
          set(FlyCamera::kDown);
          break;
        case SDLK_e:
        case SDLK_SPACE:
          set(FlyCamera::kUp);
          break;
        case SDLK_LSHIFT:
        case SDLK_RSHIFT:
          set(FlyCamera::kFast);
          break;
        default:
          break;
      }
      if (!down || e.key.repeat) break;
      if (k == SDLK_ESCAPE) quit = true;
      if (k == SDLK_f) frame_cloud();
      if (k == SDLK_r) camera = home_camera;
      if (k == SDLK_g) backend->switch_mode(!backend->gpu_active());
      if (k == SDLK_F12 || k == SDLK_p) save_screenshot_key();
      if (k == SDLK_x) pick_count = 0;
      break;
    }
    case SDL_MOUSEBUTTONDOWN:
      if (e.button.button == SDL_BUTTON_LEFT && !io.WantCaptureMouse)
        pick_at(e.button.x, e.button.y);
      if (e.button.button == SDL_BUTTON_RIGHT && !io.WantCaptureMouse) {
        looking = true;
        // Relative mode hides the pointer and keeps reporting motion at the screen's edge, so a
        // long drag keeps turning. Where the platform refuses it, plain motion events still work.
        SDL_SetRelativeMouseMode(SDL_TRUE);
      }
      break;
    case SDL_MOUSEBUTTONUP:
      if (e.button.button == SDL_BUTTON_RIGHT && looking) {
        looking = false;
        SDL_SetRelativeMouseMode(SDL_FALSE);
      }
      break;
    case SDL_MOUSEMOTION:
      if (looking) fly.look(camera, double(e.motion.xrel), double(e.motion.yrel));
      break;
    case SDL_MOUSEWHEEL:
      if (!io.WantCaptureMouse) fly.wheel(double(e.wheel.y));
      break;
    default:
      break;
  }
}

// ---------------------------------------------------------------------------------------------
// Viewer

Viewer::Viewer(const Options& options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
  impl_->files_up = up_axis_for(options, true);
  Impl* m = impl_.get();
  impl_->backend = std::make_unique<RenderBackend>(
      options, [m](const std::string& s, bool error) { m->set_status(s, error); });
}

Viewer::~Viewer() {
  Impl& m = *impl_;
  m.job.cancel();
  if (m.persist && m.window) {
    // Window size in window coordinates (not drawable pixels), as SDL_CreateWindow takes it.
    const Uint32 flags = SDL_GetWindowFlags(m.window);
    if (!(flags & (SDL_WINDOW_MINIMIZED | SDL_WINDOW_MAXIMIZED | SDL_WINDOW_FULLSCREEN))) {
      SDL_GetWindowSize(m.window, &m.settings.width, &m.settings.height);
    }
    m.settings.mode = m.backend->gpu_active() ? "gpu" : "cpu";
    m.settings.vsync = m.vsync;
    std::string err;
    if (!save_settings(m.settings_path, m.settings, &err))
      std::fprintf(stderr, "pointraster: %s\n", err.c_str());
  }
  m.backend.reset();  // CUDA lets go of the display's buffer
  m.display.reset();  // GL objects go before the context
  if (m.imgui_ready) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
  }
  if (m.gl) SDL_GL_DeleteContext(m.gl);
  if (m.window) SDL_DestroyWindow(m.window);
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

SDL_Window* Viewer::window() const {
  return impl_->window;
}
Camera& Viewer::camera() {
  return impl_->camera;
}
std::string Viewer::mode() const {
  return impl_->backend->gpu_active() ? "gpu" : "cpu";
}
bool Viewer::set_mode(const std::string& mode) {
  return impl_->backend->switch_mode(mode == "gpu");
}
bool Viewer::set_compact(bool on) {
  impl_->backend->set_compact(on);
  return impl_->backend->compact_active();
}
bool Viewer::set_gpu_sort(bool on) {
  impl_->backend->set_sort(on);
  return impl_->backend->gpu_sorted();
}
void Viewer::set_culling(bool on) {
  impl_->backend->set_culling(on);
}
void Viewer::set_occlusion(Toggle mode) {
  impl_->backend->set_occlusion(mode);
}
const RenderOptions& Viewer::render_options() const {
  return impl_->backend->options();
}
uint64_t Viewer::cpu_culled_batches() const {
  return impl_->backend->cpu().culled_batches();
}
uint64_t Viewer::cpu_occluded_batches() const {
  return impl_->backend->cpu().occluded_batches();
}
int Viewer::display_allocations() const {
  return impl_->display ? impl_->display->allocations() : 0;
}
int Viewer::image_width() const {
  return impl_->display ? impl_->display->width() : 0;
}
int Viewer::image_height() const {
  return impl_->display ? impl_->display->height() : 0;
}
bool Viewer::cloud_busy() const {
  return impl_->job.busy();
}
uint64_t Viewer::cloud_points() const {
  return impl_->cloud ? impl_->cloud->size() : 0;
}
float Viewer::ui_scale() const {
  return impl_->ui_scale;
}
void Viewer::cancel_cloud_job() {
  impl_->job.cancel();
}
void Viewer::set_point_count(uint64_t n) {
  impl_->apply_point_target(n);
}
uint64_t Viewer::points_drawn() const {
  return impl_->last_stats.points_drawn;
}
std::string Viewer::status() const {
  return impl_->status;
}
void Viewer::request_quit() {
  impl_->quit = true;
}
bool Viewer::open_files(const std::vector<std::string>& paths) {
  impl_->start_open(paths);
  return impl_->job.busy();
}
bool Viewer::read_more(bool everything) {
  return impl_->load_more(everything);
}

std::string Viewer::display_path() const {
  return impl_->backend->display_path();
}

bool Viewer::read_image(std::vector<uint32_t>& px, int& w, int& h) const {
  w = impl_->display->width();
  h = impl_->display->height();
  return impl_->have_image && impl_->display->read_image(px);
}

bool Viewer::open(std::string* error) {
  Impl& m = *impl_;
  const std::string dir = config_dir();
  m.persist = m.opt.frames == 0 && !dir.empty();
  if (!dir.empty()) {
    m.settings_path = dir + "/settings.ini";
    m.imgui_ini_path = dir + "/imgui.ini";
    m.settings = load_settings(m.settings_path);
  }
  if (m.opt.point_size > 1) m.settings.point_size = std::min(m.opt.point_size, 8);
  if (m.opt.edl) {
    m.rs.edl = true;
    m.rs.edl_strength = *m.opt.edl;
  }
  if (m.opt.hq) m.rs.hq = true;
  m.vsync = m.opt.vsync.value_or(m.settings.vsync);

  // The X connection is occasionally refused for a moment (seen under Xvfb on a loaded machine):
  // try a few times before giving up.
  int video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  for (int attempt = 1; video != 0 && attempt < 4; ++attempt) {
    SDL_Delay(200);
    video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  }
  if (video != 0) {
    if (error) *error = std::string("cannot start SDL video: ") + SDL_GetError();
    return false;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_RED_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_GREEN_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_BLUE_SIZE, 8);
  const int w = m.opt.width.value_or(m.settings.width);
  const int h = m.opt.height.value_or(m.settings.height);
  m.window = SDL_CreateWindow("pointraster", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                              SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!m.window) {
    if (error) *error = std::string("cannot create a window: ") + SDL_GetError();
    return false;
  }
  SDL_SetWindowMinimumSize(m.window, 320, 200);
  m.gl = SDL_GL_CreateContext(m.window);
  if (!m.gl) {
    if (error) *error = std::string("cannot create an OpenGL 3.3 core context: ") + SDL_GetError();
    return false;
  }
  SDL_GL_MakeCurrent(m.window, m.gl);
  const int glv = gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress));
  if (glv == 0 || GLAD_VERSION_MAJOR(glv) * 10 + GLAD_VERSION_MINOR(glv) < 33) {
    if (error) *error = "OpenGL 3.3 functions could not be loaded";
    return false;
  }
  SDL_GL_SetSwapInterval(m.vsync ? 1 : 0);
  std::printf("pointraster: OpenGL %s on %s\n",
              reinterpret_cast<const char*>(glGetString(GL_VERSION)),
              reinterpret_cast<const char*>(glGetString(GL_RENDERER)));

  m.display = std::make_unique<Display>();
  if (!m.display->init(error)) return false;

  // ImGui. On HiDPI screens where SDL reports window size == drawable size (X11), scale the UI by
  // the display's DPI; where the drawable is larger than the window (macOS, Wayland), the backend
  // already scales coordinates and the font is rasterized at the pixel density to stay sharp.
  // --ui-scale overrides the DPI (X11 servers often report none, or a wrong one).
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = m.persist ? m.imgui_ini_path.c_str() : nullptr;
  if (!m.persist && !m.imgui_ini_path.empty() && std::filesystem::exists(m.imgui_ini_path))
    ImGui::LoadIniSettingsFromDisk(m.imgui_ini_path.c_str());
  ImGui::StyleColorsDark();
  int ww = 0, wh = 0, dw = 0, dh = 0;
  SDL_GetWindowSize(m.window, &ww, &wh);
  SDL_GL_GetDrawableSize(m.window, &dw, &dh);
  const float fb_scale = ww > 0 ? float(dw) / float(ww) : 1.0f;
  float ddpi = 0.0f;
  float dpi_scale = 1.0f;
  if (fb_scale <= 1.01f &&
      SDL_GetDisplayDPI(SDL_GetWindowDisplayIndex(m.window), &ddpi, nullptr, nullptr) == 0 &&
      ddpi > 120.0f)
    dpi_scale = std::min(ddpi / 96.0f, 3.0f);
  if (m.opt.ui_scale) dpi_scale = *m.opt.ui_scale;
  m.ui_scale = dpi_scale;
  ImFontConfig fc;
  fc.SizePixels = 13.0f * dpi_scale * fb_scale;
  io.Fonts->AddFontDefault(&fc);
  io.FontGlobalScale = 1.0f / fb_scale;
  ImGui::GetStyle().ScaleAllSizes(dpi_scale);
  ImGui_ImplSDL2_InitForOpenGL(m.window, m.gl);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  m.imgui_ready = true;

  m.display->resize(dw, dh);
  m.backend->attach(m.display.get());

  // The starting cloud: the command line's files, else the scene; made in the background.
  m.color_request_for_jobs();
  if (!m.opt.files.empty()) {
    m.start_files(m.opt.files, load_options(m.opt), false);
  } else {
    const std::string scene = m.opt.scene.empty() ? kDefaultScene : m.opt.scene;
    m.job.start_scene(scene, m.opt.points.value_or(kDefaultScenePoints));
  }
  m.open_budget = m.opt.max_points;
  m.listing_dir =
      m.settings.open_dir.empty() ? std::filesystem::current_path().string() : m.settings.open_dir;
  m.refresh_listing();

  const std::string mode = m.opt.mode.value_or(m.settings.mode);
  // When the GPU is unavailable, switch_mode prints the one-line reason and stays on the CPU.
  // "auto" (no --mode, no saved choice): the GPU when there is one, without a word otherwise.
  if (mode == "gpu" || (mode == "auto" && m.backend->gpu_unavailable().empty()))
    m.backend->switch_mode(true);
  return true;
}

int Viewer::run(const ViewerHooks* hooks) {
  Impl& m = *impl_;
  Stopwatch clock;
  double last = clock.ms();
  int counted = 0;  // scripted frames: counted once the cloud is on screen
  const int frames = m.opt.frames;
  int rc = 0;
  // Scripted runs print the median of each stage over the counted frames when they end.
  std::vector<double> t_frame, t_render, t_upload, t_ui;
  while (!m.quit) {
    if (hooks && hooks->on_frame) hooks->on_frame(m.frame, *this);
    SDL_Event e;
    while (SDL_PollEvent(&e)) {
      ImGui_ImplSDL2_ProcessEvent(&e);
      m.handle_event(e);
    }
    const double now = clock.ms();
    m.frame_ms = now - last;
    last = now;
    m.hist_frame.push(float(m.frame_ms));
    m.frame_avg_ms = m.frame_avg_ms == 0 ? m.frame_ms : 0.95 * m.frame_avg_ms + 0.05 * m.frame_ms;
    if (ImGui::GetIO().WantCaptureKeyboard) m.fly.release_all();
    m.fly.update(m.camera, m.frame_ms * 1e-3);

    CloudJob::Result r;
    if (m.job.take(r)) m.install_cloud(r);
    m.update_colors();

    int dw = 0, dh = 0;
    SDL_GL_GetDrawableSize(m.window, &dw, &dh);
    const Uint32 wflags = SDL_GetWindowFlags(m.window);
    if (wflags & SDL_WINDOW_MINIMIZED) dw = dh = 0;
    if (dw > 0 && dh > 0 && (dw != m.display->width() || dh != m.display->height())) {
      // CUDA must let go of the PBO before GL reallocates it, then take the new one.
      m.backend->release_interop();
      m.display->resize(dw, dh);
      m.backend->update_interop(true);
    }
    if (dw == 0 || dh == 0) {
      // Minimized: nothing to draw into; wait for events instead of spinning.
      SDL_WaitEventTimeout(nullptr, 50);
      ++m.frame;
      continue;
    }

    m.render_frame();
    m.hist_render.push(float(m.render_ms));
    m.hist_upload.push(float(m.upload_ms));

    Stopwatch ui;
    ImGui_ImplOpenGL3_NewFrame();
    ImGui_ImplSDL2_NewFrame();
    ImGui::NewFrame();
    m.draw_panel();
    m.draw_pick_panel();
    ImGui::Render();

    glViewport(0, 0, dw, dh);
    glClearColor(m.settings.background[0], m.settings.background[1], m.settings.background[2], 1);
    glClear(GL_COLOR_BUFFER_BIT);
    if (m.have_image) m.display->draw(0, 0, dw, dh);
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    m.ui_ms = ui.ms();
    m.hist_ui.push(float(m.ui_ms));

    if (!m.job.busy()) {
      ++counted;
      if (frames > 0 && counted > 1) {  // the first counted frame still pays for the upload
        t_frame.push_back(m.frame_ms);
        t_render.push_back(m.render_ms);
        t_upload.push_back(m.upload_ms);
        t_ui.push_back(m.ui_ms);
      }
    }
    const bool last_frame = frames > 0 && counted >= frames;
    if (last_frame && !m.opt.screenshot.empty()) {
      const auto px = read_framebuffer(dw, dh);
      std::string err;
      if (write_png_rgba(m.opt.screenshot, px.data(), dw, dh, &err)) {
        std::printf("pointraster: wrote %s (%dx%d window, %s)\n", m.opt.screenshot.c_str(), dw, dh,
                    display_path().c_str());
      } else {
        std::fprintf(stderr, "pointraster: %s\n", err.c_str());
        rc = 1;
      }
    }
    SDL_GL_SwapWindow(m.window);
    ++m.frame;
    if (last_frame) break;
  }
  if (m.initial_load_failed && frames > 0) rc = 1;
  if (!t_frame.empty()) {
    // frame = wall time from one loop iteration to the next: events, render, display, UI, swap.
    std::printf(
        "viewer summary mode=%s points=%llu frames=%zu median_frame_ms=%.4f median_render_ms=%.4f "
        "median_upload_ms=%.4f median_ui_ms=%.4f vsync=%s path=\"%s\"\n",
        mode().c_str(), (unsigned long long)m.last_stats.points_drawn, t_frame.size(),
        median(t_frame), median(t_render), median(t_upload), median(t_ui), m.vsync ? "on" : "off",
        display_path().c_str());
  }
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
