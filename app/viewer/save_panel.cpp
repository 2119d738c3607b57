// Saving the cloud on screen: the job on its own thread, the Save section of the panel, and the
// status line a finished save leaves.
#include "viewer/save_panel.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <thread>

#include "engine/frame_stats.h"
#include "options.h"
#include "progress_bar.h"

namespace pr {

namespace fs = std::filesystem;

SaveJob::~SaveJob() {
  cancel();
  if (thread_.joinable()) thread_.join();
}

bool SaveJob::start(std::shared_ptr<const PointCloud> cloud, std::string path,
                    const ConvertOptions& options) {
  if (busy() || !cloud) return false;
  done_ = false;
  progress_ = std::make_unique<ConvertProgress>();
  cloud_ = std::move(cloud);
  path_ = std::move(path);
  result_ = Result{};
  thread_ = std::thread([this, options] {
    Stopwatch sw;
    Result r;
    r.path = path_;
    try {
      r.ok = save_point_cloud(*cloud_, path_, options, progress_.get(), &r.written, &r.error);
    } catch (const std::bad_alloc&) {
      r.error = path_ + ": out of memory while saving";
    } catch (const std::exception& e) {
      r.error = path_ + ": " + e.what();
    }
    r.cancelled = !r.ok && progress_->cancel.load();
    r.seconds = sw.ms() * 1e-3;
    result_ = std::move(r);
    done_ = true;
  });
  return true;
}

double SaveJob::fraction() const {
  if (!busy() || !progress_) return 0.0;
  const uint64_t total = progress_->total.load();
  return total ? std::min(1.0, double(progress_->done.load()) / double(total)) : 0.0;
}

std::string SaveJob::label() const {
  if (!busy() || !progress_) return "";
  std::string s = convert_stage_name(progress_->stage.load());
  // Appended piece by piece: GCC 12 warns (-Wrestrict, wrongly) on " " + std::string here.
  s += ' ';
  s += human_points(double(progress_->done.load()));
  if (const uint64_t total = progress_->total.load()) {
    s += " / ";
    s += human_points(double(total));
  }
  return s + " points";
}

void SaveJob::cancel() {
  if (progress_) progress_->cancel = true;
}

bool SaveJob::take(Result& out) {
  if (!thread_.joinable() || !done_.load()) return false;
  thread_.join();
  out = std::move(result_);
  result_ = Result{};
  cloud_.reset();
  return true;
}

std::string suggested_save_path(const std::string& first_file, const std::string& scene,
                                const std::string& dir) {
  if (first_file.empty())
    return (fs::path(dir) / ((scene.empty() ? "cloud" : scene) + ".copc.laz")).string();
  const fs::path in(first_file);
  std::string stem = in.filename().string();
  // x.copc.laz's stem is x: the suffix names the format, not the cloud.
  if (convert_format(stem) == "COPC")
    stem.resize(stem.size() - std::string(".copc.laz").size());
  else
    stem = fs::path(stem).stem().string();
  fs::path out = in.parent_path() / (stem + ".copc.laz");
  if (out == in) out = in.parent_path() / (stem + "-copy.copc.laz");
  return out.string();
}

std::string save_message(const SaveJob::Result& r) {
  if (r.cancelled) return "save cancelled: " + r.path + " not written";
  if (!r.ok) return "save: " + r.error;
  char s[160];
  std::snprintf(s, sizeof s, ": %llu points, %s in %.2f s", (unsigned long long)r.written.points,
                human_size(double(r.written.bytes)).c_str(), r.seconds);
  return "saved " + r.path + s;
}

// ---------------------------------------------------------------------------------------------
// The Save section

std::string SaveState::unavailable(const CloudState& cloud, bool streaming) const {
  if (streaming)
    return "a streamed survey is not held whole in memory: convert its files with "
           "pointraster --convert OUT FILE...";
  if (!cloud.drawable()) return "no cloud on screen";
  if (cloud.job.busy()) return "a cloud is loading: save it once it is on screen";
  if (job.busy()) return "a save is running";
  return "";
}

bool SaveState::start(const std::string& out, const CloudState& cloud, bool streaming,
                      StatusLine& status) {
  if (const std::string why = unavailable(cloud, streaming); !why.empty()) {
    status.set("save: " + why, true);
    return false;
  }
  if (convert_format(out).empty()) {
    status.set("save: '" + out +
                   "' ends in none of the suffixes that pick a format: .copc.laz (COPC), .laz, "
                   ".las",
               true);
    return false;
  }
  job.start(cloud.points, out);
  status.set("saving " + out + " ...", false);
  return true;
}

void SaveState::update(StatusLine& status) {
  SaveJob::Result r;
  if (job.take(r)) status.set(save_message(r), !r.ok && !r.cancelled);
}

void SaveState::cancel_and_wait(StatusLine& status) {
  if (!job.busy()) return;
  job.cancel();
  SaveJob::Result r;
  while (!job.take(r)) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  status.set(r.cancelled ? "save cancelled: the viewer closed; " + r.path + " not written"
                         : save_message(r),
             !r.ok);
}

void SaveState::draw_section(const CloudState& cloud, bool streaming, const std::string& dir,
                             float ui_scale, StatusLine& status) {
  if (!ImGui::CollapsingHeader("Save")) return;
  const PointCloud* shown = cloud.points.get();
  if (shown && shown != suggested_for && !job.busy()) {
    suggested_for = shown;
    const std::string p =
        suggested_save_path(cloud.files.empty() ? "" : cloud.files[0].file, cloud.scene, dir);
    std::snprintf(path, sizeof path, "%s", p.c_str());
  }
  ImGui::InputText("save path", path, sizeof path);
  const std::string why = unavailable(cloud, streaming);
  const std::string format = convert_format(path);
  std::error_code ec;
  const bool exists = path[0] && fs::exists(path, ec);
  // The format the suffix picks, in the button's words; "###save" keeps its ImGui id.
  const std::string button = "Save as " + (format.empty() ? std::string("COPC") : format) +
                             (exists ? "... (replace)" : "...") + "###save";
  ImGui::BeginDisabled(!why.empty());
  if (ImGui::Button(button.c_str())) start(path, cloud, streaming, status);
  ImGui::EndDisabled();
  if (!why.empty() && ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", why.c_str());
  if (job.busy()) {
    const std::string label = job.label();
    ImGui::ProgressBar(float(job.fraction()), ImVec2(-80 * ui_scale, 0), label.c_str());
    ImGui::SameLine();
    if (ImGui::Button("Cancel##save")) job.cancel();
  } else if (!why.empty()) {
    ImGui::TextWrapped("%s", why.c_str());
  } else {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextWrapped(
        "COPC (.copc.laz), LAZ (.laz) or LAS (.las) by the suffix: the points in memory "
        "(classes hidden in Color are left out).");
    ImGui::PopStyleColor();
  }
}

}  // namespace pr
