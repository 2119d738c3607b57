#include "viewer/display.h"

#include <glad/gl.h>

#include <algorithm>
#include <cstddef>
#include <cstring>

#include "engine/parallel.h"
#include "shaders/embedded.h"

namespace pr {

namespace {

bool compile(GLenum type, const char* src, GLuint& out, std::string* error) {
  out = glCreateShader(type);
  glShaderSource(out, 1, &src, nullptr);
  glCompileShader(out);
  GLint ok = 0;
  glGetShaderiv(out, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetShaderInfoLog(out, sizeof log, nullptr, log);
    if (error)
      *error = std::string("display shader (") +
               (type == GL_VERTEX_SHADER ? "display.vert" : "display.frag") +
               ") failed to compile: " + log;
    glDeleteShader(out);
    out = 0;
    return false;
  }
  return true;
}

}  // namespace

Display::~Display() {
  // Only delete when a context made these; the viewer destroys the Display before the context.
  if (texture_) glDeleteTextures(1, &texture_);
  if (pbo_) glDeleteBuffers(1, &pbo_);
  if (vao_) glDeleteVertexArrays(1, &vao_);
  if (program_) glDeleteProgram(program_);
}

bool Display::init(std::string* error) {
  GLuint vs = 0, fs = 0;
  if (!compile(GL_VERTEX_SHADER, shaders::k_display_vert, vs, error)) return false;
  if (!compile(GL_FRAGMENT_SHADER, shaders::k_display_frag, fs, error)) {
    glDeleteShader(vs);
    return false;
  }
  program_ = glCreateProgram();
  glAttachShader(program_, vs);
  glAttachShader(program_, fs);
  glLinkProgram(program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {0};
    glGetProgramInfoLog(program_, sizeof log, nullptr, log);
    if (error) *error = std::string("display shader program failed to link: ") + log;
    return false;
  }
  sampler_loc_ = glGetUniformLocation(program_, "u_image");
  glGenVertexArrays(1, &vao_);  // core profile: drawing needs a bound VAO even without attributes
  glGenTextures(1, &texture_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  // Nearest: the image has exactly the drawable's size, one texel per pixel.
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
  glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  glGenBuffers(1, &pbo_);
  return true;
}

bool Display::resize(int w, int h) {
  if (w <= 0 || h <= 0) return false;  // minimized: keep the old buffers for when it comes back
  if (w == width_ && h == height_) return false;
  width_ = w;
  height_ = h;
  const size_t bytes = size_t(w) * size_t(h) * 4;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBufferData(GL_PIXEL_UNPACK_BUFFER, GLsizeiptr(bytes), nullptr, GL_STREAM_DRAW);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, w, h, 0, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  ++allocations_;
  return true;
}

bool Display::upload(const uint32_t* pixels, int w, int h, std::string* error) {
  if (empty()) return true;
  if (w != width_ || h != height_) {
    if (error)
      *error = "display upload: image is " + std::to_string(w) + "x" + std::to_string(h) +
               ", the display " + std::to_string(width_) + "x" + std::to_string(height_);
    return false;
  }
  const size_t bytes = size_t(w) * size_t(h) * 4;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  // Invalidate: the driver may hand out fresh memory instead of waiting for the previous frame's
  // texture copy to finish reading the buffer.
  void* dst = glMapBufferRange(GL_PIXEL_UNPACK_BUFFER, 0, GLsizeiptr(bytes),
                               GL_MAP_WRITE_BIT | GL_MAP_INVALIDATE_BUFFER_BIT);
  if (!dst) {
    glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
    if (error) *error = "display upload: glMapBufferRange of the pixel buffer failed";
    return false;
  }
  // Copied by several threads (in pieces of at least 1 MB): one core copies a fraction of what
  // the memory takes, and a 1080p image is 8 MB every frame.
  const auto* from = reinterpret_cast<const unsigned char*>(pixels);
  auto* to = static_cast<unsigned char*>(dst);
  parallel_for(
      bytes, [&](size_t b, size_t e) { std::memcpy(to + b, from + b, e - b); }, 0, size_t{1} << 20);
  glUnmapBuffer(GL_PIXEL_UNPACK_BUFFER);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
  return true;
}

void Display::upload_from_pbo() {
  if (empty()) return;
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, pbo_);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, width_, height_, GL_RGBA, GL_UNSIGNED_BYTE, nullptr);
  glBindBuffer(GL_PIXEL_UNPACK_BUFFER, 0);
}

void Display::draw(int vx, int vy, int vw, int vh) const {
  if (empty() || vw <= 0 || vh <= 0) return;
  glViewport(vx, vy, vw, vh);
  glDisable(GL_BLEND);
  glDisable(GL_DEPTH_TEST);
  glDisable(GL_SCISSOR_TEST);
  glUseProgram(program_);
  glActiveTexture(GL_TEXTURE0);
  glBindTexture(GL_TEXTURE_2D, texture_);
  glUniform1i(sampler_loc_, 0);
  glBindVertexArray(vao_);
  glDrawArrays(GL_TRIANGLES, 0, 3);
  glBindVertexArray(0);
  glUseProgram(0);
}

bool Display::read_image(std::vector<uint32_t>& out) const {
  if (empty()) return false;
  out.resize(size_t(width_) * size_t(height_));
  glBindTexture(GL_TEXTURE_2D, texture_);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glGetTexImage(GL_TEXTURE_2D, 0, GL_RGBA, GL_UNSIGNED_BYTE, out.data());
  return true;
}

std::vector<uint32_t> read_framebuffer(int w, int h) {
  std::vector<uint32_t> px(size_t(std::max(w, 0)) * size_t(std::max(h, 0)));
  if (px.empty()) return px;
  glBindFramebuffer(GL_READ_FRAMEBUFFER, 0);
  glReadBuffer(GL_BACK);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, w, h, GL_RGBA, GL_UNSIGNED_BYTE, px.data());
  // GL's row 0 is the bottom; PNG's is the top.
  for (int y = 0; y < h / 2; ++y)
    std::swap_ranges(px.begin() + std::ptrdiff_t(y) * w, px.begin() + std::ptrdiff_t(y + 1) * w,
                     px.begin() + std::ptrdiff_t(h - 1 - y) * w);
  // The window has no meaningful alpha; PNG viewers would show it as transparency.
  for (auto& p : px) p |= 0xff000000u;
  return px;
}

}  // namespace pr
