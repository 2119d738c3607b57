#include "gl_points.h"

#include <SDL.h>
#include <glad/gl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>

#include "engine/projection.h"

namespace pr {

namespace {

// The renderers' perspective projection, as projection.h computes it, in a vertex shader. Culled
// points (behind the near plane, NaN) are sent outside the clip volume. The depth written is
// camera-space z over a far distance that covers the whole cloud, so the depth test orders points
// by z as the software renderers do (ties can break differently: GL keeps the first drawn of equal
// depths).
const char* kVertexShader = R"(#version 330 core
layout(location = 0) in vec3 pos;
layout(location = 1) in vec4 color;
uniform vec3 r0, r1, r2;     // rotation rows: right, up, forward
uniform vec3 shift;          // camera position in the cloud's local frame
uniform vec4 proj;           // focus, near_z, scale, far_z
uniform vec4 size;           // cx, cy, width, height (pixels)
flat out vec4 v_color;
void main() {
  vec3 d = pos - shift;
  float x = r0.x * d.x + r0.y * d.y + r0.z * d.z;
  float y = r1.x * d.x + r1.y * d.y + r1.z * d.z;
  float z = r2.x * d.x + r2.y * d.y + r2.z * d.z;
  v_color = color;
  if (!(z > proj.y) || !(z < proj.w)) {
    gl_Position = vec4(2.0, 2.0, 2.0, 1.0);  // outside the clip volume: dropped
    return;
  }
  float f = proj.x / z;
  float px = x * f * proj.z + size.x;      // pixels, x right
  float py = size.y - y * f * proj.z;      // pixels, y down (top row 0)
  // Window x = px; window y (bottom-up) = height - py, so a point in [i, i+1) covers pixel i.
  gl_Position = vec4(px / size.z * 2.0 - 1.0, 1.0 - py / size.w * 2.0, z / proj.w * 2.0 - 1.0, 1.0);
}
)";

const char* kFragmentShader = R"(#version 330 core
flat in vec4 v_color;
out vec4 frag;
void main() { frag = v_color; }
)";

bool compile(GLenum type, const char* src, GLuint& out, std::string* error) {
  out = glCreateShader(type);
  glShaderSource(out, 1, &src, nullptr);
  glCompileShader(out);
  GLint ok = 0;
  glGetShaderiv(out, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(out, sizeof log, nullptr, log);
    if (error) *error = std::string("gl_points: shader compile failed: ") + log;
    return false;
  }
  return true;
}

bool gl_ok(const char* what, std::string* error) {
  const GLenum e = glGetError();
  if (e == GL_NO_ERROR) return true;
  if (error) {
    *error = std::string("gl_points: ") + what + ": GL error 0x";
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04x", unsigned(e));
    *error += buf;
    if (e == GL_OUT_OF_MEMORY) *error += " (out of memory)";
  }
  while (glGetError() != GL_NO_ERROR) {
  }
  return false;
}

}  // namespace

