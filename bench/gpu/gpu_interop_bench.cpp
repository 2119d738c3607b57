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

int main(int argc, char** argv) {
  using namespace pr;
  std::string scene = "terrain";
  uint64_t n = 10'000'000;
  int w = 1920, h = 1080, frames = 200;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string a = argv[i], v = argv[i + 1];
    if (a == "--scene")
      scene = v;
    else if (a == "--points")
      n = uint64_t(std::strtod(v.c_str(), nullptr));
    else if (a == "--width")
      w = std::atoi(v.c_str());
    else if (a == "--height")
      h = std::atoi(v.c_str());
    else if (a == "--frames")
      frames = std::atoi(v.c_str());
  }
  std::string why;
  auto gpu = make_cuda_renderer(&why);
  if (!gpu) {
    std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
    return 1;
  }
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::fprintf(stderr, "gpu_interop_bench: SDL_Init: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_Window* win = SDL_CreateWindow("gpu_interop_bench", 0, 0, w, h, SDL_WINDOW_OPENGL);
  SDL_GLContext ctx = win ? SDL_GL_CreateContext(win) : nullptr;
  if (!ctx || !gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
    std::fprintf(stderr, "gpu_interop_bench: no GL context: %s\n", SDL_GetError());
    return 1;
  }
  SDL_GL_SetSwapInterval(0);
  PointCloud cloud = make_scene(scene, n);
  const Camera cam = scene_camera(scene, cloud);
  if (!gpu->set_cloud(cloud, &why)) {
    std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
    return 1;
  }
  GLuint pbo = 0, tex = 0, fbo = 0;
  glGenBuffers(1, &pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(size_t(w) * h * 4), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_READ_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  if (!gpu->register_gl_buffer(pbo, w, h, &why)) {
    std::fprintf(stderr, "gpu_interop_bench: interop unavailable: %s\n", why.c_str());
    return 1;
  }
  RenderSettings rs;
  rs.width = w;
  rs.height = h;
  std::vector<double> total, render, dev;
  for (int f = 0; f < frames + 10; ++f) {
    Stopwatch sw;
    FrameStats st;
    if (!gpu->render_to_gl(cam, rs, st, &why)) {
      std::fprintf(stderr, "gpu_interop_bench: %s\n", why.c_str());
      return 1;
    }
    const double r = sw.ms();
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
    // Flip vertically: the image's first row is its top, GL's is its bottom.
    glBlitFramebuffer(0, 0, w, h, 0, h, w, 0, GL_COLOR_BUFFER_BIT, GL_NEAREST);
    SDL_GL_SwapWindow(win);
    glFinish();
    if (f < 10) continue;
    total.push_back(sw.ms());
    render.push_back(r);
    dev.push_back(st.clear_ms + st.raster_ms + st.resolve_ms);
  }
  const GLenum err = glGetError();
  auto med = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf(
      "interop %s %llu points %dx%d: frame (render_to_gl + texture + blit + swap + "
      "glFinish) median %.3f ms, render_to_gl %.3f ms, device clear+raster+resolve "
      "%.3f ms, %d frames, GL error 0x%x, GL_RENDERER %s\n",
      scene.c_str(), (unsigned long long)n, w, h, med(total), med(render), med(dev), frames, err,
      reinterpret_cast<const char*>(glGetString(GL_RENDERER)));
  gpu->unregister_gl_buffer();
  SDL_GL_DeleteContext(ctx);
  SDL_DestroyWindow(win);
  SDL_Quit();
  return err == GL_NO_ERROR ? 0 : 1;
}
