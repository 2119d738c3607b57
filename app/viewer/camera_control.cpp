#include "viewer/camera_control.h"

#include <imgui.h>

#include <cmath>
#include <string>

#include "startup.h"

namespace pr {

namespace {

constexpr double kPi = 3.14159265358979323846;

}  // namespace

void CameraControl::fly_key(SDL_Keycode key, bool down) {
  switch (key) {
    case SDLK_w:
      fly.set_key(FlyCamera::kForward, down);
      break;
    case SDLK_s:
      fly.set_key(FlyCamera::kBack, down);
      break;
    case SDLK_a:
      fly.set_key(FlyCamera::kLeft, down);
      break;
    case SDLK_d:
      fly.set_key(FlyCamera::kRight, down);
      break;
    case SDLK_q:
    case SDLK_c:
      fly.set_key(FlyCamera::kDown, down);
      break;
    case SDLK_e:
    case SDLK_SPACE:
      fly.set_key(FlyCamera::kUp, down);
      break;
    case SDLK_LSHIFT:
    case SDLK_RSHIFT:
      fly.set_key(FlyCamera::kFast, down);
      break;
    default:
      break;
  }
}

void CameraControl::start_look() {
  looking = true;
  // Relative mode hides the pointer and keeps reporting motion at the screen's edge, so a long
  // drag keeps turning. Where the platform refuses it, plain motion events still work.
  SDL_SetRelativeMouseMode(SDL_TRUE);
}

void CameraControl::end_look() {
  looking = false;
  SDL_SetRelativeMouseMode(SDL_FALSE);
}

void CameraControl::focus_lost() {
  fly.release_all();
  if (looking) SDL_SetRelativeMouseMode(SDL_FALSE);
  looking = false;
}

void CameraControl::frame(const Bounds& bounds, double aspect) {
  camera.fill_view(bounds, aspect);
}

void CameraControl::set_up_axis(UpAxis up, bool files, const Bounds* bounds, double aspect) {
  if (up == camera.up_axis) return;
  if (files) files_up = up;
  if (bounds)
    frame_files_camera(camera, *bounds, aspect, up);
  else
    camera.up_axis = up;
  home = camera;
}

void CameraControl::draw_section(const Bounds* bounds, bool files, double aspect) {
  if (!ImGui::CollapsingHeader("Camera", ImGuiTreeNodeFlags_DefaultOpen)) return;
  int up = camera.up_axis == UpAxis::kZ ? 1 : 0;
  ImGui::Text("up axis");
  ImGui::SameLine();
  if (ImGui::RadioButton("Y (scenes)", up == 0)) set_up_axis(UpAxis::kY, files, bounds, aspect);
  ImGui::SameLine();
  if (ImGui::RadioButton("Z (LAS, scans)", up == 1)) set_up_axis(UpAxis::kZ, files, bounds, aspect);
  ImGui::InputScalarN("position", ImGuiDataType_Double, &camera.position.x, 3, nullptr, nullptr,
                      "%.2f");
  double yaw_deg = camera.yaw * 180.0 / kPi, pitch_deg = camera.pitch * 180.0 / kPi;
  if (ImGui::DragScalar("yaw", ImGuiDataType_Double, &yaw_deg, 0.5f, nullptr, nullptr, "%.1f deg"))
    camera.turn(yaw_deg * kPi / 180.0 - camera.yaw, 0.0);
  if (ImGui::DragScalar("pitch", ImGuiDataType_Double, &pitch_deg, 0.5f, nullptr, nullptr,
                        "%.1f deg"))
    camera.turn(0.0, pitch_deg * kPi / 180.0 - camera.pitch);
  const double smin = 1e-3, smax = 1e6;
  ImGui::SliderScalar("speed", ImGuiDataType_Double, &fly.speed, &smin, &smax, "%.3g /s",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::Button("Reset (R)")) camera = home;
  ImGui::SameLine();
  if (ImGui::Button("Frame the cloud (F)") && bounds) frame(*bounds, aspect);
  views_section(bounds, aspect);
}

void CameraControl::set_projection(Projection p, const Bounds* bounds) {
  camera.set_projection(p, bounds ? *bounds : Bounds{});
}

void CameraControl::set_view(StandardView v, const Bounds* bounds, double aspect) {
  camera.set_view(v, bounds ? *bounds : Bounds{}, aspect);
}

bool CameraControl::view_key(SDL_Keycode key, uint16_t mod, const Bounds* bounds, double aspect) {
  const bool ctrl = (mod & KMOD_CTRL) != 0;
  switch (key) {
    case SDLK_5:
    case SDLK_KP_5:
      set_projection(camera.ortho() ? Projection::kPerspective : Projection::kOrthographic, bounds);
      return true;
    case SDLK_1:
    case SDLK_KP_1:
      set_view(ctrl ? StandardView::kBack : StandardView::kFront, bounds, aspect);
      return true;
    case SDLK_3:
    case SDLK_KP_3:
      set_view(ctrl ? StandardView::kLeft : StandardView::kRight, bounds, aspect);
      return true;
    case SDLK_7:
    case SDLK_KP_7:
      set_view(ctrl ? StandardView::kBottom : StandardView::kTop, bounds, aspect);
      return true;
    case SDLK_0:
    case SDLK_KP_0:
      set_view(StandardView::kIso, bounds, aspect);
      return true;
    default:
      return false;
  }
}

void CameraControl::wheel(double notches) {
  if (camera.ortho())
    camera.zoom(std::pow(1.2, notches));
  else
    fly.wheel(notches);
}

void CameraControl::views_section(const Bounds* bounds, double aspect) {
  ImGui::Text("projection");
  ImGui::SameLine();
  if (ImGui::RadioButton("perspective", !camera.ortho()))
    set_projection(Projection::kPerspective, bounds);
  ImGui::SameLine();
  if (ImGui::RadioButton("ortho (5)", camera.ortho()))
    set_projection(Projection::kOrthographic, bounds);
  if (marks) marks->mark("view.ortho");
  if (camera.ortho()) {
    const double hmin = 1e-6, hmax = 1e9;
    ImGui::SliderScalar("view height", ImGuiDataType_Double, &camera.ortho_height, &hmin, &hmax,
                        "%.4g", ImGuiSliderFlags_Logarithmic);
  }
  // Blender's keypad: 7 top, 1 front, 3 right, Ctrl for the opposite; 0 iso.
  struct Button {
    const char* label;
    StandardView view;
  };
  static constexpr Button kButtons[] = {
      {"Top (7)", StandardView::kTop},     {"Front (1)", StandardView::kFront},
      {"Right (3)", StandardView::kRight}, {"Iso (0)", StandardView::kIso},
      {"Bottom", StandardView::kBottom},   {"Back", StandardView::kBack},
      {"Left", StandardView::kLeft},
  };
  for (int i = 0; i < 7; ++i) {
    if (i % 4 != 0) ImGui::SameLine();
    if (ImGui::Button(kButtons[i].label)) set_view(kButtons[i].view, bounds, aspect);
    if (marks) marks->mark((std::string("view.") + standard_view_name(kButtons[i].view)).c_str());
  }
}

void CameraControl::draw_focus_section() {
  if (!ImGui::CollapsingHeader("Focus", ImGuiTreeNodeFlags_DefaultOpen)) return;
  // An orthographic image has no focal length; it decides the perspective view 5 returns to.
  if (camera.ortho()) ImGui::TextDisabled("orthographic: the focus is the perspective view's");
  const double fmin = 0.2, fmax = 50.0;
  ImGui::SliderScalar("focus", ImGuiDataType_Double, &camera.focus, &fmin, &fmax, "%.3f",
                      ImGuiSliderFlags_Logarithmic);
  double vfov = camera.vfov() * 180.0 / kPi;
  const double vmin = 2.0, vmax = 157.0;
  if (ImGui::SliderScalar("vertical fov", ImGuiDataType_Double, &vfov, &vmin, &vmax, "%.1f deg"))
    camera.focus = Camera::focus_for_vfov(vfov * kPi / 180.0);
}

}  // namespace pr