std::unique_ptr<GlPoints> GlPoints::create(std::string* why) {
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    if (why) *why = std::string("SDL_Init(video) failed: ") + SDL_GetError();
    return nullptr;
  }
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_PROFILE_MASK, SDL_GL_CONTEXT_PROFILE_CORE);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MAJOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_MINOR_VERSION, 3);
  SDL_GL_SetAttribute(SDL_GL_CONTEXT_FLAGS, SDL_GL_CONTEXT_FORWARD_COMPATIBLE_FLAG);
  std::unique_ptr<GlPoints> g(new GlPoints());
  SDL_Window* w = SDL_CreateWindow("gl_points", SDL_WINDOWPOS_UNDEFINED, SDL_WINDOWPOS_UNDEFINED,
                                   64, 64, SDL_WINDOW_OPENGL | SDL_WINDOW_HIDDEN);
  if (!w) {
    if (why) *why = std::string("SDL_CreateWindow failed: ") + SDL_GetError();
    return nullptr;
  }
  g->window_ = w;
  SDL_GLContext ctx = SDL_GL_CreateContext(w);
  if (!ctx) {
    if (why) *why = std::string("no OpenGL 3.3 core context: ") + SDL_GetError();
    return nullptr;
  }
  g->context_ = ctx;
  SDL_GL_MakeCurrent(w, ctx);
  if (!gladLoadGL(reinterpret_cast<GLADloadfunc>(SDL_GL_GetProcAddress))) {
    if (why) *why = "gladLoadGL failed";
    return nullptr;
  }
  g->name_ = std::string(reinterpret_cast<const char*>(glGetString(GL_RENDERER))) + ", GL " +
             reinterpret_cast<const char*>(glGetString(GL_VERSION));

  GLuint vs = 0, fs = 0;
  if (!compile(GL_VERTEX_SHADER, kVertexShader, vs, why) ||
      !compile(GL_FRAGMENT_SHADER, kFragmentShader, fs, why))
    return nullptr;
  g->program_ = glCreateProgram();
  glAttachShader(g->program_, vs);
  glAttachShader(g->program_, fs);
  glLinkProgram(g->program_);
  glDeleteShader(vs);
  glDeleteShader(fs);
  GLint ok = 0;
  glGetProgramiv(g->program_, GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(g->program_, sizeof log, nullptr, log);
    if (why) *why = std::string("gl_points: program link failed: ") + log;
    return nullptr;
  }
  g->loc_r0_ = glGetUniformLocation(g->program_, "r0");
  g->loc_r1_ = glGetUniformLocation(g->program_, "r1");
  g->loc_r2_ = glGetUniformLocation(g->program_, "r2");
  g->loc_shift_ = glGetUniformLocation(g->program_, "shift");
  g->loc_proj_ = glGetUniformLocation(g->program_, "proj");
  g->loc_size_ = glGetUniformLocation(g->program_, "size");
  glGenVertexArrays(1, &g->vao_);
  glGenQueries(1, &g->query_);
  if (!gl_ok("setup", why)) return nullptr;
  return g;
}

GlPoints::~GlPoints() {
  if (context_) {
    if (vbo_) glDeleteBuffers(1, &vbo_);
    if (vao_) glDeleteVertexArrays(1, &vao_);
    if (fbo_) glDeleteFramebuffers(1, &fbo_);
    if (color_rb_) glDeleteRenderbuffers(1, &color_rb_);
    if (depth_rb_) glDeleteRenderbuffers(1, &depth_rb_);
    if (query_) glDeleteQueries(1, &query_);
    if (program_) glDeleteProgram(program_);
    SDL_GL_DeleteContext(static_cast<SDL_GLContext>(context_));
  }
  if (window_) SDL_DestroyWindow(static_cast<SDL_Window*>(window_));
}

bool GlPoints::set_cloud(const PointCloud& cloud, std::string* error) {
  cloud_ = nullptr;
  points_ = 0;
  if (vbo_) glDeleteBuffers(1, &vbo_);
  vbo_ = 0;
  vbo_bytes_ = 0;
  const size_t n = cloud.size();
  if (n > size_t(INT32_MAX)) {
    if (error) *error = "gl_points: more points than one glDrawArrays takes";
    return false;
  }
  struct Vertex {
    float x, y, z;
    uint32_t rgba;
  };
  static_assert(sizeof(Vertex) == 16);
  glGenBuffers(1, &vbo_);
  glBindVertexArray(vao_);
  glBindBuffer(GL_ARRAY_BUFFER, vbo_);
  const size_t bytes = n * sizeof(Vertex);
  glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(bytes), nullptr, GL_STATIC_DRAW);
  if (!gl_ok("glBufferData of the point buffer", error)) {
    glDeleteBuffers(1, &vbo_);
    vbo_ = 0;
    return false;
  }
  // Interleave and upload in chunks of 8M points (128 MiB).
  const size_t chunk = size_t(1) << 23;
  std::vector<Vertex> staging(std::min(n, chunk));
  for (size_t b = 0; b < n; b += chunk) {
    const size_t e = std::min(n, b + chunk);
    for (size_t i = b; i < e; ++i) {
      const Float3 p = cloud.positions[i];
      staging[i - b] = Vertex{p.x, p.y, p.z, cloud.colors[i]};
    }
    glBufferSubData(GL_ARRAY_BUFFER, GLintptr(b * sizeof(Vertex)),
                    GLsizeiptr((e - b) * sizeof(Vertex)), staging.data());
  }
  glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, sizeof(Vertex), nullptr);
  glEnableVertexAttribArray(0);
  glVertexAttribPointer(1, 4, GL_UNSIGNED_BYTE, GL_TRUE, sizeof(Vertex),
                        reinterpret_cast<void*>(12));
  glEnableVertexAttribArray(1);
  glFinish();
  if (!gl_ok("uploading the point buffer", error)) return false;
  vbo_bytes_ = bytes;
  points_ = n;
  bounds_ = cloud.local_bounds();
  cloud_ = &cloud;
  return true;
}

