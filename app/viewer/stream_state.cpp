// Streamed surveys in the viewer: opening one, installing it as the cloud on screen, and the
// update of every frame.
#include "viewer/stream_state.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "progress_bar.h"
#include "startup.h"
#include "streaming.h"
#include "viewer/panel_widgets.h"

namespace pr {

bool StreamState::start(const std::vector<std::string>& inputs, const StreamOptions& o) {
  if (opener_.joinable()) return false;
  inputs_ = inputs;
  label_ = inputs.size() == 1 ? inputs[0] : std::to_string(inputs.size()) + " inputs";
  done_ = false;
  opened_.reset();
  error_.clear();
  opener_ = std::thread([this, inputs, o] {
    auto made = std::make_shared<StreamingScene>(o);
    std::string why;
    if (made->open(inputs, &why))
      opened_ = std::move(made);
    else
      error_ = why;
    done_ = true;
  });
  return true;
}

bool StreamState::take(std::shared_ptr<StreamingScene>& out, std::string* error) {
  if (!opener_.joinable() || !done_.load()) return false;
  opener_.join();
  out = std::move(opened_);
  *error = std::move(error_);
  return true;
}

StreamFigures stream_figures(const StreamStats& s, const StreamOptions& options) {
  auto line = [](const char* format, auto... values) {
    char b[160];
    std::snprintf(b, sizeof b, format, values...);
    return std::string(b);
  };
  using ull = unsigned long long;
  StreamFigures f;
  f.counts.push_back(line("tiles: %llu, %llu open", ull(s.tiles), ull(s.tiles_open)));
  // What is drawn is the pool: the view's nodes that arrived, and nodes of earlier views, kept
  // until their room is needed. So it may hold more than the view selects (never more than the
  // pool's room, a little above the budget); each figure stands on its own, none "of" another.
  f.counts.push_back(line("drawn: %s points, %llu nodes",
                          human_points(double(s.points_drawn)).c_str(), ull(s.nodes_drawn)));
  f.counts.push_back(line("the view selects %s points, %llu nodes",
                          human_points(double(s.points_selected)).c_str(), ull(s.nodes_selected)));
  f.counts.push_back("budget " + human_points(double(options.point_budget)) + " points");
  if (s.points_drawn > s.points_selected)
    f.counts.push_back("(nodes of earlier views stay drawn until their room is needed)");
  f.counts.push_back(line("cached: %llu nodes", ull(s.nodes_cached)));
  f.counts.push_back(
      line("read: %s, %.1f MB/s", human_size(double(s.bytes_read)).c_str(), s.mb_per_s));
  f.progress = s.converged ? "view complete (budget and target error met)"
                           : line("loading: %llu reads under way", ull(s.nodes_in_flight));
  return f;
}

StreamState::~StreamState() {
  if (opener_.joinable()) opener_.join();
}

void StreamState::open(const std::vector<std::string>& inputs, StatusLine& status) {
  if (!start(inputs, options)) {
    status.set("still opening " + label() + "; wait for it first", true);
    return;
  }
  status.set("opening " + label() + " (streamed) ...", false);
}

bool StreamState::install(std::shared_ptr<StreamingScene> opened, RenderBackend& backend,
                          StatusLine& status, std::string* note, bool* refused) {
  std::string err;
  backend.set_streaming(true);
  PointCloud& pool = opened->pool();
  if (!backend.set_cloud(pool, &err, note, refused)) {
    backend.set_streaming(scene != nullptr);
    status.set(err, true);
    return false;
  }
  opened->pool_reallocated();  // the renderers have this pool
  scene = std::move(opened);
  scene_inputs_ = inputs_;
  return true;
}

void StreamState::say_installed(const std::string& note, bool refused, StatusLine& status) const {
  // A survey without points (COPC files of 0 points) streams nothing: as files read whole say.
  if (scene->info().points == 0) {
    status.set(label() + " holds no points: nothing to show" + note, refused);
    return;
  }
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %llu points in %llu tile(s), streamed%s", label().c_str(),
                (unsigned long long)scene->info().points, (unsigned long long)scene->stats().tiles,
                note.c_str());
  status.set(msg, refused);
}

