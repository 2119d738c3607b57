// The Profile window (profile_panel.h): the unrolled corridor drawn by a renderer of the current
// kind into a host image (Renderer::render()), shown from a GL texture; the image is drawn again
// only when the view, its size or the colors changed. Pan and zoom move the orthographic camera
// (the zoom keeps the point under the pointer in place); a click picks with pick_in_frame(), the
// same point the renderer drew.
#include <glad/gl.h>
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdint>

#include "startup.h"
#include "viewer/profile_panel.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

/// A renderer of the kind asked for holding the profile's cloud (the CPU when the GPU cannot);
/// false with the reason.
bool ensure_renderer(ProfileView& v, const PointCloud& cloud, bool gpu, const Options& opt,
                     const PointCloud** held, std::string* why) {
  if (v.renderer && v.renderer_gpu == gpu && *held == &cloud) return true;
  if (!v.renderer || v.renderer_gpu != gpu) {
    v.renderer.reset();
    if (gpu) v.renderer = make_gpu_renderer(opt, why);
    v.renderer_gpu = gpu && v.renderer;
    if (!v.renderer) v.renderer = make_cpu_renderer(opt);
  }
  *held = nullptr;
  if (!v.renderer->set_cloud(cloud, why)) {
    v.renderer.reset();
    return false;
  }
  *held = &cloud;
  return true;
}

/// The image shown from the texture, (re)allocated at its size.
void upload(ProfileView& v) {
  if (!v.texture) {
    GLuint t = 0;
    glGenTextures(1, &t);
    v.texture = t;
    glBindTexture(GL_TEXTURE_2D, t);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  }
  glBindTexture(GL_TEXTURE_2D, GLuint(v.texture));
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
  // 0xAABBGGRR words are the bytes R, G, B, A: GL_RGBA as they lie.
  glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, v.image.width, v.image.height, 0, GL_RGBA,
               GL_UNSIGNED_BYTE, v.image.rgba.data());
  glBindTexture(GL_TEXTURE_2D, 0);
}

ImageRect view_rect(const ProfileView& v) {
  ImageRect r;
  r.w = v.rs.width;
  r.h = v.rs.height;
  r.ux = v.x0;
  r.uy = v.y0;
  r.uw = v.x1 - v.x0;
  r.uh = v.y1 - v.y0;
  return r;
}

/// The picks and the line between them over the image.
void draw_picks(const ProfileView& v, float ui) {
  if (v.pick_count == 0) return;
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ScreenMap map(v.camera, v.rs, view_rect(v));
  dl->PushClipRect(ImVec2(v.x0, v.y0), ImVec2(v.x1, v.y1), true);
  ImVec2 at[2];
  for (int i = 0; i < v.pick_count; ++i) {
    const auto q = map.point(v.picks[i].world);
    if (!q) continue;
    at[i] = *q;
    dl->AddCircle(at[i], 5.0f * ui, IM_COL32(255, 200, 60, 255), 0, 2.0f * ui);
    dl->AddText(ImVec2(at[i].x + 6.0f * ui, at[i].y - 16.0f * ui), IM_COL32(255, 255, 255, 255),
                i == 0 ? "A" : "B");
  }
  if (v.pick_count == 2) dl->AddLine(at[0], at[1], IM_COL32(255, 200, 60, 255), 1.5f * ui);
  dl->PopClipRect();
}

}  // namespace

