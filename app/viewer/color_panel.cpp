// The panel's Color section and the viewer's color state: the mode, colormap, gamma and range
// the user asks for are computed by a ColorJob in the background while the old colors stay on
// screen, then handed to the cloud and to both renderers (Renderer::update_colors()); the class
// filter hides the points of unticked classes (apply_class_filter(): NaN positions, so both
// renderers get the cloud again).
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

}  // namespace

void Viewer::Impl::color_request_for_jobs() {
  if (job.busy()) return;
  ColorRequest req;
  req.settings = color_wanted;
  if (!color_chosen && !opt.color.empty()) {
    parse_color_mode(opt.color, &req.settings.mode, &req.settings.field);
    req.settings.colormap = opt.colormap.value_or(Colormap::kViridis);
    color_wanted = req.settings;
    color_chosen = true;
  }
  req.use_default = !color_chosen;
  if (opt.colormap && !color_chosen) req.settings.colormap = *opt.colormap;
  req.files_up = files_up == UpAxis::kZ ? 2 : 1;
  req.scene_up = up_axis_for(opt, false) == UpAxis::kZ ? 2 : 1;
  job.set_color_request(req);
}

void Viewer::Impl::take_cloud_colors(const CloudJob::Result& r) {
  color_job.join();  // it read the cloud being replaced
  color = color_wanted = r.color;
  legend = r.legend;
  hidden_classes = {};
  hidden_points = HiddenPoints{};
  filter_dirty = false;
  if (!r.color_note.empty()) set_status(r.color_note + "; showing " + mode_label(color), true);
}

void Viewer::Impl::update_colors() {
  color_request_for_jobs();
  // Elevation follows the up axis the panel sets for files (or --up for the scenes).
  const UpAxis up = scene.empty() ? files_up : up_axis_for(opt, false);
  const int up_axis = up == UpAxis::kZ ? 2 : 1;
  if (color_wanted.mode == ColorMode::kElevation && color_wanted.up_axis != up_axis) {
    color_wanted.up_axis = up_axis;
    color_wanted.auto_range = true;
  }
  ColorJob::Result r;
  if (color_job.take(r)) {
    if (!r.ok) {
      set_status("colors: " + r.error, true);
      color_wanted = color;
    } else if (cloud) {
      set_display_colors(*cloud, r.settings.mode, std::move(r.colors));
      color = r.settings;
      legend = r.legend;
      if (color.mode == ColorMode::kRgb) legend = Legend{};
      std::string err;
      if (!backend->update_colors(&err)) set_status(err, true);
      char msg[128];
      std::snprintf(msg, sizeof msg, "colors: %s in %.0f ms", mode_label(color).c_str(), r.ms);
      set_status(msg, false);
    }
  }
  if (color_job.busy() || !cloud || cloud->empty()) return;
  if (filter_dirty) {
    filter_dirty = false;
    if (apply_class_filter(*cloud, hidden_classes, hidden_points)) {
      // The pick's compact form and boxes were made from the positions before.
      pick_compact = CompactCloud{};
      pick_boxes = PodVector<PointBox>();
      std::string err, note;
      bool refused = false;
      if (!backend->set_cloud(*cloud, &err, &note, &refused))
        set_status(err, true);
      else if (refused)
        set_status("class filter" + note, true);
    }
  }
  if (!(color_wanted == color))
    color_job.start(cloud.get(), color_wanted, cloud_bounds,
                    [this](const PointCloud& c, const uint32_t* colors) {
                      return backend->stage_colors(c, colors, nullptr);
                    });
}

bool Viewer::set_color(const std::string& mode) {
  ColorSettings c = impl_->color_wanted;
  if (!impl_->cloud || !parse_color_mode(mode, &c.mode, &c.field) ||
      !color_mode_available(*impl_->cloud, c.mode, c.field))
    return false;
  c.auto_range = true;
  impl_->color_wanted = c;
  impl_->color_chosen = true;
  return true;
}

std::string Viewer::color_mode() const {
  const ColorSettings& c = impl_->color;
  return c.mode == ColorMode::kField ? c.field : color_mode_name(c.mode);
}

bool Viewer::color_busy() const {
  return impl_->color_job.busy() || !(impl_->color_wanted == impl_->color) || impl_->filter_dirty;
}

void Viewer::set_class_visible(int code, bool visible) {
  if (code < 0 || code > 255) return;
  impl_->hidden_classes[size_t(code)] = !visible;
  impl_->filter_dirty = true;
}