namespace {

/// The colors of `settings` (a fixed range: the one shown) for the pool's points in
/// [first, first + count): the range's attributes copied out, colored, copied back.
void color_range_of_pool(PointCloud& pool, const ColorSettings& settings, uint64_t first,
                         uint64_t count) {
  PointCloud part;
  part.origin = pool.origin;
  auto slice = [&](const auto& from, auto& to) {
    if (!from.empty()) to.assign(from.begin() + first, from.begin() + first + count);
  };
  slice(pool.positions, part.positions);
  slice(pool.source_colors(), part.colors);
  slice(pool.intensity, part.intensity);
  slice(pool.classification, part.classification);
  slice(pool.returns, part.returns);
  slice(pool.point_source, part.point_source);
  for (const ScalarField& f : pool.fields) {
    part.fields.push_back(ScalarField{f.name, {}});
    slice(f.values, part.fields.back().values);
  }
  PodVector<uint32_t> out;
  if (!colorize(part, settings, out, nullptr, nullptr)) return;
  std::copy(out.begin(), out.end(), pool.colors.begin() + first);
}

/// The pool's points in `ranges` colored with `colors` (a fixed range), and the ranges to the
/// renderers.
void recolor_ranges(PointCloud& pool, const ColorSettings& colors,
                    const std::vector<PoolRange>& ranges, RenderBackend& backend,
                    StatusLine& status) {
  for (const PoolRange& r : ranges)
    if (r.count) color_range_of_pool(pool, colors, r.first, r.count);
  std::string err;
  if (!backend.update_points(ranges, &err)) status.set(err, true);
}

}  // namespace

bool StreamState::update(const LodView& view, const ColorSettings& colors, RenderBackend& backend,
                         StatusLine& status) {
  if (options_changed) {
    scene->set_options(options);
    options_changed = false;
  }
  const std::vector<PoolRange> ranges = scene->update(view);
  // The pool's own colors are the file's (no array of display colors): drawn as they arrive.
  const bool file_colors = scene->pool().file_colors.empty();
  std::string err, note;
  bool refused = false;
  if (scene->pool_reallocated()) {
    if (!backend.set_cloud(scene->pool(), &err, &note, &refused)) status.set(err, true);
  } else if (!ranges.empty() && file_colors && !backend.update_points(ranges, &err)) {
    status.set(err, true);
  }
  if (!ranges.empty() && !file_colors)
    recolor_ranges(scene->pool(), colors, ranges, backend, status);
  stats = scene->stats();
  for (const std::string& m : scene->take_messages()) status.set(m, true);
  return !ranges.empty();
}

namespace {

/// The budget, the target error and the cache of a streamed survey.
void stream_settings(StreamState& st) {
  StreamOptions& o = st.options;
  const uint64_t bmin = 100'000, bmax = 4'000'000'000;
  ImGui::SliderScalar("point budget", ImGuiDataType_U64, &o.point_budget, &bmin, &bmax, "%llu",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) st.options_changed = true;
  tooltip(
      "Points the view selects at most: the nodes nearest the camera first. What is drawn\n"
      "is the pool, which grows with the nodes that arrive up to this many points and a\n"
      "little more (16 bytes each on the GPU): nodes of earlier views stay in it until their\n"
      "room is needed.");
  float sse = float(o.sse_px);
  if (ImGui::SliderFloat("target error", &sse, 0.0f, 20.0f, "%.1f px")) {
    o.sse_px = sse;
    st.options_changed = true;
  }
  tooltip(
      "A node is refined while its points lie further apart on screen than this;\n"
      "0 refines every node in view (within the budget).");
  uint64_t mib = o.cache_bytes >> 20;
  const uint64_t cmin = 64, cmax = uint64_t{1} << 20;
  ImGui::SliderScalar("cache", ImGuiDataType_U64, &mib, &cmin, &cmax, "%llu MiB",
                      ImGuiSliderFlags_Logarithmic);
  if (ImGui::IsItemDeactivatedAfterEdit()) {
    o.cache_bytes = mib << 20;
    st.options_changed = true;
  }
  tooltip("Host memory for decoded nodes: turning back to a place seen costs no reading.");
}

/// What streaming is doing: nodes, points, reading rate, cache fill, progress.
void draw_stream_figures(const StreamState& st) {
  const StreamStats& s = st.stats;
  const StreamFigures f = stream_figures(s, st.options);
  for (const std::string& line : f.counts) ImGui::TextWrapped("%s", line.c_str());
  const double fill =
      st.options.cache_bytes ? double(s.cache_bytes) / double(st.options.cache_bytes) : 0.0;
  const std::string cache = "cache " + human_size(double(s.cache_bytes)) + " of " +
                            human_size(double(st.options.cache_bytes));
  ImGui::ProgressBar(float(std::min(fill, 1.0)), ImVec2(-1, 0), cache.c_str());
  if (s.converged)
    ImGui::TextDisabled("%s", f.progress.c_str());
  else
    ImGui::TextUnformatted(f.progress.c_str());
  if (s.nodes_failed)
    ImGui::TextColored(ImVec4(1.0f, 0.6f, 0.3f, 1.0f), "%llu nodes skipped (unreadable)",
                       (unsigned long long)s.nodes_failed);
}

}  // namespace

void StreamState::draw_section() {
  if (!scene && !opening()) return;  // only for streamed surveys
  if (!ImGui::CollapsingHeader("Streaming", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!scene) {
    ImGui::TextDisabled("opening %s ...", label().c_str());
    return;
  }
  stream_settings(*this);
  draw_stream_figures(*this);
}

}  // namespace pr
