// A streaming pool drawn through CUDA-OpenGL interop: the pool (tests/engine/pool_test_util.h)
// built range by range with update_points() on the GPU and the CPU renderer, and at every few
// steps render_to_gl() into a registered pixel buffer, read back through GL, equal to the CPU's
// image (the same device cloud as render() draws; nothing of the pool is special to GL). Skips
// without a device, without a GL context, or where the context is not on the CUDA device (the
// host-copy fallback is render(), which gpu_pool_test covers).
#define SDL_MAIN_HANDLED
#include <SDL.h>
#include <glad/gl.h>

#include <string>
#include <vector>

#include "../engine/pool_test_util.h"
#include "../engine/random_camera.h"
#include "engine/scenes.h"
#include "gpu_test_util.h"

namespace pr {
namespace {

constexpr uint32_t kBackground = rgba(16, 18, 24);

/// A hidden SDL2 window with an OpenGL 3.3 core context, current on this thread.
class PoolGlContext {
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
    window_ = SDL_CreateWindow("gl_pool_test", 0, 0, 64, 64, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
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
  ~PoolGlContext() {
    if (ctx_) SDL_GL_DeleteContext(ctx_);
    if (window_) SDL_DestroyWindow(window_);
    if (sdl_) SDL_Quit();
  }

 private:
  bool sdl_ = false;
  SDL_Window* window_ = nullptr;
  SDL_GLContext ctx_ = nullptr;
};

TEST(GlPool, RenderToGlDrawsThePoolAsTheCpuDoes) {
  PR_REQUIRE_GPU(gpu);
  PoolGlContext gl;
  std::string why;
  if (!gl.open(&why)) GTEST_SKIP() << "no OpenGL 3.3 context: " << why;
  constexpr int kW = 640, kH = 400;
  GLuint pbo = 0;
  glGenBuffers(1, &pbo);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(kW * kH * 4), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  if (!gpu->register_gl_buffer(pbo, kW, kH, &why)) {
    glDeleteBuffers(1, &pbo);
    GTEST_SKIP() << "no CUDA-OpenGL interop here: " << why;
  }
  const test::PoolScene s = test::make_pool_scene("terrain", 100'000, 2, 13);
  PointCloud pool = test::empty_pool(s);
  RenderOptions plain;
  plain.sort = Toggle::kOff;
  CpuRenderer cpu(0);
  ASSERT_NO_FATAL_FAILURE(test::set_both(cpu, *gpu, pool, plain));
  std::mt19937 rng(17);
  const Bounds bounds = s.whole.local_bounds();
  const Camera home = scene_camera("terrain", s.whole);
  std::string err;
  int frames = 0;
  auto check = [&](const std::string& what) {
    const int k = frames++;
    RenderSettings rs;
    rs.width = kW;
    rs.height = kH;
    rs.background = kBackground;
    rs.point_size = 1 + k % 2;
    rs.edl = k % 3 == 1;
    rs.hq = k % 4 == 2;
    const Camera cam = k % 2 == 0 ? home : test::random_camera(rng, bounds);
    Image ref;
    FrameStats st;
    ASSERT_TRUE(cpu.render(cam, rs, ref, st, &err)) << err;
    ASSERT_TRUE(gpu->render_to_gl(cam, rs, st, &err)) << err;
    std::vector<uint32_t> got(size_t(kW) * kH, 0u);
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo);
    glGetBufferSubData(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(got.size() * 4), got.data());
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    size_t differ = 0;
    for (size_t i = 0; i < got.size(); ++i) differ += got[i] != ref.rgba[i];
    EXPECT_EQ(differ, 0u) << what;
  };
  ASSERT_NO_FATAL_FAILURE(check("empty pool"));
  test::fill_pool(s, pool, 19, [&](uint64_t first, uint64_t count, int step) {
    ASSERT_TRUE(gpu->update_points(pool, first, count, &err)) << err;
    ASSERT_TRUE(cpu.update_points(pool, first, count, &err)) << err;
    if (step % 4 == 0) check("step " + std::to_string(step));
  });
  ASSERT_NO_FATAL_FAILURE(check("full pool"));
  EXPECT_GT(frames, 5);
  EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  gpu->unregister_gl_buffer();
  glDeleteBuffers(1, &pbo);
}

}  // namespace
}  // namespace pr
