// The viewer's camera: the view drawn, the view R returns to, the fly camera that keys and the
// right mouse button move, the up axis loaded files are seen with, and the panel's Camera and
// Focus sections.
#pragma once

#include <SDL.h>

#include "engine/camera.h"
#include "viewer/fly_camera.h"

namespace pr {

struct CameraControl {
  Camera camera;
  Camera home;  // what R returns to
  FlyCamera fly;
  bool looking = false;          // right button held, pressed outside ImGui
  UpAxis files_up = UpAxis::kZ;  // up axis for loaded files (--up, or the panel's choice)

  /// A movement key (W/A/S/D, Q/C, E/Space, Shift) pressed or released; other keys do nothing.
  void fly_key(SDL_Keycode key, bool down);
  /// The right button: mouse-look until it is released.
  void start_look();
  void end_look();
  /// The window lost the focus: no key or button stays held.
  void focus_lost();
  /// Fills the view with `bounds` (F), keeping the direction.
  void frame(const Bounds& bounds, double aspect);
  /// Sees the cloud with `up` up: `bounds` (the cloud on screen's, or null without one) framed
  /// anew, the result the new home. `files`: the cloud on screen comes from files, whose up axis
  /// the panel's choice becomes.
  void set_up_axis(UpAxis up, bool files, const Bounds* bounds, double aspect);
  /// The panel's Camera section: the up axis (set_up_axis() with `files`, `bounds` and
  /// `aspect`), position, yaw, pitch and speed, Reset and Frame the cloud (`bounds`; null
  /// without a cloud on screen).
  void draw_section(const Bounds* bounds, bool files, double aspect);
  /// The panel's Focus section: the focal length, or the vertical field of view.
  void draw_focus_section();
};

}  // namespace pr
