// Making a new cloud off the UI thread: loading files (with progress and cancel) or regenerating a
// procedural scene. The window keeps drawing the old cloud until take() hands over the new one.
// Large plain LAS files load progressively: an even subset of their records (kPreviewPoints,
// read in a fraction of a second: the records are fixed-size, so a stride through the mapped
// file touches only the pages it keeps) is handed over first by take_preview(), then the whole
// cloud by take().
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "engine/io/io.h"
#include "engine/morton.h"
#include "engine/point_cloud.h"
#include "viewer/color_job.h"

namespace pr {

/// What reading more of files read in part would read: `now` is what they were read with and
/// `files` what that gave. A COPC file read to some depth goes one octree level deeper; a file
/// that filled its point budget (an even subset of its records) gets twice the budget;
/// `everything` reads every point of every file. False when every file was read whole. `what`
/// says what is read now ("COPC: 3 of 6 octree levels read").
bool read_more_options(const std::vector<FileInfo>& files, const LoadOptions& now, bool everything,
                       LoadOptions* next, std::string* what);

class CloudJob {
 public:
  struct Result {
    bool ok = false;
    std::string error;  ///< one line when !ok ("cancelled" after cancel())
    std::unique_ptr<PointCloud> cloud;
    std::vector<FileInfo> files;  ///< empty for a scene
    std::string scene;            ///< scene name, empty for files
    /// A scene the GPU makes (scene_home(): the host cannot hold it): its points. `cloud` is then
    /// the host's even subset of them (make_scene_subset(), kDeviceSceneHostPoints).
    uint64_t device_points = 0;
    double seconds = 0.0;
    bool sorted = false;  ///< reordered along a Morton curve (sort_if_incoherent)
    ColorSettings color;  ///< the color mode the cloud got (color_new_cloud())
    Legend legend;
    std::string color_note;  ///< why the mode asked for was not applied; empty when it was
    /// An even subset of the files (take_preview()), shown while the whole of them loads.
    bool preview = false;
    /// The result (the whole cloud, or why there is none) of a job whose preview take_preview()
    /// handed over: the view stays where it is.
    bool after_preview = false;
    /// A cloud given (start_cloud()) that keeps the view on screen.
    bool keep_view = false;
    /// False for a cloud given without colors (drawn white).
    bool given_colors = true;
  };

  /// Points of a preview, and the least a load must read besides to get one: a file job whose
  /// files are all plain LAS and hold more than kPreviewMinPoints (within the job's max_points)
  /// shows kPreviewPoints of them first, spread over the files by their point counts.
  static constexpr uint64_t kPreviewPoints = 1'000'000;
  static constexpr uint64_t kPreviewMinPoints = 4 * kPreviewPoints;

  CloudJob() = default;
  ~CloudJob();  ///< cancels and joins
  CloudJob(const CloudJob&) = delete;
  CloudJob& operator=(const CloudJob&) = delete;

  /// Starts loading FILEs merged into one cloud (`options`: which E57 scans). Refused (false)
  /// while a job runs. `preview`: large plain LAS files give a preview first (take_preview());
  /// off when the files on screen are already a subset of the same files (Read more).
  bool start_files(std::vector<std::string> paths, LoadOptions options = {}, bool preview = true);
  /// Starts making `cloud` (given in memory: named "points" when it has no name) the next cloud:
  /// its colors white where it has none, sorted and colored as a file's cloud is. `keep_view`
  /// goes to the result.
  bool start_cloud(std::unique_ptr<PointCloud> cloud, bool keep_view);
  /// Starts generating `points` points of scene `name` on the host; with `gpu` (GPU mode), a
  /// scene the host cannot hold is the GPU's to make (Result::device_points): the job makes the
  /// host's even subset of it. One that neither can make fails with scene_home()'s reason.
  bool start_scene(std::string name, uint64_t points, bool gpu);
  /// The colors the next jobs give their cloud (read when a job starts).
  void set_color_request(const ColorRequest& request) { color_request_ = request; }

  bool running() const { return thread_.joinable() && !done_.load(); }
  bool busy() const { return thread_.joinable(); }
  /// 0..1 over all files.
  double progress() const;
  /// What is being made, for the progress bar.
  const std::string& label() const { return label_; }
  void cancel();
  /// When the job has finished: joins and returns the result (once); otherwise false.
  bool take(Result& out);
  /// While a file job runs: its preview (Result::preview), once, when it is ready; otherwise
  /// false. A preview not taken before the job finishes is dropped.
  bool take_preview(Result& out);
  /// Tests: while held, a file job that handed over a preview waits before reading the whole
  /// files (so a test sees the preview on screen with the load still running, however fast the
  /// machine reads); releasing lets it go on, cancel() ends it.
  void hold(bool on);

 private:
  void join();
  bool wait_while_held();  // false when cancelled meanwhile
  /// Reads `paths` with `options[i]` for file i, merged, sorted and colored (`request`), into
  /// `r` (r.ok, or r.error).
  void load_files(const std::vector<std::string>& paths, const std::vector<LoadOptions>& options,
                  const ColorRequest& request, Result& r);
  std::thread thread_;
  std::atomic<bool> done_{false};
  std::atomic<int> file_index_{0};
  int file_count_ = 1;
  LoadProgress progress_;
  Result result_;
  std::string label_;
  ColorRequest color_request_;
  std::mutex preview_mutex_;  // guards preview_
  Result preview_;
  std::atomic<bool> preview_ready_{false};
  bool preview_taken_ = false;  // UI thread only
  std::mutex hold_mutex_;
  std::condition_variable hold_cv_;
  bool held_ = false;
};

/// The options of a preview pass over `paths` read with `options` (one per file: a max_points
/// that keeps about CloudJob::kPreviewPoints in all; LAZ files whole chunks spread through them,
/// LoadOptions::whole_chunks), or empty when the job gets no preview: a file is neither LAS nor
/// LAZ (or is COPC), or the load reads too few points to need one.
std::vector<LoadOptions> preview_options(const std::vector<std::string>& paths,
                                         const LoadOptions& options);

}  // namespace pr