void Viewer::Impl::draw_color_section() {
  if (!ImGui::CollapsingHeader("Color", ImGuiTreeNodeFlags_DefaultOpen)) return;
  if (!cloud) {
    ImGui::TextDisabled("no cloud");
    return;
  }
  const float s = ui_scale;
  // Mode: the built-in modes the cloud can show, then its named fields.
  std::vector<ColorSettings> modes;
  for (int m = 0; m < 6; ++m)
    if (color_mode_available(*cloud, ColorMode(m), "")) {
      ColorSettings c = color_wanted;
      c.mode = ColorMode(m);
      c.field.clear();
      modes.push_back(c);
    }
  for (const ScalarField& f : cloud->fields) {
    ColorSettings c = color_wanted;
    c.mode = ColorMode::kField;
    c.field = f.name;
    modes.push_back(c);
  }
  if (ImGui::BeginCombo("mode", mode_label(color_wanted).c_str())) {
    for (const ColorSettings& c : modes) {
      const bool selected = c.mode == color_wanted.mode && c.field == color_wanted.field;
      if (ImGui::Selectable(mode_label(c).c_str(), selected) && !selected) {
        color_wanted = c;
        color_wanted.auto_range = true;
        color_chosen = true;
      }
    }
    ImGui::EndCombo();
  }
  if (color_job.busy()) ImGui::TextDisabled("computing %s ...", mode_label(color_wanted).c_str());
  if (legend.continuous) {
    if (ImGui::BeginCombo("colormap", colormap_name(color_wanted.colormap))) {
      for (int m = 0; m < kColormapCount; ++m)
        if (ImGui::Selectable(colormap_name(Colormap(m)), color_wanted.colormap == Colormap(m))) {
          color_wanted.colormap = Colormap(m);
          color_chosen = true;
        }
      ImGui::EndCombo();
    }
    ImGui::Text("%s", legend.label.c_str());
    color_bar(legend.colormap, ImGui::CalcItemWidth(), 14.0f * s);
    double lo = color_wanted.auto_range ? legend.lo : color_wanted.range_lo;
    double hi = color_wanted.auto_range ? legend.hi : color_wanted.range_hi;
    bool edit =
        ImGui::InputDouble("low", &lo, 0.0, 0.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue);
    edit |= ImGui::InputDouble("high", &hi, 0.0, 0.0, "%.3f", ImGuiInputTextFlags_EnterReturnsTrue);
    if (edit && lo < hi) {
      color_wanted.auto_range = false;
      color_wanted.range_lo = lo;
      color_wanted.range_hi = hi;
    }
    bool automatic = color_wanted.auto_range;
    if (ImGui::Checkbox(color_wanted.mode == ColorMode::kIntensity ? "range: 1st - 99th percentile"
                                                                   : "range: the cloud's",
                        &automatic))
      color_wanted.auto_range = automatic;
    if (color_wanted.mode == ColorMode::kIntensity) {
      float g = float(color_wanted.gamma);
      if (ImGui::SliderFloat("gamma", &g, 0.2f, 5.0f, "%.2f", ImGuiSliderFlags_Logarithmic))
        color_wanted.gamma = double(g);
    }
  }
  if (color.mode == ColorMode::kClassification &&
      ImGui::BeginTable("classes", 4, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
    ImGui::TableSetupColumn("show");
    ImGui::TableSetupColumn("");
    ImGui::TableSetupColumn("class");
    ImGui::TableSetupColumn("points");
    ImGui::TableHeadersRow();
    for (int c = 0; c < 256; ++c) {
      // Hidden classes keep their row (their points are still counted by the legend).
      if (legend.class_counts[size_t(c)] == 0) continue;
      ImGui::PushID(c);
      ImGui::TableNextRow();
      ImGui::TableNextColumn();
      bool show = !hidden_classes[size_t(c)];
      if (ImGui::Checkbox("##show", &show)) {
        hidden_classes[size_t(c)] = !show;
        filter_dirty = true;
      }
      ImGui::TableNextColumn();
      ImGui::ColorButton("##swatch", to_vec4(class_color(uint8_t(c))),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(14 * s, 14 * s));
      ImGui::TableNextColumn();
      ImGui::Text("%d %s", c, class_name(uint8_t(c)).c_str());
      ImGui::TableNextColumn();
      ImGui::Text("%llu", (unsigned long long)legend.class_counts[size_t(c)]);
      ImGui::PopID();
    }
    ImGui::EndTable();
  }
  if (color.mode == ColorMode::kReturn) {
    for (int k = 0; k < 4; ++k) {
      ImGui::ColorButton(return_kind_name(ReturnKind(k)), to_vec4(return_color(ReturnKind(k))),
                         ImGuiColorEditFlags_NoTooltip, ImVec2(14 * s, 14 * s));
      ImGui::SameLine();
      ImGui::Text("%s: %llu", return_kind_name(ReturnKind(k)),
                  (unsigned long long)legend.return_counts[size_t(k)]);
    }
  }
}

}  // namespace pr
