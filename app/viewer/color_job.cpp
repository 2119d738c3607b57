#include "viewer/color_job.h"

#include <new>

#include "engine/frame_stats.h"

namespace pr {

void color_new_cloud(PointCloud& cloud, const ColorRequest& request, bool from_files,
                     ColorSettings* used, Legend* legend, std::string* note) {
  ColorSettings s = request.settings;
  s.up_axis = from_files ? request.files_up : request.scene_up;
  note->clear();
  if (request.use_default) {
    s.mode = default_color_mode(cloud);
  } else if (!color_mode_available(cloud, s.mode, s.field)) {
    *note = std::string("color mode ") +
            (s.mode == ColorMode::kField ? s.field.c_str() : color_mode_name(s.mode)) +
            " not available in this cloud";
    s.mode = default_color_mode(cloud);
  }
  // A new cloud's range is its own, unless a scene file set it with the cloud.
  s.auto_range = s.auto_range || !request.keep_range;
  PodVector<uint32_t> colors;
  std::string err;
  if (s.mode != ColorMode::kRgb && !colorize(cloud, s, colors, legend, &err)) {
    *note = err;
    s.mode = ColorMode::kRgb;
  }
  if (s.mode == ColorMode::kRgb) *legend = Legend{};
  set_display_colors(cloud, s.mode, std::move(colors));
  *used = s;
}

bool ColorJob::start(const PointCloud* cloud, const ColorSettings& settings, const Bounds& bounds,
                     StageFn stage, PodVector<uint32_t>&& reuse, RecipeFn recipe) {
  if (busy()) return false;
  done_ = false;
  recipe_ready_ = false;
  result_ = Result{};
  thread_ = std::thread([this, cloud, settings, bounds, stage = std::move(stage),
                         out = std::move(reuse), recipe = std::move(recipe)]() mutable {
    result_ = run(*cloud, settings, bounds, stage, recipe, std::move(out));
    done_ = true;
  });
  return true;
}

ColorJob::Result ColorJob::run(const PointCloud& cloud, const ColorSettings& settings,
                               const Bounds& bounds, const StageFn& stage, const RecipeFn& recipe,
                               PodVector<uint32_t>&& out) {
  Stopwatch sw;
  Result r;
  r.settings = settings;
  r.legend.mode = settings.mode;
  try {
    // The renderer's own copy first, to show while colorize() makes the host's.
    ColorRecipe rc;
    ColorSettings host = settings;
    if (recipe && color_recipe(cloud, settings, &rc, &bounds)) {
      if (recipe(cloud, rc)) {
        r.recipe_staged = true;
        r.recipe_ms = sw.ms();
        recipe_ready_ = true;
      }
      if (rc.steps > 0)  // the range the recipe found: not searched for again
        host.auto_range = false, host.range_lo = rc.lo, host.range_hi = rc.hi;
    }
    // RGB: the file's colors come back (set_display_colors()), nothing to compute.
    r.ok = settings.mode == ColorMode::kRgb;
    if (!r.ok) {
      r.colors = std::move(out);
      r.ok = colorize(cloud, host, r.colors, &r.legend, &r.error, &bounds);
    }
  } catch (const std::bad_alloc&) {
    r.error = "out of memory computing the colors";
  }
  if (r.ok && stage && !r.recipe_staged) {
    // The array set_display_colors() will leave in cloud.colors: RGB brings back the file's
    // colors (set aside in file_colors while another mode shows, else drawn already).
    const uint32_t* drawn =
        settings.mode == ColorMode::kRgb ? cloud.source_colors().data() : r.colors.data();
    Stopwatch st;
    r.staged = stage(cloud, drawn);
    r.stage_ms = st.ms();
  }
  r.ms = sw.ms();
  return r;
}

bool ColorJob::take(Result& out) {
  if (!thread_.joinable() || !done_.load()) return false;
  thread_.join();
  out = std::move(result_);
  result_ = Result{};
  return true;
}

void ColorJob::join() {
  if (thread_.joinable()) thread_.join();
  result_ = Result{};
}

}  // namespace pr
