// gpu_interop_bench: the viewer's GPU frame without the panel: render_to_gl() into a registered
// pixel buffer, glTexSubImage2D from it, a blit to the window, glFinish; host clock per frame
// (median over --frames after warm-up). Default: the terrain scene, 10 million points, 1920x1080.
//
//   SDL_VIDEODRIVER=offscreen gpu_interop_bench [--scene terrain] [--points 10e6]
//                                               [--width 1920 --height 1080] [--frames 200]
#define SDL_MAIN_HANDLED
#include <SDL.h>
#include <glad/gl.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/scenes.h"
#include "kernels/cuda_renderer.h"

namespace {

using namespace pr;

struct Args {
  std::string scene = "terrain";
  uint64_t n = 10'000'000;
  int w = 1920, h = 1080, frames = 200;
};

// Pairs of option and value; unknown options and a lone last word are ignored.
Args parse_args(int argc, char** argv) {
  Args o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--scene")
      o.scene = v;
    else if (a == "--points")
      o.n = uint64_t(std::strtod(v.c_str(), nullptr));
    else if (a == "--width")
      o.w = std::atoi(v.c_str());
    else if (a == "--height")
      o.h = std::atoi(v.c_str());
    else if (a == "--frames")
      o.frames = std::atoi(v.c_str());
  }
  return o;
}

/// A hidden window with an OpenGL 3.3 core context; false after a message when there is none.
bool open_window(const Args& o, SDL_Window*& win, SDL_GLContext& ctx) {
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::fprintf(stderr, "gpu_interop_bench: SDL_Init: %s\n", SDL_GetError());
    return false;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  win = SDL_CreateWindow("gpu_interop_bench", 0, 0, o.w, o.h, SDL_WINDOW_OPENGL);
  ctx = win ? SDL_GL_CreateContext(win) : nullptr;
  if (!ctx || !gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
    std::fprintf(stderr, "gpu_interop_bench: no GL context: %s\n", SDL_GetError());
    return false;
  }
  SDL_GL_SetSwapInterval(0);
  return true;
}

/// The viewer's GL objects: the pixel buffer the renderer writes, the texture it is copied into
/// and the framebuffer the texture is blitted from.
struct GlTarget {
  GLuint pbo = 0, tex = 0, fbo = 0;
};

GlTarget make_target(int w, int h) {
  GlTarget t;
  glGenBuffers(1, &t.pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t.pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(size_t(w) * h * 4), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glGenTextures(1, &t.tex);
  glBindTexture(GL_TEXTURE_2D, t.tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glGenFramebuffers(1, &t.fbo);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, t.fbo);
  glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, t.tex, 0);
  return t;
}

struct Times {
  std::vector<double> total, render, dev;
};

/// 10 warm-up frames, then --frames timed ones; false after a message when a frame fails.
bool time_frames(const Args& o, CudaRenderer& gpu, const Camera& cam, const GlTarget& t,
                 SDL_Window* win, Times& times) {
  const int w = o.w, h = o.h;
  RenderSettings rs;
  rs.width = w;
  rs.height = h;
  std::string why;
  for (int f = 0; f < o.frames + 10; ++f) {
    Stopwatch sw;
    FrameStats st;
    if (!gpu.render_to_gl(cam, rs, st, &why)) {
      std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
      return false;
    }
    const double r = sw.ms();
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, t.pbo);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    // Flip vertically: the image's first row is its top, GL's is its bottom.
    glBlitFramebuffer(0, 0, w, h, 0, h, w, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    SDL_GL_SwapWindow(win);
    glFinish();
    if (f < 10) continue;
    times.total.push_back(sw.ms());
    times.render.push_back(r);
    times.dev.push_back(st.clear_ms + st.raster_ms + st.resolve_ms);
  }
  return true;
}

/// The upper median (the element at size / 2 of the sorted times).
double upper_median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const Args o = parse_args(argc, argv);
  std::string why;
  auto gpu = make_cuda_renderer(&why);
  if (!gpu) {
    std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
    return 1;
  }
  SDL_Window* win = nullptr;
  SDL_GLContext ctx = nullptr;
  if (!open_window(o, win, ctx)) return 1;
  PointCloud cloud = make_scene(o.scene, o.n);
  const Camera cam = scene_camera(o.scene, cloud);
  if (!gpu->set_cloud(cloud, &why)) {
    std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
    return 1;
  }
  const GlTarget target = make_target(o.w, o.h);
  if (!gpu->register_gl_buffer(target.pbo, o.w, o.h, &why)) {
    std::fprintf(stderr, "gpu_interop_bench: interop unavailable: %s\n", why.c_str());
    return 1;
  }
  Times t;
  if (!time_frames(o, *gpu, cam, target, win, t)) return 1;
  const GLenum err = glGetError();
  std::printf(
      "interop %s %llu points %dx%d: frame (render_to_gl + texture + blit + swap + "
      "glFinish) median %.3f ms, render_to_gl %.3f ms, device clear+raster+resolve "
      "%.3f ms, %d frames, GL error 0x%x, GL_RENDERER %s\n",
      o.scene.c_str(), (unsigned long long)o.n, o.w, o.h, upper_median(t.total),
      upper_median(t.render), upper_median(t.dev), o.frames, err,
      reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  gpu->unregister_gl_buffer();
  SDL_GL_DeleteContext(ctx);
  SDL_DestroyWindow(win);
  SDL_Quit();
  return err == GL_NO_ERROR ? 0 : 1;
}
