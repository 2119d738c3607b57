#include "viewer/camera_control.h"

#include <imgui.h>

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
}

void CameraControl::draw_focus_section() {
  if (!ImGui::CollapsingHeader("Focus", ImGuiTreeNodeFlags_DefaultOpen)) return;
  const double fmin = 0.2, fmax = 50.0;
  ImGui::SliderScalar("focus", ImGuiDataType_Double, &camera.focus, &fmin, &fmax, "%.3f",
                      ImGuiSliderFlags_Logarithmic);
  double vfov = camera.vfov() * 180.0 / kPi;
  const double vmin = 2.0, vmax = 157.0;
  if (ImGui::SliderScalar("vertical fov", ImGuiDataType_Double, &vfov, &vmin, &vmax, "%.1f deg"))
    camera.focus = Camera::focus_for_vfov(vfov * kPi / 180.0);
}

}  // namespace pr
