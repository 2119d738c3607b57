// The panel's Color section and the viewer's color state: the mode, colormap, gamma and range
// the user asks for are computed by a ColorJob in the background while the old colors stay on
// screen, then handed to the cloud and to both renderers (Renderer::update_colors()); the class
// filter hides the points of unticked classes (apply_class_filter(): NaN positions, so both
// renderers get the cloud again).
#include "viewer/color_panel.h"

#include <imgui.h>

#include <cstdio>

#include "startup.h"
#include "viewer/viewer_impl.h"

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
  for (int c = 0; c < 256; ++c) {
    // Hidden classes keep their row (their points are still counted by the legend).
    if (cs.legend.class_counts[size_t(c)] == 0) continue;
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
    ImGui::Text("%llu", (unsigned long long)cs.legend.class_counts[size_t(c)]);
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

void Viewer::Impl::color_request_for_jobs() {
  if (cloud.job.busy()) return;
  ColorRequest req;
  req.settings = colors.wanted;
  if (!colors.chosen && !opt.color.empty()) {
    parse_color_mode(opt.color, &req.settings.mode, &req.settings.field);
    req.settings.colormap = opt.colormap.value_or(Colormap::kViridis);
    colors.wanted = req.settings;
    colors.chosen = true;
  }
  req.use_default = !colors.chosen;
  if (opt.colormap && !colors.chosen) req.settings.colormap = *opt.colormap;
  req.files_up = view.files_up == UpAxis::kZ ? 2 : 1;
  req.scene_up = up_axis_for(opt, false) == UpAxis::kZ ? 2 : 1;
  cloud.job.set_color_request(req);
}

void Viewer::Impl::take_cloud_colors(const CloudJob::Result& r) {
  colors.forget_cloud();  // the job read the cloud being replaced
  colors.shown = colors.wanted = r.color;
  colors.legend = r.legend;
  colors.hidden_classes = {};
  colors.hidden_points = HiddenPoints{};
  colors.filter_dirty = false;
  if (!r.color_note.empty())
    set_status(r.color_note + "; showing " + mode_label(colors.shown), true);
}

void Viewer::Impl::update_colors() {
  color_request_for_jobs();
  // Elevation follows the up axis the panel sets for files (or --up for the scenes).
  const UpAxis up = cloud.scene.empty() ? view.files_up : up_axis_for(opt, false);
  const int up_axis = up == UpAxis::kZ ? 2 : 1;
  if (colors.wanted.mode == ColorMode::kElevation && colors.wanted.up_axis != up_axis) {
    colors.wanted.up_axis = up_axis;
    colors.wanted.auto_range = true;
  }
  // A cloud being saved or picked in is read by other threads: its colors and the class
  // filter's positions change once the save or the pick has ended.
  if (save.job.reads(cloud.points.get()) || picks.job.reads(cloud.points.get())) return;
  // The GPU computed the new colors itself: shown now, while the host's copy is still computed.
  if (colors.job.take_recipe_ready()) colors.gpu_ahead = backend->show_staged_recipe();
  ColorJob::Result r;
  if (colors.job.take(r)) take_colors(r);
  if (colors.job.busy() || !cloud.drawable()) return;
  if (colors.filter_dirty) apply_class_filter_now();
  if (!(colors.wanted == colors.shown))
    colors.job.start(
        cloud.points.get(), colors.wanted, cloud.bounds,
        [this](const PointCloud& c, const uint32_t* px) {
          return backend->stage_colors(c, px, nullptr);
        },
        std::move(colors.spare),
        [this](const PointCloud& c, const ColorRecipe& recipe) {
          return backend->stage_recipe(c, recipe, nullptr);
        });
}

/// A finished color job's colors to the cloud and the renderers (the GPU's already there when it
/// showed them from their recipe), or its error.
void Viewer::Impl::take_colors(ColorJob::Result& r) {
  const bool gpu_ahead = colors.gpu_ahead;  // the GPU shows r's colors already
  colors.gpu_ahead = false;
  std::string err;
  if (!cloud.points) return;
  if (!r.ok) {
    set_status("colors: " + r.error, true);
    colors.wanted = colors.shown;
    // The GPU's colors back to the host's.
    if (gpu_ahead && !backend->update_colors(&err)) set_status(err, true);
    return;
  }
  colors.spare = set_display_colors(*cloud.points, r.settings.mode, std::move(r.colors));
  colors.shown = r.settings;
  colors.legend = colors.shown.mode == ColorMode::kRgb ? Legend{} : r.legend;
  if (!backend->update_colors(&err, gpu_ahead)) set_status(err, true);
  char msg[160];
  if (gpu_ahead && colors.shown.mode == ColorMode::kRgb)  // the file's colors: nothing on the host
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms on the GPU",
                  mode_label(colors.shown).c_str(), r.recipe_ms);
  else if (gpu_ahead)
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms on the GPU (%.0f ms on the host)",
                  mode_label(colors.shown).c_str(), r.recipe_ms, r.ms);
  else
    std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms", mode_label(colors.shown).c_str(), r.ms);
  set_status(msg, false);
}

void Viewer::Impl::apply_class_filter_now() {
  colors.filter_dirty = false;
  if (stream.scene) {
    set_status("the class filter is not available for streamed surveys", true);
    return;
  }
  if (!apply_class_filter(*cloud.points, colors.hidden_classes, colors.hidden_points)) return;
  picks.job.forget_positions();  // made from the positions before
  std::string err, note;
  bool refused = false;
  if (!backend->set_cloud(*cloud.points, &err, &note, &refused))
    set_status(err, true);
  else if (refused)
    set_status("class filter" + note, true);
}

void Viewer::Impl::draw_color_section() {
  if (!ImGui::CollapsingHeader("Color", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!cloud.points) {
    ImGui::TextDisabled("no cloud");
    return;
  }
  const float s = win.ui_scale;
  mode_combo(colors, *cloud.points);
  if (colors.job.busy()) ImGui::TextDisabled("computing %s ...", mode_label(colors.wanted).c_str());
  if (colors.legend.continuous) continuous_legend(colors, s);
  if (colors.shown.mode == ColorMode::kClassification) class_table(colors, s);
  if (colors.shown.mode == ColorMode::kReturn) return_legend(colors, s);
}

}  // namespace pr
