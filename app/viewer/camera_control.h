// The viewer's camera: the view drawn, the view R returns to, the fly camera that keys and the
// right mouse button move, the up axis loaded files are seen with, the projection and the
// standard views, and the panel's Camera and Focus sections.
#pragma once

#include <SDL.h>

#include "engine/camera.h"
#include "viewer/fly_camera.h"
#include "viewer/panel_marks.h"

namespace pr {

struct CameraControl {
  Camera camera;
  Camera home;  // what R returns to
  FlyCamera fly;
  bool looking = false;          // right button held, pressed outside ImGui
  UpAxis files_up = UpAxis::kZ;  // up axis for loaded files (--up, or the panel's choice)
  PanelMarks* marks = nullptr;   // where the panel records the items tests click

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
  /// without a cloud on screen), then the projection and the standard views (views_section()).
  void draw_section(const Bounds* bounds, bool files, double aspect);
  /// Perspective or orthographic (Camera::set_projection(), keeping what is seen at the
  /// centre of `bounds`); null `bounds`: only the mode changes.
  void set_projection(Projection p, const Bounds* bounds);
  /// Turns to a standard view, framing `bounds` (null: only the turn).
  void set_view(StandardView v, const Bounds* bounds, double aspect);
  /// The view keys, as Blender's numeric keypad has them (the number row too): 5 toggles
  /// orthographic, 1 front, 3 right, 7 top, with Ctrl back, left, bottom; 0 iso. True when `key`
  /// is one of them.
  bool view_key(SDL_Keycode key, uint16_t mod, const Bounds* bounds, double aspect);
  /// The wheel: zooms an orthographic view (each notch 1.2 times), else sets the fly speed.
  void wheel(double notches);
  /// The panel's Focus section: the focal length, or the vertical field of view.
  void draw_focus_section();

 private:
  void views_section(const Bounds* bounds, double aspect);
};

}  // namespace pr
