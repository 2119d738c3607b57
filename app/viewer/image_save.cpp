// The Image section: a tiled image of the view drawn between the window's frames and written to a
// PNG on the writer's thread (image_save.h).
#include "viewer/image_save.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>

#include "engine/frame_stats.h"
#include "viewer/panel_widgets.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

/// The most pixels a tile drawn between two frames has: 16 M (a 4096 x 4096 tile; at 1e7 points
/// the CPU renderer draws it in a few hundred milliseconds on two cores), unless memory allows
/// less.
constexpr uint64_t kWindowTilePixels = uint64_t{1} << 24;

/// Bands drawn ahead of the writer: the tiles wait (the window keeps drawing its frames) while
/// two are queued, so that at most two bands of rows are held.
constexpr size_t kQueuedBands = 2;

/// Rows the writer compresses between two looks at Cancel.
constexpr int kRowsAtOnce = 64;

double now_ms() {
  using namespace std::chrono;
  return duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
}

}  // namespace

ImageSaveJob::~ImageSaveJob() {
  cancel();
  stop_writer();
}

void ImageSaveJob::stop_writer() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    last_band_ = true;
  }
  wake_.notify_all();
  if (writer_.joinable()) writer_.join();
}

bool ImageSaveJob::start(const Camera& camera, const RenderSettings& settings, const TilePlan& plan,
                         const std::string& path, const void* cloud, std::string* error) {
  if (busy()) {
    *error = "an image is being saved";
    return false;
  }
  stop_writer();  // the last save's writer, if its result was not taken
  if (!png_.open(path, settings.width, settings.height, error)) return false;
  tiled_ = std::make_unique<TiledRender>(camera, settings, plan);
  cloud_ = cloud;
  queue_.clear();
  last_band_ = false;
  cancel_ = false;
  written_ = false;
  rows_written_ = 0;
  draw_error_.clear();
  write_error_.clear();
  write_ok_ = false;
  result_ = Result{};
  result_.path = path;
  result_.width = settings.width;
  result_.height = settings.height;
  result_.tiles = plan.count();
  started_ms_ = now_ms();
  writer_ = std::thread([this] { write_bands(); });
  return true;
}

void ImageSaveJob::write_bands() {
  std::string why;
  bool ok = true;
  for (;;) {
    Band band;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [&] { return !queue_.empty() || last_band_ || cancel_; });
      if (cancel_ || queue_.empty()) break;
      band = std::move(queue_.front());
      queue_.pop_front();
    }
    const size_t width = size_t(result_.width);
    for (int y = 0; ok && y < band.rows && !cancel_; y += kRowsAtOnce) {
      const int rows = std::min(kRowsAtOnce, band.rows - y);
      ok = png_.write_rows(band.rgba.data() + size_t(y) * width, rows, &why);
      if (ok) rows_written_ += rows;
    }
    if (!ok || cancel_) break;
  }
  if (cancel_ || !ok)
    png_.abort();  // the unfinished file is removed
  else
    ok = png_.finish(&why);
  write_ok_ = ok && !cancel_;
  write_error_ = why;
  written_ = true;
}

void ImageSaveJob::step(Renderer& renderer, double budget_ms) {
  if (!tiled_ || tiled_->done() || cancel_) return;
  const RowSink sink = [this](int, int rows, const uint32_t* rgba, const float*, std::string*) {
    Band band;
    band.rows = rows;
    band.rgba.assign(rgba, rgba + size_t(rows) * size_t(result_.width));
    {
      std::lock_guard<std::mutex> lock(mutex_);
      queue_.push_back(std::move(band));
    }
    wake_.notify_all();
    return true;
  };
  const double t0 = now_ms();
  while (!tiled_->done() && !written_ && now_ms() - t0 < budget_ms) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (queue_.size() >= kQueuedBands) break;
    }
    if (!tiled_->step(renderer, sink, &draw_error_)) break;
  }
  if (tiled_->done()) {  // every band queued (or a tile failed): the writer ends the file
    if (!draw_error_.empty()) cancel_ = true;
    std::lock_guard<std::mutex> lock(mutex_);
    last_band_ = true;
  }
  wake_.notify_all();
}

double ImageSaveJob::fraction() const {
  if (!tiled_) return 0.0;
  const double rows = result_.height > 0 ? double(rows_written_) / double(result_.height) : 1.0;
  return 0.5 * tiled_->fraction() + 0.5 * rows;
}

std::string ImageSaveJob::label() const {
  if (!tiled_) return "";
  char b[96];
  std::snprintf(b, sizeof b, "tile %d of %d, %d rows written", tiled_->tiles_done(),
                tiled_->plan().count(), rows_written_.load());
  return b;
}

void ImageSaveJob::cancel() {
  if (!tiled_) return;
  cancel_ = true;
  wake_.notify_all();
}

bool ImageSaveJob::take(Result& out) {
  if (!tiled_ || !written_) return false;
  stop_writer();
  out = result_;
  out.seconds = (now_ms() - started_ms_) * 1e-3;
  out.ok = write_ok_;
  out.cancelled = cancel_ && draw_error_.empty() && !write_ok_;
  out.error = !draw_error_.empty() ? draw_error_ : write_error_;
  tiled_.reset();
  cloud_ = nullptr;
  return true;
}

