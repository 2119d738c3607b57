// The fly camera: keys held move it, the right mouse button turns it, the wheel sets the speed.
// Key state comes from SDL events (not SDL_GetKeyboardState), so injected events drive it too.
// Motion is speed * elapsed seconds: the same distance per second at any frame rate.
#pragma once

#include <glm/glm.hpp>

#include "engine/camera.h"

namespace pr {

class FlyCamera {
 public:
  enum Key { kForward, kBack, kLeft, kRight, kDown, kUp, kFast, kKeyCount };

  void set_key(Key k, bool down) { keys_[k] = down; }
  bool key(Key k) const { return keys_[k]; }
  void release_all();
  /// Any movement key held (the window keeps rendering while flying).
  bool moving() const;

  /// Mouse-look: pixels of motion to radians.
  void look(Camera& cam, double dx_pixels, double dy_pixels) const;
  /// Wheel: each notch scales the speed by 1.2.
  void wheel(double notches);
  /// Moves the camera for `seconds` of held keys; in an orthographic view forward and back zoom.
  void update(Camera& cam, double seconds) const;

  double speed = 10.0;              ///< world units per second
  double fast_factor = 5.0;         ///< with Shift
  double look_sensitivity = 0.003;  ///< radians per pixel
  /// A sensible speed for a cloud: crossing its bounds' diagonal in about 8 seconds.
  static double speed_for(const Bounds& b);

 private:
  bool keys_[kKeyCount] = {};
};

}  // namespace pr
