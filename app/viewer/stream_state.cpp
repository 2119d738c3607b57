// Streamed surveys in the viewer: opening one, installing it as the cloud on screen, and the
// update of every frame.
#include "viewer/stream_state.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>

#include "engine/io/byte_source.h"
#include "progress_bar.h"
#include "startup.h"
#include "streaming.h"
#include "viewer/viewer_impl.h"

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
      error_ = open_failure(inputs, why);
    done_ = true;
  });
  return true;
}

std::string open_failure(const std::vector<std::string>& inputs, const std::string& error) {
  if (inputs.size() != 1) return error;
  const std::string& input = inputs[0];
  std::string suffix = std::filesystem::path(input).extension().string();
  std::transform(suffix.begin(), suffix.end(), suffix.begin(),
                 [](unsigned char c) { return char(std::tolower(c)); });
  std::error_code ec;
  if (suffix == ".vpc" || (!is_url(input) && std::filesystem::is_directory(input, ec)))
    return error;  // a survey of tiles
  std::string reason = error;
  for (const std::string& lead : {std::string("no tile opens: "), input + ": "})
    if (reason.rfind(lead, 0) == 0) reason.erase(0, lead.size());
  return "cannot open " + input + ": " + (reason.empty() ? "it does not open" : reason);
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

void Viewer::Impl::start_stream(const std::vector<std::string>& paths) {
  if (!stream.start(paths, stream.options)) {
    set_status("still opening " + stream.label() + "; wait for it first", true);
    return;
  }
  set_status("opening " + stream.label() + " (streamed) ...", false);
}

void Viewer::Impl::install_stream(std::shared_ptr<StreamingScene> scene) {
  std::string err, note;
  bool refused = false;
  backend->set_streaming(true);
  PointCloud& pool = scene->pool();
  if (!backend->set_cloud(pool, &err, &note, &refused)) {
    backend->set_streaming(stream.scene != nullptr);
    set_status(err, true);
    return;
  }
  scene->pool_reallocated();  // the renderers have this pool
  const bool first = cloud.first;
  stream.scene = scene;
  // The pool is the cloud on screen: the pick panel, the Cloud section and the colors see it.
  cloud.points = std::shared_ptr<PointCloud>(scene, &pool);
  cloud.bounds = scene->info().bounds;
  cloud.files = {scene->info()};
  cloud.scene.clear();
  cloud.point_target = ~uint64_t{0};
  rs.point_count = ~uint64_t{0};
  const double aspect = win.aspect();
  if (first)
    view.camera = stream_camera(opt, cloud.bounds, aspect);
  else
    frame_files_camera(view.camera, cloud.bounds, aspect, view.files_up);
  view.fly.speed = FlyCamera::speed_for(cloud.bounds);
  view.home = view.camera;
  cloud.first = false;
  for (const std::string& f : stream.inputs()) win.settings.add_recent(f);
  // The file's colors when it has them, else intensity, else elevation (over the survey's
  // bounds), unless the panel or --color chose a mode.
  colors.forget_cloud();
  colors.shown = ColorSettings{};
  if (!colors.chosen) {
    colors.wanted = ColorSettings{};
    const FileInfo& info = scene->info();
    colors.wanted.mode = stream_default_color(info);
    colors.wanted.up_axis = view.files_up == UpAxis::kZ ? 2 : 1;
  }
  colors.legend = Legend{};
  char msg[256];
  std::snprintf(msg, sizeof msg, "%s: %llu points in %llu tile(s), streamed%s",
                stream.label().c_str(), (unsigned long long)scene->info().points,
                (unsigned long long)scene->stats().tiles, note.c_str());
  set_status(msg, refused);
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

}  // namespace

bool Viewer::Impl::pool_shows_file_colors() const {
  return stream.scene->pool().file_colors.empty();
}

void Viewer::Impl::recolor_ranges(const std::vector<PoolRange>& ranges) {
  PointCloud& pool = stream.scene->pool();
  ColorSettings fixed = colors.shown;
  fixed.auto_range = false;
  fixed.range_lo = colors.legend.lo;
  fixed.range_hi = colors.legend.hi;
  for (const PoolRange& r : ranges)
    if (r.count) color_range_of_pool(pool, fixed, r.first, r.count);
  std::string err;
  if (!backend->update_points(ranges, &err)) set_status(err, true);
}

void Viewer::Impl::update_stream() {
  std::shared_ptr<StreamingScene> opened;
  std::string why;
  if (stream.take(opened, &why)) {
    if (opened)
      install_stream(std::move(opened));
    else
      set_status(why, true);
  }
  StreamingScene* scene = stream.scene.get();
  // A color job or a pick reads the pool: it stays as it is until they are done.
  if (!scene || win.display->empty() || colors.job.busy() || picks.job.busy()) return;
  if (stream.options_changed) {
    scene->set_options(stream.options);
    stream.options_changed = false;
  }
  const std::vector<PoolRange> ranges =
      scene->update(lod_view(view.camera, win.display->width(), win.display->height()));
  std::string err, note;
  bool refused = false;
  if (scene->pool_reallocated()) {
    if (!backend->set_cloud(scene->pool(), &err, &note, &refused)) set_status(err, true);
  } else if (!ranges.empty() && pool_shows_file_colors() && !backend->update_points(ranges, &err)) {
    set_status(err, true);
  }
  if (!ranges.empty() && !pool_shows_file_colors()) recolor_ranges(ranges);
  if (!ranges.empty()) picks.job.forget_positions();  // its boxes came from the pool before
  stream.stats = scene->stats();
  for (const std::string& m : scene->take_messages()) set_status(m, true);
}

}  // namespace pr