void ProfileState::draw_window(bool gpu, const Options& opt, uint32_t background, float ui,
                               StatusLine& status) {
  if (!profile || !view.open) return;
  ImGui::SetNextWindowSize(ImVec2(760.0f * ui, 380.0f * ui), ImGuiCond_FirstUseEver);
  if (!ImGui::Begin("Profile", &view.open)) {
    ImGui::End();
    return;
  }
  const ImGuiIO& io = ImGui::GetIO();
  const float lines = ImGui::GetTextLineHeightWithSpacing() * 4.0f;
  const ImVec2 avail = ImGui::GetContentRegionAvail();
  const ImVec2 size(std::max(avail.x, 16.0f), std::max(avail.y - lines, 16.0f));
  const int w = std::max(1, int(size.x * io.DisplayFramebufferScale.x));
  const int h = std::max(1, int(size.y * io.DisplayFramebufferScale.y));
  std::string why;
  if (!ensure_renderer(view, profile->cloud, gpu, opt, &view.held, &why)) {
    ImGui::TextWrapped("the profile cannot be drawn: %s", why.c_str());
    ImGui::End();
    return;
  }
  if (view.rs.width == 0) view.camera = profile_camera(*profile, double(w) / double(h));
  if (w != view.rs.width || h != view.rs.height || background != view.rs.background ||
      opt.point_size != view.rs.point_size)
    view.dirty = true;
  view.rs.width = w;
  view.rs.height = h;
  view.rs.background = background;
  view.rs.point_size = opt.point_size;
  if (view.dirty) {
    FrameStats st;
    if (view.renderer->render(view.camera, view.rs, view.image, st, &why)) {
      view.draw_ms = st.total_ms;
      upload(view);
      view.dirty = false;
    } else {
      status.set("profile view: " + why, true);
      view.renderer.reset();
    }
  }
  const ImVec2 at = ImGui::GetCursorScreenPos();
  view.x0 = at.x;
  view.y0 = at.y;
  view.x1 = at.x + size.x;
  view.y1 = at.y + size.y;
  if (view.texture)
    ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<intptr_t>(view.texture)), size);
  ImGui::SetCursorScreenPos(at);
  ImGui::InvisibleButton("##profile_image", size);
  // The pointer's presses, drags and wheel reach press(), motion(), release() and wheel() from
  // the window's events; ImGui's button only keeps the window from moving under a drag.
  view.hovered = ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenBlockedByActiveItem);
  draw_picks(view, ui);
  ImGui::Text("%zu points, %.3f long, %.3f wide; drawn in %.2f ms (%s)", profile->cloud.size(),
              profile->length, profile->width, view.draw_ms, view.renderer_gpu ? "gpu" : "cpu");
  ImGui::SameLine();
  if (ImGui::SmallButton("frame")) {
    view.camera = profile_camera(*profile, double(w) / double(h));
    view.dirty = true;
  }
  for (int i = 0; i < view.pick_count; ++i) ImGui::TextUnformatted(pick_text(i).c_str());
  if (view.pick_count == 2) {
    const ProfileSpan s = span();
    ImGui::Text("along %.3f, height %.3f, distance %.3f, slope %.2f%% (%.2f deg)", s.along,
                s.height, s.distance, s.slope_percent, s.slope_degrees);
  }
  ImGui::End();
}

bool ProfileState::press(float x, float y) {
  if (!shown() || !view.hovered || !inside(x, y)) return false;
  view.pressed = true;
  view.dragging = false;
  view.press_x = x;
  view.press_y = y;
  return true;
}

void ProfileState::motion(float x, float y, float dx, float dy) {
  if (!view.pressed) return;
  if (std::abs(x - view.press_x) + std::abs(y - view.press_y) > 3.0f) view.dragging = true;
  if (!view.dragging || (dx == 0.0f && dy == 0.0f)) return;
  // Window units to world units of the orthographic view; the camera moves against the drag.
  const double wpu = view.camera.ortho_height / std::max(double(view.y1 - view.y0), 1.0);
  view.camera.move_local(glm::dvec3(-double(dx) * wpu, double(dy) * wpu, 0.0));
  view.dirty = true;
}

bool ProfileState::release(float x, float y, StatusLine& status) {
  if (!view.pressed) return false;
  view.pressed = false;
  if (view.dragging || !shown() || !view.renderer || !inside(x, y)) {
    view.dragging = false;
    return true;
  }
  const double sx = double(view.rs.width) / std::max(double(view.x1 - view.x0), 1.0);
  const double sy = double(view.rs.height) / std::max(double(view.y1 - view.y0), 1.0);
  const int px = int((x - view.x0) * sx), py = int((y - view.y0) * sy);
  PickResult r;
  std::string why;
  if (!pick_in_frame(*view.renderer, profile->cloud, view.camera, view.rs, px, py, 8, &r, &why)) {
    status.set("profile pick: " + why, true);
    return true;
  }
  if (!r.hit) return true;
  if (view.pick_count == 2) view.pick_count = 0;
  view.picks[view.pick_count++] = r;
  status.set(pick_text(view.pick_count - 1), false);
  return true;
}

bool ProfileState::wheel(double steps) {
  const ImVec2 m = ImGui::GetIO().MousePos;
  if (!shown() || !view.hovered || !inside(m.x, m.y) || steps == 0.0) return false;
  // The point under the pointer stays: the camera moves towards it by 1 - 1 / factor of its
  // offset from the centre.
  const double wpu = view.camera.ortho_height / std::max(double(view.y1 - view.y0), 1.0);
  const double factor = std::pow(1.25, steps);
  const double cx = (double(m.x) - 0.5 * double(view.x0 + view.x1)) * wpu;
  const double cy = (0.5 * double(view.y0 + view.y1) - double(m.y)) * wpu;
  view.camera.zoom(factor);
  view.camera.move_local(glm::dvec3(cx, cy, 0.0) * (1.0 - 1.0 / factor));
  view.dirty = true;
  return true;
}

ProfileState::~ProfileState() {
  if (view.texture) {
    const GLuint t = GLuint(view.texture);
    glDeleteTextures(1, &t);
  }
}

}  // namespace pr
