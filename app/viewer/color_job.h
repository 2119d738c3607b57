// Color modes in the viewer, off the UI thread: a new cloud gets its colors in the loading thread
// (color_new_cloud()), and a mode chosen in the panel is computed by a ColorJob while the window
// keeps drawing the old colors; the viewer then hands them to the cloud and the renderers.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

#include "engine/colorize.h"
#include "engine/point_cloud.h"

namespace pr {

/// The colors a new cloud starts with: `settings` (its up axis replaced by `files_up` or
/// `scene_up`; its range the cloud's own unless `keep_range`), or default_color_mode() when
/// `use_default` or when the cloud lacks the mode.
struct ColorRequest {
  ColorSettings settings;
  bool use_default = true;
  bool keep_range = false;  ///< a scene file's range, set by hand, holds for its cloud
  int files_up = 2, scene_up = 1;
};

/// Colors `cloud` as `request` says and hands the colors over (set_display_colors()); `used` and
/// `legend` receive what was applied, `note` (empty when none) why the mode asked for was not.
void color_new_cloud(PointCloud& cloud, const ColorRequest& request, bool from_files,
                     ColorSettings* used, Legend* legend, std::string* note);

class ColorJob {
 public:
  struct Result {
    bool ok = false;
    std::string error;
    ColorSettings settings;
    PodVector<uint32_t> colors;
    Legend legend;
    double ms = 0.0;        ///< colorize() and the staging
    double stage_ms = 0.0;  ///< the staging alone
    bool staged = false;    ///< `stage` took the colors (else update_colors() uploads them)
    /// `recipe` staged the colors on the GPU, after `recipe_ms` (take_recipe_ready() said so
    /// then); `stage` was not called.
    bool recipe_staged = false;
    double recipe_ms = 0.0;
  };
  /// Hands the finished colors to the renderers ahead of update_colors() (on the job's thread;
  /// RenderBackend::stage_colors()): `colors` is the array the cloud will draw.
  using StageFn = std::function<bool(const PointCloud& cloud, const uint32_t* colors)>;
  /// Has the renderer compute the colors itself from their recipe (RenderBackend::stage_recipe()),
  /// on the job's thread before colorize(): true when they are staged.
  using RecipeFn = std::function<bool(const PointCloud& cloud, const ColorRecipe& recipe)>;

  ColorJob() = default;
  ~ColorJob() { join(); }
  ColorJob(const ColorJob&) = delete;
  ColorJob& operator=(const ColorJob&) = delete;

  /// Starts colorize() of `cloud` (which must stay unchanged until take() or join()), then
  /// `stage` (may be empty) with the colors the cloud will draw: the job's own, or for RGB the
  /// file's colors set aside (nothing to compute); refused (false) while a job runs.
  /// `bounds`: the cloud's world bounds (elevation's automatic range without a pass over the
  /// points). `reuse`: an array for the colors (what set_display_colors() released last), whose
  /// pages are mapped already. `recipe` (may be empty): tried first for every mode (RGB's copies
  /// the file's colors); when it stages the colors, take_recipe_ready() says so while colorize()
  /// still runs, and `stage` is not called.
  bool start(const PointCloud* cloud, const ColorSettings& settings, const Bounds& bounds,
             StageFn stage = {}, PodVector<uint32_t>&& reuse = {}, RecipeFn recipe = {});
  /// True once, when `recipe` has staged the job's colors: the renderer may show them now, before
  /// the host's copy (take()) arrives.
  bool take_recipe_ready() { return recipe_ready_.exchange(false); }
  bool busy() const { return thread_.joinable(); }
  /// When the job has finished: joins and returns its result (once); otherwise false.
  bool take(Result& out);
  /// Waits for the job and drops its result.
  void join();

 private:
  Result run(const PointCloud& cloud, const ColorSettings& settings, const Bounds& bounds,
             const StageFn& stage, const RecipeFn& recipe, PodVector<uint32_t>&& out);

  std::thread thread_;
  std::atomic<bool> done_{false};
  std::atomic<bool> recipe_ready_{false};
  Result result_;
};

}  // namespace pr
