#include "viewer/camera_control.h"

#include "startup.h"

namespace pr {

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

}  // namespace pr
