// The panel's Camera path section (path_panel.cpp; docs/VIDEO.md): keyframes made from the view,
// their times edited, reordered and deleted; the path played (the view moves along it), looped
// or at constant speed; the path drawn over the image while it is edited; and Render video
// (video_job.h). --camera-path loads its keys.
#pragma once

#include <string>

#include "engine/camera.h"
#include "engine/camera_path.h"
#include "options.h"
#include "viewer/panel_marks.h"
#include "viewer/pick_panel.h"
#include "viewer/status_line.h"
#include "viewer/video_job.h"

namespace pr {

struct PathState {
  CameraPath path;
  bool show_path = true;   ///< the path drawn over the image while not playing
  bool playing = false;    ///< the view follows the path
  double play_time = 0.0;  ///< seconds on the path's clock (from its first key)
  double key_step = 2.0;   ///< a new key's time after the last one's
  VideoJob render;         ///< Render video

  /// The command line's --camera-path (its keys), --video (the file name) and --fps.
  void load(const Options& o);
  /// The view as a new key, key_step seconds after the last (at 0 for the first).
  void add_key(const Camera& camera);
  /// Swaps key i's pose with its neighbour's (dir -1: the one before, +1: after); the times stay
  /// where they are.
  void move_key(int i, int dir);
  void delete_key(int i);
  /// Key i's time, held strictly between its neighbours' (a hundredth of a second apart).
  void set_time(int i, double t);
  /// Starts or pauses playing; playing from the end of an open path starts again.
  void play(bool on);
  /// Each frame: while playing, the clock moves on `seconds` and `camera` takes the pose there
  /// (its focus, projection and up axis stay); an open path stops at its end. True while playing.
  bool advance(double seconds, Camera& camera);
  /// The path (its spline, a dot and the view's direction at each key, the key's number) over
  /// the image, while it has two keys, is shown and not playing.
  void draw_marks(const PickFrame& frame, float ui_scale) const;
  /// The section; `camera` is the view (keys are made from it, playing and "go" move it).
  /// Returns true when Render video was pressed.
  bool draw_section(Camera& camera, bool can_render, float ui_scale, PanelMarks& marks,
                    StatusLine& status);

 private:
  void key_rows(Camera& camera, PanelMarks& marks);
  void play_rows(Camera& camera, PanelMarks& marks);
};

}  // namespace pr
