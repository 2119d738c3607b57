// The panel's Color section and the viewer's color state: the mode, colormap, gamma and range
// the user asks for are computed by a ColorJob in the background while the old colors stay on
// screen, then handed to the cloud and to both renderers (Renderer::update_colors()); the class
// filter hides the points of unticked classes (apply_class_filter(): NaN positions, so both
// renderers get the cloud again; a streamed survey's pool hides them node by node,
// StreamingScene::set_hidden_classes(), and hands over the ranges it changed).
#include "viewer/color_panel.h"

#include <imgui.h>

#include <cstdio>

#include "startup.h"
#include "streaming.h"

namespace pr {

namespace {

ImVec4 to_vec4(uint32_t c) {
  return ImVec4(float(c & 255) / 255.0f, float((c >> 8) & 255) / 255.0f,
                float((c >> 16) & 255) / 255.0f, 1.0f);
}

std::string mode_label(const ColorSettings& s) {
  return s.mode == ColorMode::kField ? "field: " + s.field : color_mode_name(s.mode);
}

/// The colormap as a bar of 64 steps, `width` x `height` pixels, at the cursor.
void color_bar(Colormap map, float width, float height) {
  ImDrawList* dl = ImGui::GetWindowDrawList();
  const ImVec2 p = ImGui::GetCursorScreenPos();
  constexpr int kSteps = 64;
  for (int k = 0; k < kSteps; ++k) {
    const uint32_t c = colormap_color(map, (double(k) + 0.5) / kSteps);
    const float x0 = p.x + width * float(k) / kSteps, x1 = p.x + width * float(k + 1) / kSteps;
    dl->AddRectFilled(ImVec2(x0, p.y), ImVec2(x1, p.y + height), c | 0xff000000u);
  }
  ImGui::Dummy(ImVec2(width, height));
}

/// The mode combo: the built-in modes the cloud can show, then its named fields.
void mode_combo(ColorState& cs, const PointCloud& cloud) {
  const std::vector<ColorSettings> modes = color_modes(cs, cloud);
  if (!ImGui::BeginCombo("mode", mode_label(cs.wanted).c_str())) return;
  for (const ColorSettings& c : modes) {
    const bool selected = c.mode == cs.wanted.mode && c.field == cs.wanted.field;
    if (ImGui::Selectable(mode_label(c).c_str(), selected) && !selected) cs.choose(c);
  }
  ImGui::EndCombo();
}

/// A continuous mode's colormap, its bar and range, and intensity's gamma.
void continuous_legend(ColorState& cs, float s) {
  ColorSettings& want = cs.wanted;
  if (ImGui::BeginCombo("colormap", colormap_name(want.colormap))) {
    for (int m = 0; m < kColormapCount; ++m)
      if (ImGui::Selectable(colormap_name(Colormap(m)), want.colormap == Colormap(m))) {
        want.colormap = Colormap(m);
        cs.chosen = true;
      }
    ImGui::EndCombo();
  }
  ImGui::Text("%s", cs.legend.label.c_str());
  color_bar(cs.legend.colormap, ImGui::CalcItemWidth(), 14.0f * s);
  double lo = want.auto_range ? cs.legend.lo : want.range_lo;
  double hi = want.auto_range ? cs.legend.hi : want.range_hi;
  bool edit =
      ImGui::InputDouble("low", &lo, 0.0, 0.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue);
  edit |= ImGui::InputDouble("high", &hi, 0.0, 0.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue);
  if (edit && lo < hi) {
    want.auto_range = false;
    want.range_lo = lo;
    want.range_hi = hi;
  }
  bool automatic = want.auto_range;
  if (ImGui::Checkbox(want.mode == ColorMode::kIntensity ? "range: 1st - 99th percentile"
                                                         : "range: the cloud's",
                      &automatic))
    want.auto_range = automatic;
  if (want.mode == ColorMode::kIntensity) {
    float g = float(want.gamma);
    if (ImGui::SliderFloat("gamma", &g, 0.2f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic))
      want.gamma = double(g);
  }
}

/// Classification: a row per class present (swatch, name, points) with its show box.
void class_table(ColorState& cs, float s) {
  if (!ImGui::BeginTable("classes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit))
    return;
  ImGui::TableSetupColumn("show");
  ImGui::TableSetupColumn("");
  ImGui::TableSetupColumn("class");
  ImGui::TableSetupColumn("points");
  ImGui::TableHeadersRow();
  for (const auto& [c, points] : class_rows(cs)) {
    ImGui::PushID(c);
    ImGui::TableNextRow();
    ImGui::TableNextColumn();
    bool show = !cs.hidden_classes[size_t(c)];
    if (ImGui::Checkbox("##show", &show)) cs.set_class_visible(c, show);
    ImGui::TableNextColumn();
    ImGui::ColorButton("##swatch", to_vec4(class_color(uint8_t(c))), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(14 * s, 14 * s));
    ImGui::TableNextColumn();
    ImGui::Text("%d %s", c, class_name(uint8_t(c)).c_str());
    ImGui::TableNextColumn();
    ImGui::Text("%llu", (unsigned long long)points);
    ImGui::PopID();
  }
  ImGui::EndTable();
}

/// Returns: a swatch and the points of each kind.
void return_legend(const ColorState& cs, float s) {
  for (int k = 0; k < 4; ++k) {
    ImGui::ColorButton(return_kind_name(ReturnKind(k)), to_vec4(return_color(ReturnKind(k))),
                       ImGuiColorEditFlags_NoTooltip, ImVec2(14 * s, 14 * s));
    ImGui::SameLine();
    ImGui::Text("%s: %llu", return_kind_name(ReturnKind(k)),
                (unsigned long long)cs.legend.return_counts[size_t(k)]);
  }
}

}  // namespace

namespace {

/// A finished color job's colors to the cloud and the renderers (the GPU's already there when it
/// showed them from their recipe), or its error.
void take_colors(ColorState& cs, ColorJob::Result& r, PointCloud* cloud, RenderBackend& backend,
                 StatusLine& status) {
  const bool gpu_ahead = cs.gpu_ahead;  // the GPU shows r's colors already
  cs.gpu_ahead = false;
  std::string err;
  if (!cloud) return;
  if (!r.ok) {
    status.set("colors: " + r.error, true);
    cs.wanted = cs.shown;
    // The GPU's colors back to the host's.
    if (gpu_ahead && !backend.update_colors(&err)) status.set(err, true);
    return;
  }
  cs.spare = set_display_colors(*cloud, r.settings.mode, std::move(r.colors));
  cs.shown = r.settings;
  cs.legend = cs.shown.mode == ColorMode::kRgb ? Legend{} : r.legend;
  if (!backend.update_colors(&err, gpu_ahead)) status.set(err, true);
  char msg[160];
  if (gpu_ahead && cs.shown.mode == ColorMode::kRgb)  // the file's colors: nothing on the host
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms on the GPU", mode_label(cs.shown).c_str(),
                  r.recipe_ms);
  else if (gpu_ahead)
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms on the GPU (%.0f ms on the host)",
                  mode_label(cs.shown).c_str(), r.recipe_ms, r.ms);
  else
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms", mode_label(cs.shown).c_str(), r.ms);
  status.set(msg, false);
}

/// The class filter's hidden classes applied to `cloud` (NaN positions), and the cloud handed to
/// the renderers again. True when points moved.
bool apply_class_filter_now(ColorState& cs, PointCloud& cloud, StreamingScene* stream,
                            RenderBackend& backend, StatusLine& status) {
  cs.filter_dirty = false;
  // A streamed pool filters its nodes itself, those arriving later too; the ranges it rewrites
  // reach the renderers with the next update's.
  if (stream) {
    stream->set_hidden_classes(cs.hidden_classes);
    return true;
  }
  if (!apply_class_filter(cloud, cs.hidden_classes, cs.hidden_points)) return false;
  std::string err, note;
  bool refused = false;
  if (!backend.set_cloud(cloud, &err, &note, &refused))
    status.set(err, true);
  else if (refused)
    status.set("class filter" + note, true);
  return true;
}

}  // namespace

ColorRequest ColorState::request_for_jobs(const Options& opt, UpAxis files_up) {
  ColorRequest req;
  req.settings = wanted;
  if (!chosen && !opt.color.empty()) {
    parse_color_mode(opt.color, &req.settings.mode, &req.settings.field);
    req.settings.colormap = opt.colormap.value_or(Colormap::kViridis);
    // A scene file's gamma and range (apply_color_options() reads them the same way).
    req.settings.gamma = opt.scene_extras.gamma;
    req.settings.auto_range = !opt.scene_extras.color_range;
    if (const auto& r = opt.scene_extras.color_range) {
      req.settings.range_lo = r->first;
      req.settings.range_hi = r->second;
      req.keep_range = true;
    }
    wanted = req.settings;
    chosen = true;
  }
  req.use_default = !chosen;
  if (opt.colormap && !chosen) req.settings.colormap = *opt.colormap;
  req.files_up = files_up == UpAxis::kZ ? 2 : 1;
  req.scene_up = up_axis_for(opt, false) == UpAxis::kZ ? 2 : 1;
  return req;
}

void ColorState::take_cloud_colors(const CloudJob::Result& r, StatusLine& status) {
  forget_cloud();  // the job read the cloud being replaced
  shown = wanted = r.color;
  legend = r.legend;
  hidden_classes = {};
  hidden_points = HiddenPoints{};
  filter_dirty = false;
  if (!r.color_note.empty()) status.set(r.color_note + "; showing " + mode_label(shown), true);
}

void ColorState::start_survey(const FileInfo& info, UpAxis files_up) {
  forget_cloud();
  shown = ColorSettings{};
  if (!chosen) {
    wanted = ColorSettings{};
    wanted.mode = stream_default_color(info);
    wanted.up_axis = files_up == UpAxis::kZ ? 2 : 1;
  }
  legend = Legend{};
  hidden_classes = {};
  hidden_points = HiddenPoints{};
  filter_dirty = false;
}

ColorSettings ColorState::shown_fixed() const {
  ColorSettings fixed = shown;
  fixed.auto_range = false;
  fixed.range_lo = legend.lo;
  fixed.range_hi = legend.hi;
  return fixed;
}

bool ColorState::update(const ColorTarget& t, RenderBackend& backend, StatusLine& status) {
  // Elevation follows the up axis the panel sets for files (or --up for the scenes).
  if (wanted.mode == ColorMode::kElevation && wanted.up_axis != t.up_axis) {
    wanted.up_axis = t.up_axis;
    wanted.auto_range = true;
  }
  survey_classes.reset();
  if (t.stream) survey_classes = t.stream->classes();
  if (t.read_elsewhere) return false;
  // The GPU computed the new colors itself: shown now, while the host's copy is still computed.
  if (job.take_recipe_ready()) gpu_ahead = backend.show_staged_recipe();
  ColorJob::Result r;
  if (job.take(r)) take_colors(*this, r, t.cloud, backend, status);
  if (job.busy() || !t.drawable) return false;
  if (t.device_scene && !(wanted == shown)) {
    status.set(std::string("colors: ") + color_mode_name(wanted.mode) +
                   " refused: a scene made on the GPU keeps its own colors (the host holds only "
                   "a subset of its points)",
               true);
    wanted = shown;
    filter_dirty = false;
    return false;
  }
  const bool moved =
      filter_dirty && apply_class_filter_now(*this, *t.cloud, t.stream, backend, status);
  if (t.stream) declared_field_range(t.stream->info(), wanted);
  if (!(wanted == shown)) {
    RenderBackend* be = &backend;
    job.start(
        t.cloud, wanted, t.bounds,
        [be](const PointCloud& c, const uint32_t* px) { return be->stage_colors(c, px, nullptr); },
        std::move(spare),
        [be](const PointCloud& c, const ColorRecipe& recipe) {
          return be->stage_recipe(c, recipe, nullptr);
        });
  }
  return moved;
}

std::vector<ColorSettings> color_modes(const ColorState& cs, const PointCloud& cloud) {
  std::vector<ColorSettings> modes;
  for (int m = 0; m < 6; ++m)
    if (color_mode_available(cloud, ColorMode(m), "")) {
      ColorSettings c = cs.wanted;
      c.mode = ColorMode(m);
      c.field.clear();
      modes.push_back(c);
    }
  for (const ScalarField& f : cloud.fields) {
    ColorSettings c = cs.wanted;
    c.mode = ColorMode::kField;
    c.field = f.name;
    modes.push_back(c);
  }
  return modes;
}

std::vector<std::pair<int, uint64_t>> class_rows(const ColorState& cs) {
  std::vector<std::pair<int, uint64_t>> rows;
  for (int c = 0; c < 256; ++c) {
    // Hidden classes keep their row (their points are still counted), and so does a streamed
    // survey's class whose nodes left the pool.
    const uint64_t n = cs.survey_classes ? cs.survey_classes->points[size_t(c)]
                                         : cs.legend.class_counts[size_t(c)];
    if (cs.survey_classes ? cs.survey_classes->seen[size_t(c)] : n > 0) rows.emplace_back(c, n);
  }
  return rows;
}

void ColorState::draw_section(const PointCloud* cloud, float s) {
  if (!ImGui::CollapsingHeader("Color", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!cloud) {
    ImGui::TextDisabled("no cloud");
    return;
  }
  mode_combo(*this, *cloud);
  if (job.busy()) ImGui::TextDisabled("computing %s ...", mode_label(wanted).c_str());
  if (legend.continuous) continuous_legend(*this, s);
  if (shown.mode == ColorMode::kClassification) class_table(*this, s);
  if (shown.mode == ColorMode::kReturn) return_legend(*this, s);
}

}  // namespace pr
