// The GL side of showing a frame: a texture the size of the window's drawable area, the pixel
// buffer object (PBO) that feeds it, and the fullscreen pass (shaders/display.*) that draws it.
// The CPU image is copied into the PBO; the CUDA renderer writes the PBO itself through interop.
// Buffers are reallocated only when the size changes. No GL types in this header: GL objects are
// their unsigned int names.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace pr {

class Display {
 public:
  Display() = default;
  ~Display();
  Display(const Display&) = delete;
  Display& operator=(const Display&) = delete;

  /// Compiles the shaders and makes the GL objects; needs a current GL 3.3 context.
  bool init(std::string* error);
  /// Resizes texture and PBO to w x h when that differs from the current size; returns true when
  /// it reallocated. A zero or negative size frees nothing and draws nothing (minimized window).
  bool resize(int w, int h);
  int width() const { return width_; }
  int height() const { return height_; }
  bool empty() const { return width_ <= 0 || height_ <= 0; }
  /// How many times the buffers were (re)allocated: once per size change.
  int allocations() const { return allocations_; }

  /// Copies w*h RGBA8 pixels (top row first) into the PBO and from there into the texture.
  /// Mismatched sizes are refused with a message.
  bool upload(const uint32_t* pixels, int w, int h, std::string* error);
  /// Copies the PBO's current contents into the texture (after CUDA wrote it).
  void upload_from_pbo();
  /// Draws the texture over the viewport (x, y, w, h) of the bound framebuffer.
  void draw(int vx, int vy, int vw, int vh) const;

  unsigned int pbo() const { return pbo_; }
  /// Reads the texture back (top row first), for the screenshot key.
  bool read_image(std::vector<uint32_t>& out) const;

 private:
  unsigned int program_ = 0, vao_ = 0, texture_ = 0, pbo_ = 0;
  int sampler_loc_ = -1;
  int width_ = 0, height_ = 0;
  int allocations_ = 0;
};

/// Reads the default framebuffer's w x h pixels as RGBA8, top row first (GL reads bottom first).
std::vector<uint32_t> read_framebuffer(int w, int h);

}  // namespace pr
