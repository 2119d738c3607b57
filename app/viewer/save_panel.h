// The panel's Save section: the cloud on screen written to COPC, LAZ or LAS (by the suffix typed;
// engine/io/convert.h's save_point_cloud()), or a streamed survey's files converted at full
// detail (convert_point_clouds()), on a thread of its own, with a progress bar and Cancel; the
// frame loop only polls it. With a clip or a polygon selection, only the points they keep are
// written (docs/CLIP.md), and a survey's COPC nodes outside them are not read.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "engine/clip_polygon.h"
#include "engine/io/convert.h"
#include "engine/point_cloud.h"
#include "viewer/cloud_state.h"
#include "viewer/status_line.h"
#include "viewer/stream_state.h"

namespace pr {

class SaveJob {
 public:
  struct Result {
    bool ok = false;
    bool cancelled = false;
    std::string path;
    std::string error;  ///< one line when !ok
    ConvertResult written;
    double seconds = 0.0;
  };

  SaveJob() = default;
  ~SaveJob();  ///< cancels and joins (the output is then not left behind)
  SaveJob(const SaveJob&) = delete;
  SaveJob& operator=(const SaveJob&) = delete;

  /// Starts writing `cloud` to `path`; refused (false) while a save runs. The cloud must not
  /// change until the save ends: the viewer holds back color changes and the class filter on a
  /// cloud being saved (reads()), and a new cloud replaces it on screen without freeing it.
  bool start(std::shared_ptr<const PointCloud> cloud, std::string path,
             const ConvertOptions& options = {});
  /// Starts converting the files `inputs` (a streamed survey's tiles) to `path`; refused (false)
  /// while a save runs.
  bool start_files(std::vector<std::string> inputs, std::string path,
                   const ConvertOptions& options = {});
  /// Starts saving a survey on a server (`inputs`: what list_survey() takes): the nodes that
  /// options.keep_box may keep (every node without one) read at full detail, as far as
  /// kServerSavePoints allows, then written with options.keep; refused (false) while a save runs.
  /// URLs are read with `http`.
  bool start_region(std::vector<std::string> inputs, std::string path,
                    const ConvertOptions& options = {}, const HttpOptions& http = {});
  /// The most points start_region() reads (whole levels from the root; the result says when the
  /// selection held more).
  static constexpr uint64_t kServerSavePoints = 100000000;
  bool busy() const { return thread_.joinable(); }
  /// Whether a running save reads `cloud`.
  bool reads(const PointCloud* cloud) const { return busy() && cloud_.get() == cloud; }
  /// The stage and points of the running save (ConvertProgress): 0..1 within the stage.
  double fraction() const;
  /// "building 120k / 1.1M points" for the progress bar.
  std::string label() const;
  const std::string& path() const { return path_; }
  void cancel();
  /// When the save has finished: joins and returns its result (once); otherwise false.
  bool take(Result& out);

 private:
  /// Runs `work` (the save or the conversion) on the job's thread.
  void launch(std::function<bool(ConvertProgress*, ConvertResult*, std::string*)> work);

  std::thread thread_;
  std::atomic<bool> done_{false};
  std::unique_ptr<ConvertProgress> progress_;
  std::shared_ptr<const PointCloud> cloud_;
  std::string path_;
  Result result_;
};

/// What an export keeps: the points the clip shows (highlight boxes only tint: they keep their
/// points) inside the polygon selection (when there is one). Either may be null.
struct ExportSelection {
  const Clip* clip = nullptr;
  const ClipPolygon* polygon = nullptr;
  bool active() const { return (clip && clip->active()) || polygon; }
  /// ConvertOptions::keep and keep_box of the selection (unset when it is not active).
  void apply(ConvertOptions* options) const;
};

/// What the Save section holds: the path typed, the job, the cloud the path was suggested for (a
/// new cloud gets a new suggestion), and whether only the selection is written.
struct SaveState {
  char path[1024] = {0};
  const PointCloud* suggested_for = nullptr;
  bool only_selection = true;  ///< "Only the points the clip shows" (with a clip or a polygon)
  SaveJob job;

  /// Why the Save section is disabled now; empty when it is not.
  std::string unavailable(const CloudState& cloud, const StreamState& stream) const;
  /// Starts writing the cloud on screen to `path` (a streamed survey: its files converted at full
  /// detail), only what `selection` keeps when it is active and only_selection is on; false (with
  /// a status line) when refused: a survey whose tiles are URLs among the reasons.
  bool start(const std::string& path, const CloudState& cloud, const StreamState& stream,
             const ExportSelection& selection, StatusLine& status);
  /// Each frame: a finished save's status line.
  void update(StatusLine& status);
  /// The viewer closes: a running save is cancelled (its output removed) and waited for; one
  /// that ends anyway says so.
  void cancel_and_wait(StatusLine& status);
  /// The panel's Save section; `dir`: the folder a scene's path is suggested in.
  void draw_section(const CloudState& cloud, const StreamState& stream,
                    const ExportSelection& selection, const std::string& dir, float ui_scale,
                    StatusLine& status);
};

/// The path the Save section suggests for a cloud: the first file's name with .copc.laz in its
/// folder (name-copy.copc.laz when that is the file itself), or the scene's name in `dir`.
std::string suggested_save_path(const std::string& first_file, const std::string& scene,
                                const std::string& dir);

/// One line for a finished save: "saved PATH: N points, SIZE in T s", or why not.
std::string save_message(const SaveJob::Result& r);

}  // namespace pr
