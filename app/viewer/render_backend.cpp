#include "viewer/render_backend.h"

#include <cstdio>

#include "progress_bar.h"
#include "startup.h"

namespace pr {

struct RenderBackend::Gpu {
  std::unique_ptr<GpuRenderer> r;
  bool interop = false;     // renders straight into the display's pixel buffer
  std::string interop_why;  // why interop is off (empty: not tried yet, or on)
};

RenderBackend::RenderBackend(const Options& o, StatusFn status)
    : status_(std::move(status)),
      opt_(o),
      options_(render_options(o)),
      cpu_(make_cpu_renderer(o)) {}

RenderBackend::~RenderBackend() {
  release_interop();
}

RenderOptions RenderBackend::effective_options() const {
  RenderOptions o = options_;
  if (streaming_) {
    o.sort = Toggle::kOff;
    o.compact = false;
  }
  return o;
}

void RenderBackend::apply_options() {
  cpu_->set_options(effective_options());
  if (gpu_) gpu_->r->set_options(effective_options());
}

void RenderBackend::set_streaming(bool on) {
  streaming_ = on;
  apply_options();
}

bool RenderBackend::update_points(const std::vector<PoolRange>& ranges, std::string* error) {
  if (!cloud_) return true;
  std::string err;
  for (const PoolRange& r : ranges)
    if (r.count && !cpu_->update_points(*cloud_, r.first, r.count, &err)) {
      cpu_stale_ = true;  // the CPU takes the whole pool when it draws next
      break;
    }
  if (cpu_stale_ && !use_gpu_ && !refresh_cpu(&err)) {
    *error = "CPU renderer refused the pool: " + err;
    return false;
  }
  if (!gpu_) return true;
  std::lock_guard<std::mutex> lock(gpu_mutex_);
  for (const PoolRange& r : ranges)
    if (r.count && !gpu_->r->update_points(*cloud_, r.first, r.count, &err)) {
      *error = "GPU: " + err + "; uploading the pool again";
      std::string why;
      if (!gpu_->r->set_cloud(*cloud_, &why)) *error += " failed: " + why;
      return false;
    }
  return true;
}

bool RenderBackend::refresh_cpu(std::string* error) {
  cpu_stale_ = false;
  return !cloud_ || cpu_->set_cloud(*cloud_, error);
}

bool RenderBackend::set_cloud(const PointCloud& cloud, std::string* error, std::string* note,
                              bool* gpu_refused) {
  *gpu_refused = false;
  std::string err;
  if (!cpu_->set_cloud(cloud, &err)) {
    *error = "CPU renderer refused the cloud: " + err;
    if (cloud_) refresh_cpu(&err);  // back to the cloud on screen
    return false;
  }
  {
    std::lock_guard<std::mutex> lock(gpu_mutex_);  // stage_colors() compares with it
    cloud_ = &cloud;
    device_scene_ = DeviceScene{};
  }
  cpu_stale_ = false;
  if (gpu_) {
    if (!upload_gpu(&err, note, /*compact_fallback=*/true)) {
      release_gpu();  // the caller's status line says why
      *note = "; the GPU renderer refused it (" + err + "), so the CPU draws it";
      *gpu_refused = true;
    }
    // A fallback to compact positions holds for the CPU too: the same image in both modes.
    if (cpu_stale_ && !use_gpu_ && !refresh_cpu(&err)) *note += "; the CPU refused it: " + err;
  }
  return true;
}

bool RenderBackend::set_device_scene(const PointCloud& subset, const std::string& name,
                                     uint64_t points, std::string* error, std::string* note) {
  const std::string what = std::to_string(points) + " points of scene " + name;
  if (!use_gpu_ || !gpu_) {
    *error = what + ": the GPU makes them, and GPU mode is off";
    return false;
  }
  std::string err;
  if (!cpu_->set_cloud(subset, &err)) {
    *error = "CPU renderer refused the scene's subset on the host: " + err;
    if (cloud_) refresh_cpu(&err);
    return false;
  }
  const PointCloud* old_cloud = cloud_;
  const DeviceScene old_scene = device_scene_;
  {
    std::lock_guard<std::mutex> lock(gpu_mutex_);
    cloud_ = &subset;
    device_scene_ = DeviceScene{name, points};
  }
  cpu_stale_ = false;
  Stopwatch sw;
  std::string fallback;
  if (upload_gpu(&err, &fallback, /*compact_fallback=*/true)) {
    char made[160];
    std::snprintf(made, sizeof made, "; made on the GPU in %.2f s (%s of device memory)",
                  sw.ms() * 1e-3, human_size(double(gpu_->r->memory_bytes())).c_str());
    *note = made + fallback;
    return true;
  }
  *error = "the GPU cannot make " + what + ": " + err + "; the cloud on screen stays";
  {
    std::lock_guard<std::mutex> lock(gpu_mutex_);
    cloud_ = old_cloud;
    device_scene_ = old_scene;
  }
  std::string why;
  if (cloud_ && !refresh_cpu(&why)) status_("CPU renderer refused the cloud: " + why, true);
  if (cloud_ && !upload_gpu(&why, &fallback, /*compact_fallback=*/true)) drop_gpu(why);
  return false;
}

bool RenderBackend::update_colors(std::string* error, bool gpu_current) {
  if (!cloud_) return true;
  std::string err;
  if (!cpu_->update_colors(*cloud_, &err) && !refresh_cpu(&err)) {
    *error = "CPU renderer refused the new colors: " + err;
    return false;
  }
  if (gpu_ && !gpu_current && device_scene_.points) {
    *error = "GPU: a scene made on the GPU keeps its own colors";
    return false;
  }
  if (gpu_ && !gpu_current && !gpu_->r->update_colors(*cloud_, &err)) {
    *error = "GPU: " + err + "; uploading the cloud again";
    std::string why, note;
    if (!upload_gpu(&why, &note, /*compact_fallback=*/true)) drop_gpu(why);
    return false;
  }
  return true;
}

bool RenderBackend::stage_colors(const PointCloud& cloud, const uint32_t* colors,
                                 std::string* error) {
  std::lock_guard<std::mutex> lock(gpu_mutex_);
  if (gpu_ && &cloud == cloud_ && !device_scene_.points)
    return gpu_->r->stage_colors(cloud, colors, error);
  if (error) *error = "no GPU renderer";
  return false;
}

bool RenderBackend::stage_recipe(const PointCloud& cloud, const ColorRecipe& recipe,
                                 std::string* error) {
  std::lock_guard<std::mutex> lock(gpu_mutex_);
  if (gpu_ && &cloud == cloud_ && !device_scene_.points)
    return gpu_->r->stage_recipe(cloud, recipe, error);
  if (error) *error = "no GPU renderer";
  return false;
}

bool RenderBackend::show_staged_recipe() {
  return gpu_ && cloud_ && gpu_->r->show_staged_recipe(*cloud_);
}

bool RenderBackend::pick_window(const PointCloud& cloud, const Camera& camera,
                                const RenderSettings& settings, PickWindow* window,
                                std::string* error) {
  std::lock_guard<std::mutex> lock(gpu_mutex_);
  if (gpu_ && &cloud == cloud_ && !device_scene_.points)
    return gpu_->r->pick_window(camera, settings, window, error);
  if (error) error->clear();
  return false;
}

bool RenderBackend::switch_mode(bool want_gpu) {
  if (!want_gpu) {
    std::string err;
    if (cpu_stale_ && !refresh_cpu(&err)) {
      status_("CPU renderer refused the cloud: " + err + "; staying on the GPU", true);
      return false;
    }
    release_interop();
    use_gpu_ = false;
    std::string subset;
    if (device_scene_.points && cloud_)
      subset = ": " + std::to_string(cloud_->size()) + " of the " +
               std::to_string(device_scene_.points) +
               " points the GPU made, an even subset (the host holds no more)";
    status_("renderer: CPU (" + std::to_string(cpu_->threads()) + " threads)" + subset, false);
    return true;
  }
  std::string why, note;
  if (!gpu_) {
    if (!gpu_unavailable().empty()) {
      status_("GPU mode unavailable: " + gpu_why_ + "; staying on the CPU", true);
      return false;
    }
    auto made = make_gpu_renderer(opt_, &why);
    if (!made) {
      gpu_why_ = why;
      status_("GPU mode unavailable: " + why + "; staying on the CPU", true);
      return false;
    }
    {
      std::lock_guard<std::mutex> lock(gpu_mutex_);
      gpu_ = std::make_unique<Gpu>();
      gpu_->r = std::move(made);
      gpu_->r->set_options(effective_options());
    }
    if (cloud_ && !upload_gpu(&why, &note, /*compact_fallback=*/true)) {
      std::lock_guard<std::mutex> lock(gpu_mutex_);
      gpu_.reset();
      status_("GPU renderer refused the cloud (" + why + "); staying on the CPU", true);
      return false;
    }
  }
  use_gpu_ = true;
  gpu_->interop = false;
  update_interop(true);
  status_(
      "renderer: GPU " + gpu_->r->device_name() +
          (gpu_->interop ? " (CUDA-GL interop)" : " (render + upload: " + gpu_->interop_why + ")") +
          note,
      false);
  return true;
}

void RenderBackend::set_culling(bool on) {
  options_.culling = on;
  apply_options();
}

void RenderBackend::set_occlusion(Toggle mode) {
  options_.occlusion = mode;
  apply_options();
}

void RenderBackend::set_compact(bool on) {
  if (on == options_.compact) return;
  options_.compact = on;
  reupload(on ? "compact" : "full-precision");
}

void RenderBackend::set_sort(bool on) {
  const Toggle sort = on ? Toggle::kOn : Toggle::kOff;
  if (sort == options_.sort) return;
  options_.sort = sort;
  reupload(nullptr);
}

// `what`: the positions asked for by set_compact(), or null for set_sort().
void RenderBackend::reupload(const char* what) {
  apply_options();
  cpu_stale_ = true;
  bool said = false;
  if (gpu_ && cloud_) {
    reupload_gpu(what);
    said = true;
  }
  if (!said && what) status_(std::string("cloud re-encoded with ") + what + " positions", false);
  std::string why;
  if (!use_gpu_ && cpu_stale_ && !refresh_cpu(&why))
    status_("CPU renderer refused the cloud: " + why, true);
}

void RenderBackend::reupload_gpu(const char* what) {
  std::string why, note;
  Stopwatch sw;
  if (upload_gpu(&why, &note, /*compact_fallback=*/what == nullptr || !options_.compact)) {
    char msg[160];
    if (what)
      std::snprintf(msg, sizeof msg, "GPU cloud re-uploaded with %s positions in %.2f s",
                    options_.compact ? "compact" : "full-precision", sw.ms() * 1e-3);
    else
      std::snprintf(msg, sizeof msg, "GPU cloud re-uploaded %s in %.2f s",
                    gpu_->r->cloud_sorted() ? "in Morton order" : "in its own order",
                    sw.ms() * 1e-3);
    status_(msg + note, false);
    return;
  }
  // Refused (no room): the form it had, or the CPU. (Compact positions were just refused when
  // they were asked for: no fallback to them.)
  if (what)
    options_.compact = !options_.compact;
  else
    options_.sort = Toggle::kOff;
  apply_options();
  std::string again;
  if (!upload_gpu(&again, &note, /*compact_fallback=*/what == nullptr || options_.compact)) {
    drop_gpu(again);
  } else if (what) {
    status_(std::string(what) + " positions refused (" + why + "); the GPU keeps " +
                (options_.compact ? "compact" : "full-precision") + " ones" + note,
            true);
  } else {
    status_("spatial sort refused (" + why + "); the cloud stays in its own order" + note, true);
  }
}

bool RenderBackend::upload_gpu(std::string* why, std::string* note, bool compact_fallback) {
  std::lock_guard<std::mutex> lock(gpu_mutex_);  // staging of the last cloud's colors ends first
  if (gpu_take_cloud(why)) return true;
  if (options_.compact || !compact_fallback) return false;
  // Full precision did not fit (or was refused): compact positions take 7 bytes a point, not 15.
  if (streaming_) return false;  // a pool is rewritten in place: full precision only
  options_.compact = true;
  apply_options();
  std::string again;
  if (gpu_take_cloud(&again)) {
    *note = "; full-precision positions did not fit on the GPU (" + *why +
            "), so it draws compact ones (7 bytes a point)";
    cpu_stale_ = true;
    return true;
  }
  options_.compact = false;
  apply_options();
  return false;
}

bool RenderBackend::gpu_take_cloud(std::string* why) {
  if (!device_scene_.points) return gpu_->r->set_cloud(*cloud_, why);
  Bounds bounds;
  return gpu_->r->generate_scene(device_scene_.name, device_scene_.points, 1, &bounds, why);
}

void RenderBackend::drop_gpu(const std::string& why) {
  status_("GPU renderer refused the cloud (" + why + "); drawing on the CPU", true);
  release_gpu();
}

void RenderBackend::release_gpu() {
  release_interop();
  {
    std::lock_guard<std::mutex> lock(gpu_mutex_);
    gpu_.reset();
  }
  use_gpu_ = false;
  std::string err;
  if (cpu_stale_ && !refresh_cpu(&err)) status_("CPU renderer refused the cloud: " + err, true);
}

void RenderBackend::release_interop() {
  if (gpu_ && gpu_->r->gl_buffer_registered()) gpu_->r->unregister_gl_buffer();
}

void RenderBackend::update_interop(bool size_changed) {
  if (!use_gpu_ || !gpu_ || !display_ || display_->empty()) return;
  if (!size_changed && (gpu_->r->gl_buffer_registered() || !gpu_->interop_why.empty())) return;
  std::string why;
  if (gpu_->r->register_gl_buffer(display_->pbo(), display_->width(), display_->height(), &why)) {
    gpu_->interop = true;
    gpu_->interop_why.clear();
  } else {
    gpu_->interop = false;
    gpu_->interop_why = why.empty() ? "interop refused" : why;
  }
}

bool RenderBackend::draw(const Camera& camera, const RenderSettings& rs, Image& image,
                         FrameStats& st, double& render_ms, double& upload_ms, std::string* error) {
  Stopwatch sw;
  if (use_gpu_ && gpu_) {
    Gpu& g = *gpu_;
    // GPU mode chosen while minimized: register now that there is a buffer to register.
    if (!g.interop && g.interop_why.empty()) update_interop(true);
    bool ok;
    std::string err;
    if (g.interop) {
      ok = g.r->render_to_gl(camera, rs, st, &err);
      render_ms = sw.ms();
      sw.reset();
      if (ok) display_->upload_from_pbo();
    } else {
      ok = g.r->render(camera, rs, image, st, &err);
      render_ms = sw.ms();
      sw.reset();
      if (ok) ok = display_->upload(image.rgba.data(), image.width, image.height, &err);
    }
    upload_ms = sw.ms();
    if (ok) return true;
    release_interop();
    use_gpu_ = false;
    g.interop = false;
    *error = "GPU frame failed (" + err + "); switched to the CPU renderer";
    if (cpu_stale_) refresh_cpu(&err);
    return false;
  }
  std::string err;
  if (!cpu_->render(camera, rs, image, st, &err)) {
    *error = "CPU frame failed: " + err;
    return false;
  }
  render_ms = sw.ms();
  sw.reset();
  if (!display_->upload(image.rgba.data(), image.width, image.height, error)) return false;
  upload_ms = sw.ms();
  return true;
}

bool RenderBackend::render_image(const Camera& camera, const RenderSettings& rs, Image& image,
                                 std::string* error) {
  FrameStats st;
  std::string err;
  if (use_gpu_ && gpu_) {
    if (gpu_->r->render(camera, rs, image, st, &err)) return true;
    *error = "GPU frame failed: " + err;
    return false;
  }
  if (!cpu_->render(camera, rs, image, st, &err)) {
    *error = "CPU frame failed: " + err;
    return false;
  }
  return true;
}

Renderer* RenderBackend::renderer(std::string* error) {
  if (use_gpu_ && gpu_) return gpu_->r.get();
  std::string err;
  if (cpu_stale_ && !refresh_cpu(&err)) {
    if (error) *error = "CPU renderer refused the cloud: " + err;
    return nullptr;
  }
  return cpu_.get();
}

std::string RenderBackend::display_path() const {
  if (!use_gpu_) return "CPU render, PBO upload";
  if (gpu_->interop) return "GPU render straight into the PBO (CUDA-GL interop)";
  return "GPU render, host copy, PBO upload (interop off: " + gpu_->interop_why + ")";
}

const std::string& RenderBackend::gpu_unavailable() {
  if (!gpu_checked_) {
    gpu_checked_ = true;
    std::string why;
    if (!gpu_renderer_available(&why)) gpu_why_ = why;
  }
  return gpu_why_;
}

std::string RenderBackend::device_name() const {
  if (use_gpu_ && gpu_) return gpu_->r->device_name();
  return "";
}

bool RenderBackend::compact_active() const {
  if (use_gpu_ && gpu_) return gpu_->r->compact_active();
  return !cpu_stale_ && cpu_->compact_active();
}

bool RenderBackend::gpu_sorted() const {
  if (gpu_) return gpu_->r->cloud_sorted();
  return false;
}

bool RenderBackend::stage_timing() const {
  if (gpu_) return gpu_->r->stage_timing();
  return false;
}

void RenderBackend::set_stage_timing(bool on) {
  if (!gpu_) return;
  gpu_->r->set_stage_timing(on);
}

std::string RenderBackend::batch_note() const {
  char b[160] = "";
  GpuRenderer::BatchCounts c;
  if (use_gpu_ && gpu_ && gpu_->r->last_batch_counts(&c, nullptr))
    std::snprintf(b, sizeof b, "batches: %llu drawn, %llu hidden, %llu out of view",
                  (unsigned long long)(c.first + c.second), (unsigned long long)c.occluded,
                  (unsigned long long)c.culled);
  if (!use_gpu_ && cpu_->occlusion_ran())
    std::snprintf(b, sizeof b, "batches: %llu hidden, %llu out of view",
                  (unsigned long long)cpu_->occluded_batches(),
                  (unsigned long long)cpu_->culled_batches());
  return b;
}

size_t RenderBackend::device_bytes() const {
  if (gpu_) return gpu_->r->memory_bytes();
  return 0;
}

}  // namespace pr
