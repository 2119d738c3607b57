#include "streaming.h"

#include <algorithm>
#include <filesystem>

#include "engine/io/ept.h"
#include "engine/io/formats.h"
#include "engine/parallel.h"
#include "startup.h"

namespace pr {

namespace {

/// Points a frame draws within its time at 1080p: 16 ms on the GPU (the H200 draws 1e9 terrain
/// points in 3.5 ms: memory is the limit there, not time), 50 ms on the CPU (2 cores draw about
/// 2e6 terrain points in that time).
constexpr uint64_t kGpuFrameBudget = 100'000'000;
constexpr uint64_t kCpuFrameBudget = 2'000'000;
/// Host bytes a pooled point costs: position 12, colors 4, and the attributes a survey may have
/// (intensity 4, classification 1, returns 1, point source 2, GPS time 8).
constexpr uint64_t kPoolBytesPerPoint = 32;

}  // namespace

bool streams(const std::vector<std::string>& files, bool stream_copc, std::string* error) {
  size_t streamed = 0;
  for (const std::string& f : files) {
    std::error_code ec;
    // A COPC file or an EPT dataset on disk streams unless --stream off; URLs, other folders and
    // .vpc surveys always do.
    const FormatEntry* format = find_format_by_path(f);
    const bool copc_file =
        !is_url(f) && ((std::filesystem::is_regular_file(f, ec) && !(format && format->survey())) ||
                       !ept_json_of(f).empty());
    if (is_streamed_input(f) && (stream_copc || !copc_file)) ++streamed;
  }
  if (streamed == 0 || streamed == files.size()) return streamed > 0;
  if (error)
    *error =
        "streamed inputs (COPC files, URLs, folders, .vpc surveys) cannot be opened together with "
        "files read whole";
  return false;
}

uint64_t physical_memory_bytes() {
  const uint64_t m = physical_memory();
  return m ? m : uint64_t{8} << 30;
}

uint64_t default_point_budget(bool gpu, uint64_t host_memory_bytes) {
  const uint64_t by_time = gpu ? kGpuFrameBudget : kCpuFrameBudget;
  const uint64_t by_memory = host_memory_bytes / 4 / kPoolBytesPerPoint;
  return std::max<uint64_t>(100'000, std::min(by_time, by_memory));
}

uint64_t default_cache_bytes(uint64_t host_memory_bytes) {
  return std::max<uint64_t>(uint64_t{256} << 20, host_memory_bytes / 4);
}

StreamOptions stream_options(const Options& o, bool gpu) {
  StreamOptions so;
  const uint64_t memory = physical_memory_bytes();
  so.point_budget = o.point_budget.value_or(default_point_budget(gpu, memory));
  so.sse_px = o.sse.value_or(1.0);
  so.cache_bytes = o.cache_memory.value_or(default_cache_bytes(memory));
  so.http = http_options(o);
  if (!gpu) so.pool_points_per_update = kCpuPoolPointsPerUpdate;
  return so;
}

HttpOptions http_options(const Options& o) {
  HttpOptions h;
  h.ca_file = o.ca_file;
  return h;
}

LodView lod_view(const Camera& camera, int width, int height, const Clip* clip) {
  LodView v;
  v.eye = camera.position;
  v.right = camera.right();
  v.up = camera.up();
  v.forward = camera.forward();
  v.focus = camera.focus;
  v.width = width;
  v.height = height;
  v.near_z = camera.near_z;
  if (camera.ortho()) v.ortho = 2.0 / camera.ortho_height;
  if (clip && clip->active()) {
    // The nodes the clip hides whole are not selected: a local frame at the clip keeps its test
    // at float precision for coordinates of any size.
    const glm::dvec3 anchor =
        !clip->boxes.empty() ? clip->boxes.front().centre : clip->section.point;
    ClipParams params;
    if (make_clip_params(*clip, anchor, &params, nullptr)) {
      v.hidden = [params, anchor](const Bounds& b) {
        return clip_hides_box(params, anchor, b.min, b.max);
      };
      v.hidden_key = clip_key(*clip);
    }
  }
  return v;
}

ColorMode stream_default_color(const FileInfo& info) {
  return info.has_color       ? ColorMode::kRgb
         : info.has_intensity ? ColorMode::kIntensity
                              : ColorMode::kElevation;
}

bool declared_field_range(const FileInfo& info, ColorSettings& settings) {
  if (settings.mode != ColorMode::kField || !settings.auto_range) return false;
  for (const FieldInfo& f : info.fields)
    if (f.name == settings.field && f.has_range && f.lo < f.hi) {
      settings.auto_range = false;
      settings.range_lo = f.lo;
      settings.range_hi = f.hi;
      return true;
    }
  return false;
}

Camera stream_camera(const Options& o, const Bounds& world_bounds, double aspect) {
  Camera cam;
  cam.focus = kFilesFocus;
  if (!scene_file_camera(o, true, &cam))
    frame_files_camera(cam, world_bounds, aspect, up_axis_for(o, true));
  apply_camera_options(o, cam, world_bounds, aspect);
  return cam;
}

}  // namespace pr