bool GlPoints::ensure_target(int width, int height, std::string* error) {
  if (fbo_ && fb_w_ == width && fb_h_ == height) return true;
  if (!fbo_) {
    glGenFramebuffers(1, &fbo_);
    glGenRenderbuffers(1, &color_rb_);
    glGenRenderbuffers(1, &depth_rb_);
  }
  glBindRenderbuffer(GL_RENDERBUFFER, color_rb_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, width, height);
  glBindRenderbuffer(GL_RENDERBUFFER, depth_rb_);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_DEPTH_COMPONENT32F, width, height);
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, color_rb_);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, depth_rb_);
  if (glCheckFramebufferStatus(GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    if (error) *error = "gl_points: framebuffer incomplete";
    return false;
  }
  fb_w_ = width;
  fb_h_ = height;
  return gl_ok("framebuffer", error);
}

bool GlPoints::render(const Camera& camera, int width, int height, double& gpu_ms, double& wall_ms,
                      std::string* error) {
  if (!cloud_) {
    if (error) *error = "gl_points: no cloud";
    return false;
  }
  if (!ensure_target(width, height, error)) return false;
  const ProjParams p = camera.params(width, height, cloud_->origin);
  // Far distance: the farthest corner of the cloud's bounds from the camera, with margin.
  const Bounds& b = bounds_;
  double far_z = 1.0;
  for (int k = 0; k < 8; ++k) {
    const glm::dvec3 c((k & 1) ? b.max.x : b.min.x, (k & 2) ? b.max.y : b.min.y,
                       (k & 4) ? b.max.z : b.min.z);
    far_z = std::max(far_z, glm::length(c - glm::dvec3(p.shift[0], p.shift[1], p.shift[2])));
  }
  far_z = far_z * 1.01 + 1.0;
  auto t0 = std::chrono::steady_clock::now();
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glViewport(0, 0, width, height);
  glUseProgram(program_);
  glUniform3f(loc_r0_, p.r[0], p.r[1], p.r[2]);
  glUniform3f(loc_r1_, p.r[3], p.r[4], p.r[5]);
  glUniform3f(loc_r2_, p.r[6], p.r[7], p.r[8]);
  glUniform3f(loc_shift_, p.shift[0], p.shift[1], p.shift[2]);
  glUniform4f(loc_proj_, p.focus, p.near_z, p.scale, float(far_z));
  glUniform4f(loc_size_, p.cx, p.cy, float(width), float(height));
  glBindVertexArray(vao_);
  glEnable(GL_DEPTH_TEST);
  glDepthFunc(GL_LESS);
  glDisable(GL_BLEND);
  glDisable(GL_PROGRAM_POINT_SIZE);
  glPointSize(1.0f);
  glBeginQuery(GL_TIME_ELAPSED, query_);
  glClearColor(0.0f, 0.0f, 0.0f, 1.0f);  // rgba(0, 0, 0): the renderers' default background
  glClearDepth(1.0);
  glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
  glDrawArrays(GL_POINTS, 0, GLsizei(points_));
  glEndQuery(GL_TIME_ELAPSED);
  glFinish();
  wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  GLuint64 ns = 0;
  glGetQueryObjectui64v(query_, GL_QUERY_RESULT, &ns);
  gpu_ms = double(ns) * 1e-6;
  return gl_ok("draw", error);
}

bool GlPoints::read_image(Image& out, std::string* error) {
  if (!fbo_) {
    if (error) *error = "gl_points: nothing drawn yet";
    return false;
  }
  out.resize(fb_w_, fb_h_, false);
  std::vector<uint32_t> rows(out.pixel_count());
  glBindFramebuffer(GL_FRAMEBUFFER, fbo_);
  glPixelStorei(GL_PACK_ALIGNMENT, 4);
  glReadPixels(0, 0, fb_w_, fb_h_, GL_RGBA, GL_UNSIGNED_BYTE, rows.data());
  // GL's rows are bottom-up; Image's are top-down.
  for (int y = 0; y < fb_h_; ++y)
    std::memcpy(&out.rgba[size_t(y) * size_t(fb_w_)], &rows[size_t(fb_h_ - 1 - y) * size_t(fb_w_)],
                size_t(fb_w_) * 4);
  return gl_ok("glReadPixels", error);
}

}  // namespace pr
