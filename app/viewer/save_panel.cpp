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
#include "engine/io/corridor.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/survey.h"
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
  cloud_ = std::move(cloud);
  path_ = std::move(path);
  launch([this, options](ConvertProgress* p, ConvertResult* r, std::string* e) {
    return save_point_cloud(*cloud_, path_, options, p, r, e);
  });
  return true;
}

bool SaveJob::start_files(std::vector<std::string> inputs, std::string path,
                          const ConvertOptions& options) {
  if (busy() || inputs.empty()) return false;
  cloud_.reset();
  path_ = std::move(path);
  launch([this, inputs = std::move(inputs), options](ConvertProgress* p, ConvertResult* r,
                                                     std::string* e) {
    return convert_point_clouds(inputs, path_, options, p, r, e);
  });
  return true;
}

bool SaveJob::start_region(std::vector<std::string> inputs, std::string path,
                           const ConvertOptions& options, const HttpOptions& http) {
  if (busy() || inputs.empty()) return false;
  cloud_.reset();
  path_ = std::move(path);
  launch([this, inputs = std::move(inputs), options, http](ConvertProgress* p, ConvertResult* r,
                                                           std::string* e) {
    RegionRequest region;
    region.http = http;
    if (options.keep_box)
      region.meets = [&options](const Bounds& b) { return options.keep_box(b.min, b.max); };
    region.point_budget = kServerSavePoints;
    PointCloud cloud;
    CorridorStats st;
    if (!read_region(inputs, region, &cloud, &st, e, &p->cancel)) {
      if (p->cancel.load()) *e = path_ + ": cancelled";
      return false;
    }
    if (!save_point_cloud(cloud, path_, options, p, r, e)) return false;
    if (!st.complete)
      r->messages.push_back("the selection holds more than " + std::to_string(kServerSavePoints) +
                            " points: levels 0-" + std::to_string(st.depth) +
                            " of the survey written; narrow the clip");
    return true;
  });
  return true;
}

void SaveJob::launch(std::function<bool(ConvertProgress*, ConvertResult*, std::string*)> work) {
  done_ = false;
  progress_ = std::make_unique<ConvertProgress>();
  result_ = Result{};
  thread_ = std::thread([this, work = std::move(work)] {
    Stopwatch sw;
    Result r;
    r.path = path_;
    try {
      r.ok = work(progress_.get(), &r.written, &r.error);
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
  std::string skipped;
  if (r.written.points_skipped)
    skipped = " (" + human_points(double(r.written.points_skipped)) +
              " points in nodes outside the selection not read)";
  std::string note;
  if (!r.written.messages.empty()) note = "; " + r.written.messages.front();
  return "saved " + r.path + s + skipped + note;
}

// ---------------------------------------------------------------------------------------------
// The Save section

void ExportSelection::apply(ConvertOptions* options) const {
  if (!active()) return;
  const Clip none;
  options->keep = export_keep(clip ? *clip : none, polygon);
  options->keep_box = export_keep_box(clip ? *clip : none, polygon);
}

std::string SaveState::unavailable(const CloudState& cloud, const StreamState& stream) const {
  if (stream.opening()) return "a survey is opening: save it once it is on screen";
  if (stream.scene) return job.busy() ? "a save is running" : "";
  if (!cloud.drawable()) return "no cloud on screen";
  if (cloud.device_points)
    return "a scene made on the GPU is not saved: the host holds only a subset of its points";
  if (cloud.job.busy()) return "a cloud is loading: save it once it is on screen";
  if (job.busy()) return "a save is running";
  return "";
}

namespace {

/// The local files of a streamed survey's tiles, or `remote` set when a tile is a URL (the
/// converter reads files through memory maps: such a survey is read by nodes instead); false
/// with one line when the survey cannot be listed or holds no tiles.
bool survey_files(const std::vector<std::string>& inputs, const HttpOptions& http,
                  std::vector<std::string>* files, bool* remote, std::string* error) {
  std::vector<SurveyTile> tiles;
  if (!list_survey(inputs, tiles, error, &http)) return false;
  for (const SurveyTile& t : tiles) {
    *remote |= is_url(t.href);
    files->push_back(t.href);
  }
  if (files->empty()) *error = "the survey holds no tiles";
  return !files->empty();
}

}  // namespace

bool SaveState::start(const std::string& out, const CloudState& cloud, const StreamState& stream,
                      const ExportSelection& selection, StatusLine& status) {
  if (const std::string why = unavailable(cloud, stream); !why.empty()) {
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
  ConvertOptions options;
  if (only_selection) selection.apply(&options);
  if (stream.scene) {
    std::vector<std::string> files;
    bool remote = false;
    std::string error;
    if (!survey_files(stream.scene_inputs(), stream.options.http, &files, &remote, &error)) {
      status.set("save: " + error, true);
      return false;
    }
    if (remote)
      job.start_region(stream.scene_inputs(), out, options, stream.options.http);
    else
      job.start_files(std::move(files), out, options);
  } else {
    job.start(cloud.points, out, options);
  }
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

void SaveState::draw_section(const CloudState& cloud, const StreamState& stream,
                             const ExportSelection& selection, const std::string& dir,
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
  if (selection.active()) {
    ImGui::Checkbox("Only the points the clip shows", &only_selection);
    if (ImGui::IsItemHovered())
      ImGui::SetTooltip(
          "The points inside the clip's boxes and section and the polygon drawn in the Clip "
          "section; highlight boxes only tint, so their points are written with the rest.");
  }
  const std::string why = unavailable(cloud, stream);
  const std::string format = convert_format(path);
  std::error_code ec;
  const bool exists = path[0] && fs::exists(path, ec);
  // The format the suffix picks, in the button's words; "###save" keeps its ImGui id.
  const std::string button = "Save as " + (format.empty() ? std::string("COPC") : format) +
                             (exists ? "... (replace)" : "...") + "###save";
  ImGui::BeginDisabled(!why.empty());
  if (ImGui::Button(button.c_str())) start(path, cloud, stream, selection, status);
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
    ImGui::TextWrapped("%s", stream.scene
                                 ? "COPC (.copc.laz), LAZ (.laz) or LAS (.las) by the suffix: "
                                   "the survey at full detail (the nodes outside the selection "
                                   "are not read; from a server, at most 100M points)."
                                 : "COPC (.copc.laz), LAZ (.laz) or LAS (.las) by the suffix: "
                                   "the points in memory (classes hidden in Color are left "
                                   "out).");
    ImGui::PopStyleColor();
  }
}

}  // namespace pr