std::string image_save_message(const ImageSaveJob::Result& r) {
  char b[128];
  if (r.ok) {
    std::snprintf(b, sizeof b, " (%d x %d, %d tile%s) in %.1f s", r.width, r.height, r.tiles,
                  r.tiles == 1 ? "" : "s", r.seconds);
    return "saved image " + r.path + b;
  }
  if (r.cancelled) return "image save cancelled: " + r.path + " not written";
  return "image save failed: " + r.error;
}

// ---------------------------------------------------------------------------------------------
// The section

std::string ImageSaveState::unavailable(bool drawable) const {
  if (job.busy()) return "an image is being saved";
  if (!drawable) return "no cloud on screen";
  return "";
}

bool ImageSaveState::start(const std::string& out, Renderer& renderer, const RenderOptions& options,
                           const Camera& camera, const RenderSettings& settings, const void* cloud,
                           bool drawable, StatusLine& status) {
  if (const std::string why = unavailable(drawable); !why.empty()) {
    status.set("save image: " + why, true);
    return false;
  }
  if (width < 1 || width > 16384 || height < 1 || height > 16384) {
    status.set("save image: the size must be 1 to 16384 pixels each way", true);
    return false;
  }
  RenderSettings s = settings;
  s.width = width;
  s.height = height;
  s.region = ImageRegion{};
  s.want_depth = false;
  TileBudget budget;
  budget.max_pixels = tile_pixels ? tile_pixels : kWindowTilePixels;
  const TilePlan plan = plan_tiles_for(s, tile_pixel_limit(renderer, s, budget));
  std::string why;
  if (!job.start(camera, s, plan, out, cloud, &why)) {
    status.set("save image: " + why, true);
    return false;
  }
  started_options = options;
  char what[96];
  std::snprintf(what, sizeof what, " (%d x %d, %d tile%s) ...", width, height, plan.count(),
                plan.count() == 1 ? "" : "s");
  status.set("saving image " + out + what, false);
  return true;
}

void ImageSaveState::update(Renderer* renderer, const RenderOptions& options, const void* cloud,
                            StatusLine& status) {
  if (job.busy() && stop_reason.empty()) {
    // The tiles drawn so far show another cloud or other positions: the image would not be one.
    if (!renderer)
      stop_reason = "no renderer can draw the cloud";
    else if (!job.draws(cloud))
      stop_reason = "the cloud on screen changed";
    else if (options.compact != started_options.compact)
      stop_reason = "the positions changed to or from compact ones";
    if (stop_reason.empty())
      job.step(*renderer, 40.0);
    else
      job.cancel();
  }
  ImageSaveJob::Result r;
  if (!job.take(r)) return;
  if (r.cancelled && !stop_reason.empty())
    status.set("image save cancelled (" + stop_reason + "): " + r.path + " not written", true);
  else
    status.set(image_save_message(r), !r.ok && !r.cancelled);
  stop_reason.clear();
}

bool ImageSaveState::draw_section(bool drawable, double view_aspect, float ui_scale) {
  if (!ImGui::CollapsingHeader("Image")) return false;
  ImGui::BeginDisabled(job.busy());
  ImGui::InputInt("width##image", &width, 256, 1024);
  width = std::clamp(width, 1, 16384);
  ImGui::Checkbox("the view's shape", &view_shape);
  tooltip("The height follows the width at the shape of the image on screen.");
  if (view_shape && view_aspect > 0.0)
    height = std::clamp(int(std::lround(double(width) / view_aspect)), 1, 16384);
  ImGui::BeginDisabled(view_shape);
  ImGui::InputInt("height##image", &height, 256, 1024);
  height = std::clamp(height, 1, 16384);
  ImGui::EndDisabled();
  ImGui::InputText("image path", path, sizeof path);
  ImGui::EndDisabled();
  const std::string why = unavailable(drawable);
  const std::string button =
      "Save image at " + std::to_string(width) + " x " + std::to_string(height) + "###saveimage";
  ImGui::BeginDisabled(!why.empty());
  const bool pressed = ImGui::Button(button.c_str());
  ImGui::EndDisabled();
  if (job.busy()) {
    const std::string label = job.label();
    ImGui::ProgressBar(float(job.fraction()), ImVec2(-80 * ui_scale, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel##image")) job.cancel();
    return false;
  }
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped(
      "The view drawn at any size up to 16384 x 16384 by the renderer in use, in tiles where "
      "one frame does not fit; the same pixels as one frame. The view pauses meanwhile.");
  ImGui::PopStyleColor();
  return pressed;
}

// ---------------------------------------------------------------------------------------------
// The viewer's part: the renderer in use, the view and the cloud on screen

bool Viewer::Impl::start_image_save() {
  std::string why;
  Renderer* r = cloud.drawable() ? backend->renderer(&why) : nullptr;
  if (!r) {
    set_status("save image: " + (why.empty() ? std::string("no cloud on screen") : why), true);
    return false;
  }
  return image_save.start(image_save.path, *r, backend->options(), view.camera, rs,
                          cloud.points.get(), cloud.drawable(), status);
}

void Viewer::Impl::update_image_save() {
  const bool drawing = image_save.job.busy() && cloud.drawable();
  Renderer* r = drawing ? backend->renderer(nullptr) : nullptr;
  image_save.update(r, backend->options(), drawing ? cloud.points.get() : nullptr, status);
}

}  // namespace pr
