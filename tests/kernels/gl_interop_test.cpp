// CUDA-OpenGL interop in a real window: an SDL2 window with an OpenGL 3.3 core context (on the GPU
// machine: SDL_VIDEODRIVER=offscreen, NVIDIA's EGL), a pixel buffer object registered with
// register_gl_buffer(), render_to_gl(), then the pixels read back through GL two ways (the buffer
// itself, and a texture uploaded from it and read through a framebuffer, as the viewer displays
// it) and compared with the CPU image. Where the context is not on the CUDA device (Mesa), the
// registration must fail with a reason and the host-copy fallback must give the same image.
#define SDL_MAIN_HANDLED
#include <SDL.h>
#include <glad/gl.h>

#include <cstring>
#include <vector>

#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

class GlContext {
 public:
  bool open(std::string* why) {
    if (SDL_Init(SDL_INIT_VIDEO) != 0) {
      *why = std::string("SDL_Init: ") + SDL_GetError();
      return false;
    }
    sdl_ = true;
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
    SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
    window_ =
        SDL_CreateWindow("kernel_gl_tests", 0, 0, 64, 64, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
    if (!window_) {
      *why = std::string("SDL_CreateWindow: ") + SDL_GetError();
      return false;
    }
    ctx_ = SDL_GL_CreateContext(window_);
    if (!ctx_) {
      *why = std::string("SDL_GL_CreateContext: ") + SDL_GetError();
      return false;
    }
    if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
      *why = "gladLoadGL failed";
      return false;
    }
    return true;
  }
  ~GlContext() {
    if (ctx_) SDL_GL_DeleteContext(ctx_);
    if (window_) SDL_DestroyWindow(window_);
    if (sdl_) SDL_Quit();
  }
  std::string renderer() const {
    const auto* s = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return s ? s : "";
  }

 private:
  bool sdl_ = false;
  SDL_Window* window_ = nullptr;
  SDL_GLContext ctx_ = nullptr;
};

/// Reads a PBO's contents back, and the same pixels through a texture + framebuffer.
void read_back(GLuint pbo, int w, int h, std::vector<uint32_t>& from_buffer,
               std::vector<uint32_t>& from_texture) {
  const size_t n = size_t(w) * size_t(h);
  from_buffer.assign(n, 0u);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
  glGetBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(n * 4), from_buffer.data());
  GLuint tex = 0, fbo = 0;
  glGenTextures(1, &tex);
  glBindTexture(GL_TEXTURE_2D, tex);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE,
               nullptr);  // from PBO
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glGenFramebuffers(1, &fbo);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo);
  glFramebufferTexture2D(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_TEXTURE_2D, tex, 0);
  from_texture.assign(n, 0u);
  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, from_texture.data());
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  glDeleteFramebuffers(1, &fbo);
  glDeleteTextures(1, &tex);
}

GLuint make_pbo(int w, int h) {
  GLuint pbo = 0;
  glGenBuffers(1, &pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(size_t(w) * size_t(h) * 4), nullptr,
               GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  return pbo;
}

size_t diff(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  if (a.size() != b.size()) return a.size() + b.size();
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i] != b[i];
  return n;
}

TEST(GlInterop, RenderToGlBufferEqualsCpuImage) {
  PR_REQUIRE_GPU(gpu);
  GlContext gl;
  std::string why;
  if (!gl.open(&why)) GTEST_SKIP() << "no OpenGL 3.3 context: " << why;
  const std::string gl_renderer = gl.renderer();
  std::printf("GL_RENDERER: %s\n", gl_renderer.c_str());

  const PointCloud cloud = make_scene("terrain", 500'000);
  const Camera cam = scene_camera("terrain", cloud);
  auto cpu = make_cpu_renderer();
  std::string err;
  ASSERT_TRUE(cpu->set_cloud(cloud, &err)) << err;
  ASSERT_TRUE(gpu->set_cloud(cloud, &err)) << err;

  // Two sizes, the second after re-registering a new buffer (a window resize).
  const int sizes[][2] = {{1023, 769}, {1920, 1080}};
  for (const auto& s : sizes) {
    RenderSettings rs;
    rs.width = s[0];
    rs.height = s[1];
    rs.background = kBackground;
    Image ref;
    FrameStats st;
    ASSERT_TRUE(cpu->render(cam, rs, ref, st, &err)) << err;
    ASSERT_GT(test::count_drawn(ref, kBackground), 10'000u);

    const GLuint pbo = make_pbo(rs.width, rs.height);
    std::string reg_why;
    const bool interop = gpu->register_gl_buffer(pbo, rs.width, rs.height, &reg_why);
    std::vector<uint32_t> buf, tex;
    if (gl_renderer.find("NVIDIA") != std::string::npos) {
      ASSERT_TRUE(interop) << "interop must work on an NVIDIA context: " << reg_why;
    }
    if (interop) {
      EXPECT_TRUE(gpu->gl_buffer_registered());
      // Two frames: write-discard must give a complete image each time.
      for (int frame = 0; frame < 2; ++frame) {
        ASSERT_TRUE(gpu->render_to_gl(cam, rs, st, &err)) << err;
        EXPECT_GT(st.raster_ms, 0.0);
      }
      // A frame of the wrong size is refused, not written past the buffer.
      RenderSettings wrong = rs;
      wrong.width += 1;
      EXPECT_FALSE(gpu->render_to_gl(cam, wrong, st, &err));
      read_back(pbo, rs.width, rs.height, buf, tex);
      gpu->unregister_gl_buffer();
      EXPECT_FALSE(gpu->gl_buffer_registered());
    } else {
      // The fallback: render() to the host, upload into the buffer, read back.
      std::printf("interop unavailable (%s): checking the host-copy fallback\n", reg_why.c_str());
      EXPECT_FALSE(reg_why.empty());
      Image img;
      ASSERT_TRUE(gpu->render(cam, rs, img, st, &err)) << err;
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
      glBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(img.rgba.size() * 4), img.rgba.data());
      glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
      read_back(pbo, rs.width, rs.height, buf, tex);
    }
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
    EXPECT_EQ(diff(ref.rgba, buf), 0u) << "GL buffer differs from the CPU image";
    EXPECT_EQ(diff(ref.rgba, tex), 0u) << "texture uploaded from the buffer differs";
    glDeleteBuffers(1, &pbo);
  }
}

}  // namespace
}  // namespace pr
