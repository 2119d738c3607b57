// The display (texture, PBO and the fullscreen pass) in a real GL context, and the window's
// resize.
#include <glad/gl.h>

#include "viewer/display.h"

#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

TEST(Display, PboRoundTripAndResizeRules) {
  REQUIRE_DISPLAY();
  std::string why;
  ASSERT_TRUE(display_available(&why)) << why;
  ASSERT_EQ(SDL_InitSubSystem(SDL_INIT_VIDEO), 0) << SDL_GetError();
  SDL_Window* w = SDL_CreateWindow("display", 0, 0, 64, 64, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
  ASSERT_NE(w, nullptr);
  SDL_GLContext c = SDL_GL_CreateContext(w);
  ASSERT_NE(c, nullptr);
  ASSERT_NE(gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress)), 0);
  {
    pr::Display d;
    std::string err;
    ASSERT_TRUE(d.init(&err)) << err;
    EXPECT_FALSE(d.resize(0, 0));  // minimized: nothing to allocate
    EXPECT_FALSE(d.resize(-3, 10));
    EXPECT_EQ(d.allocations(), 0);
    EXPECT_TRUE(d.empty());
    d.draw(0, 0, 0, 0);  // must not crash
    EXPECT_TRUE(d.resize(37, 21));
    EXPECT_FALSE(d.resize(37, 21));  // same size: no reallocation
    EXPECT_EQ(d.allocations(), 1);
    std::vector<uint32_t> px(37 * 21);
    for (size_t i = 0; i < px.size(); ++i) px[i] = uint32_t(i * 2654435761u) | 0xff000000u;
    ASSERT_TRUE(d.upload(px.data(), 37, 21, &err)) << err;
    std::vector<uint32_t> back;
    ASSERT_TRUE(d.read_image(back));
    EXPECT_EQ(back, px);  // through the PBO into the texture and back, bit for bit
    EXPECT_FALSE(d.upload(px.data(), 20, 21, &err));
    EXPECT_NE(err.find("37x21"), std::string::npos) << err;
    EXPECT_FALSE(d.resize(0, 0));  // back to minimized: keeps the buffers
    EXPECT_EQ(d.width(), 37);
    EXPECT_EQ(d.allocations(), 1);
    EXPECT_EQ(glGetError(), GLenum(GL_NO_ERROR));
  }
  SDL_GL_DeleteContext(c);
  SDL_DestroyWindow(w);
  SDL_QuitSubSystem(SDL_INIT_VIDEO);
}

TEST(Window, ResizeMidRunReallocatesOnceAndKeepsDrawing) {
  REQUIRE_DISPLAY();
  fresh_config("resize");
  pr::ViewerTesting v(scripted(30, 800, 500, 200'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  int alloc_before = -1, alloc_after_resize = -1;
  int resized_at = -1;
  pr::ViewerHooks h;
  h.on_frame = [&](int frame, pr::ViewerTesting& vw) {
    if (resized_at < 0 && !vw.cloud_busy() && frame > 3) {
      alloc_before = vw.display_allocations();
      SDL_SetWindowSize(vw.window(), 640, 360);
      resized_at = frame;
    }
    if (resized_at >= 0 && frame == resized_at + 8) alloc_after_resize = vw.display_allocations();
  };
  EXPECT_EQ(v.run(&h), 0);
  ASSERT_GE(resized_at, 0);
  // The image is the window less the docked panel.
  const int iw = 640 - v.image_area().x;
  EXPECT_GT(v.image_area().x, 0);
  EXPECT_EQ(v.image_width(), iw);
  EXPECT_EQ(v.image_height(), 360);
  EXPECT_EQ(alloc_after_resize, alloc_before + 1);
  EXPECT_EQ(v.display_allocations(), alloc_before + 1) << "reallocated more than once per size";
  std::vector<uint32_t> px;
  int w = 0, hh = 0;
  ASSERT_TRUE(v.read_image(px, w, hh));
  ASSERT_EQ(px.size(), size_t(iw * 360));
  EXPECT_GT(count_not(px, w, 0, 0, w, hh, kBackground), size_t(iw * 360 / 10));
}
