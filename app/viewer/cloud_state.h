// The cloud on screen and the background job that makes the next one (files read, a scene
// generated) while it stays visible; what the files on screen were read with, so that "Read more"
// knows what to read next; the panel's point count, and its Cloud section.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/io/io.h"
#include "engine/io/stream.h"
#include "engine/point_cloud.h"
#include "engine/renderer.h"
#include "viewer/cloud_job.h"
#include "viewer/render_backend.h"
#include "viewer/status_line.h"

namespace pr {

struct CloudState {
  /// The cloud on screen: loaded or generated, or a streamed survey's pool (sharing ownership
  /// with StreamState::scene).
  std::shared_ptr<PointCloud> points;
  /// The cloud's world bounds, computed once when it arrives (a pass over a billion positions
  /// costs a third of a second): the camera's framing and speed, the Cloud section, elevation's
  /// automatic range.
  Bounds bounds;
  std::vector<FileInfo> files;
  LoadOptions files_options;    // what the files on screen were read with
  LoadOptions loading_options;  // what the running file job reads with
  bool loading_more = false;    // the running job reads more of the files on screen (same view)
  std::string scene;
  uint64_t scene_points = 0;  // points generated for the scene
  /// A scene made on the GPU: its points (`points` is the host's even subset of them); else 0.
  uint64_t device_points = 0;
  bool given_colors = true;  // a cloud given in memory (neither files nor a scene) had colors
  CloudJob job;
  bool first = true;  // no cloud has arrived yet
  bool initial_load_failed = false;
  uint64_t point_target = 0;  // the panel's point-count value

  /// A cloud with points is on screen.
  bool drawable() const { return points && !points->empty(); }
  /// The cloud on screen is a scene (not files).
  bool is_scene() const { return points && !scene.empty(); }
  /// The points of the cloud on screen: all a scene made on the GPU has (not its host subset).
  uint64_t point_total() const {
    return device_points ? device_points : points ? points->size() : 0;
  }
  std::vector<std::string> file_paths() const;
  /// The colors drawn come from the files (or the scene, or the cloud given): false when files
  /// are on screen and none of them has colors, or a cloud was given without (their points are
  /// drawn white).
  bool file_colors() const;
  /// The readers' warnings about the files on screen, joined by "; " ("" when none).
  std::string warnings() const;

  /// Starts reading `paths` (files read whole) with `options` in the background; `more`: more of
  /// the files on screen (the view stays, no preview). False (with the status line) while a job
  /// runs.
  bool start_files(const std::vector<std::string>& paths, const LoadOptions& options, bool more,
                   StatusLine& status);
  /// Starts making `cloud`, given in memory, the cloud on screen (CloudJob::start_cloud()); false
  /// (with the status line) while a job runs.
  bool start_cloud(std::unique_ptr<PointCloud> cloud, bool keep_view, StatusLine& status);
  /// What "Read more" (or with `everything`, "Read everything") reads of the files on screen;
  /// false (with the status line) when there is none to read more of.
  bool more_options(bool everything, LoadOptions* next, StatusLine& status) const;
  /// The panel's point count: a subset of a loaded cloud drawn at once (`rs`), a scene made
  /// anew in the background (by the GPU, in GPU mode (`gpu`), when the host cannot hold it).
  void set_point_target(uint64_t n, bool gpu, RenderSettings& rs, StatusLine& status);
  /// A job's cloud becomes the cloud on screen (the renderers have it already).
  void show(CloudJob::Result& r);
  /// The status line of a cloud shown: its points, time and the readers' warnings; `note` and
  /// `refused`: what the GPU's upload adds.
  void say_ready(const CloudJob::Result& r, const std::string& note, bool refused,
                 StatusLine& status) const;
  /// The status line of files read that hold no point (none declared, or cut before the first):
  /// nothing to show, the cloud on screen (if any) stays; the readers' warnings.
  void say_nothing_to_show(const CloudJob::Result& r, StatusLine& status) const;
  /// A cloud arrived: every point drawn, or `asked` (--points) for the first cloud of files.
  void reset_point_target(std::optional<uint64_t> asked, RenderSettings& rs);
  /// A streamed survey's pool becomes the cloud on screen (sharing ownership with `scene`).
  void show_survey(const std::shared_ptr<StreamingScene>& scene, RenderSettings& rs);
  /// The panel's Cloud section.
  void draw_section(const RenderBackend& backend) const;
};

}  // namespace pr
