#include "viewer/window.h"

#include <glad/gl.h>
#include <imgui.h>
#include <imgui_impl_opengl3.h>
#include <imgui_impl_sdl.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace pr {

namespace {

/// SDL's video. The X connection is occasionally refused for a moment (seen under Xvfb on a
/// loaded machine): a few tries before giving up.
bool start_video(std::string* error) {
  int video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  for (int attempt = 1; video != 0 && attempt < 4; ++attempt) {
    SDL_Delay(200);
    video = SDL_InitSubSystem(SDL_INIT_VIDEO);
  }
  if (video != 0 && error) *error = std::string("cannot start SDL video: ") + SDL_GetError();
  return video == 0;
}

void request_gl33_core() {
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  SDL_GL_SetAttribute(SDL_GL_DOUBLEBUFFER, 1);
  SDL_GL_SetAttribute(SDL_GL_DEPTH_SIZE, 0);
  SDL_GL_SetAttribute(SDL_GL_RED_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_GREEN_SIZE, 8);
  SDL_GL_SetAttribute(SDL_GL_BLUE_SIZE, 8);
}

}  // namespace

void ViewerWindow::load_settings(const Options& o) {
  const std::string dir = config_dir();
  persist = o.frames == 0 && !dir.empty();
  if (!dir.empty()) {
    settings_path = dir + "/settings.ini";
    imgui_ini_path = dir + "/imgui.ini";
    settings = pr::load_settings(settings_path);
  }
  if (o.point_size > 1) settings.point_size = std::min(o.point_size, 8);
  if (o.adaptive_size) settings.adaptive_size = true;
  if (o.max_point_size) settings.max_point_size = *o.max_point_size;
  vsync = o.vsync.value_or(settings.vsync);
}

bool ViewerWindow::create(const Options& o, std::string* error) {
  if (!start_video(error)) return false;
  request_gl33_core();
  const int w = o.width.value_or(settings.width);
  const int h = o.height.value_or(settings.height);
  window = SDL_CreateWindow("pointraster", SDL_WINDOWPOS_CENTERED, SDL_WINDOWPOS_CENTERED, w, h,
                            SDL_WINDOW_OPENGL | SDL_WINDOW_RESIZABLE | SDL_WINDOW_ALLOW_HIGHDPI);
  if (!window) {
    if (error) *error = std::string("cannot create a window: ") + SDL_GetError();
    return false;
  }
  SDL_SetWindowMinimumSize(window, 320, 200);
  gl = SDL_GL_CreateContext(window);
  if (!gl) {
    if (error) *error = std::string("cannot create an OpenGL 3.3 core context: ") + SDL_GetError();
    return false;
  }
  SDL_GL_MakeCurrent(window, gl);
  const int glv = gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress));
  if (glv == 0 || GLAD_VERSION_MAJOR(glv) * 10 + GLAD_VERSION_MINOR(glv) < 33) {
    if (error) *error = "OpenGL 3.3 functions could not be loaded";
    return false;
  }
  SDL_GL_SetSwapInterval(vsync ? 1 : 0);
  std::printf("pointraster: OpenGL %s on %s\n",
              reinterpret_cast<const char*>(glGetString(GL_VERSION)),
              reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  display = std::make_unique<Display>();
  return display->init(error);
}

void ViewerWindow::init_imgui(const Options& o) {
  // On HiDPI screens where SDL reports window size == drawable size (X11), the UI scales by the
  // display's DPI; where the drawable is larger than the window (macOS, Wayland), the backend
  // already scales coordinates and the font is rasterized at the pixel density to stay sharp.
  // --ui-scale overrides the DPI (X11 servers often report none, or a wrong one).
  IMGUI_CHECKVERSION();
  ImGui::CreateContext();
  ImGuiIO& io = ImGui::GetIO();
  io.IniFilename = persist ? imgui_ini_path.c_str() : nullptr;
  if (!persist && !imgui_ini_path.empty() && std::filesystem::exists(imgui_ini_path))
    ImGui::LoadIniSettingsFromDisk(imgui_ini_path.c_str());
  ImGui::StyleColorsDark();
  int ww = 0, wh = 0, dw = 0, dh = 0;
  SDL_GetWindowSize(window, &ww, &wh);
  SDL_GL_GetDrawableSize(window, &dw, &dh);
  const float fb_scale = ww > 0 ? float(dw) / float(ww) : 1.0f;
  float ddpi = 0.0f;
  float dpi_scale = 1.0f;
  if (fb_scale <= 1.01f &&
      SDL_GetDisplayDPI(SDL_GetWindowDisplayIndex(window), &ddpi, nullptr, nullptr) == 0 &&
      ddpi > 120.0f)
    dpi_scale = std::min(ddpi / 96.0f, 3.0f);
  if (o.ui_scale) dpi_scale = *o.ui_scale;
  ui_scale = dpi_scale;
  ImFontConfig fc;
  fc.SizePixels = 13.0f * dpi_scale * fb_scale;
  io.Fonts->AddFontDefault(&fc);
  io.FontGlobalScale = 1.0f / fb_scale;
  ImGui::GetStyle().ScaleAllSizes(dpi_scale);
  ImGui_ImplSDL2_InitForOpenGL(window, gl);
  ImGui_ImplOpenGL3_Init("#version 330 core");
  imgui_ready = true;
}

void ViewerWindow::save_settings(const std::string& mode) {
  if (!persist || !window) return;
  // Window size in window coordinates (not drawable pixels), as SDL_CreateWindow takes it.
  const Uint32 flags = SDL_GetWindowFlags(window);
  if (!(flags & (SDL_WINDOW_MINIMIZED | SDL_WINDOW_MAXIMIZED | SDL_WINDOW_FULLSCREEN)))
    SDL_GetWindowSize(window, &settings.width, &settings.height);
  settings.mode = mode;
  settings.vsync = vsync;
  std::string err;
  if (!pr::save_settings(settings_path, settings, &err))
    std::fprintf(stderr, "pointraster: %s\n", err.c_str());
}

void ViewerWindow::close() {
  display.reset();  // GL objects go before the context
  if (imgui_ready) {
    ImGui_ImplOpenGL3_Shutdown();
    ImGui_ImplSDL2_Shutdown();
    ImGui::DestroyContext();
    imgui_ready = false;
  }
  if (gl) SDL_GL_DeleteContext(gl);
  if (window) SDL_DestroyWindow(window);
  gl = nullptr;
  window = nullptr;
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

void ViewerWindow::drawable_size(int* w, int* h) const {
  *w = *h = 0;
  SDL_GL_GetDrawableSize(window, w, h);
  if (SDL_GetWindowFlags(window) & SDL_WINDOW_MINIMIZED) *w = *h = 0;
}

double ViewerWindow::aspect() const {
  const int w = std::max(display->width(), 1), h = std::max(display->height(), 1);
  return double(w) / double(h);
}

}  // namespace pr
