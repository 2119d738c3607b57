// The polygon selection tool (polygon_tool.h).
#include "viewer/polygon_tool.h"

#include <imgui.h>

#include <algorithm>
#include <string>

#include "viewer/panel_widgets.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

/// A window-unit point as a pixel of the frame's image.
glm::dvec2 to_pixel(const glm::dvec2& v, const PickFrame& f) {
  const double w = double(std::max(f.settings.width, 1)),
               h = double(std::max(f.settings.height, 1));
  return glm::dvec2((v.x - double(f.area.ux)) * w / std::max(double(f.area.uw), 1.0),
                    (v.y - double(f.area.uy)) * h / std::max(double(f.area.uh), 1.0));
}

/// A pixel of the frame's image in window units.
ImVec2 to_window(const glm::dvec2& px, const PickFrame& f) {
  const double w = double(std::max(f.settings.width, 1)),
               h = double(std::max(f.settings.height, 1));
  return ImVec2(float(double(f.area.ux) + px.x * double(f.area.uw) / w),
                float(double(f.area.uy) + px.y * double(f.area.uh) / h));
}

}  // namespace

bool same_view(const ClipPolygon& p, const PickFrame& f) {
  const Camera &a = p.camera, &b = f.camera;
  return p.on_image && p.width == f.settings.width && p.height == f.settings.height &&
         a.position == b.position && a.yaw == b.yaw && a.pitch == b.pitch && a.focus == b.focus &&
         a.projection == b.projection && a.ortho_height == b.ortho_height && a.up_axis == b.up_axis;
}

void PolygonTool::start() {
  drawing = true;
  vertices.clear();
}

void PolygonTool::cancel() {
  drawing = false;
  vertices.clear();
}

bool PolygonTool::click(float x, float y, bool double_click, const PickFrame& f,
                        StatusLine& status) {
  if (!drawing) return false;
  if (double_click) {
    // The double-click's first press added its vertex already.
    close(f, status);
    return true;
  }
  if (vertices.size() >= 3) {
    const glm::dvec2 d = glm::dvec2(x, y) - vertices.front();
    if (glm::dot(d, d) <= 8.0 * 8.0) {
      close(f, status);
      return true;
    }
  }
  vertices.emplace_back(x, y);
  return true;
}

bool PolygonTool::key(SDL_Keycode k, const PickFrame& f, StatusLine& status) {
  if (!drawing) return false;
  if (k == SDLK_ESCAPE) {
    cancel();
    status.set("polygon dropped", false);
    return true;
  }
  if (k == SDLK_RETURN || k == SDLK_KP_ENTER) {
    close(f, status);
    return true;
  }
  return false;
}

bool PolygonTool::close(const PickFrame& f, StatusLine& status) {
  ClipPolygon p;
  p.on_image = true;
  p.camera = f.camera;
  p.width = f.settings.width;
  p.height = f.settings.height;
  for (const glm::dvec2& v : vertices) p.vertices.push_back(to_pixel(v, f));
  std::string error;
  if (!f.drawn) error = "polygon: no image on screen to draw it on";
  if (!error.empty() || !validate_clip_polygon(p, &error)) {
    status.set(error, true);  // the vertices stay: more may be added, Esc drops them
    return false;
  }
  closed = std::move(p);
  drawing = false;
  vertices.clear();
  status.set("polygon: " + std::to_string(closed->vertices.size()) +
                 " vertices; the Save section writes the points inside it",
             false);
  return true;
}

void PolygonTool::draw_rows(const PickFrame& f, PanelMarks& marks, StatusLine& status) {
  ImGui::Separator();
  if (!drawing) {
    ImGui::BeginDisabled(!f.drawn);
    if (ImGui::Button("Polygon")) start();
    ImGui::EndDisabled();
    tooltip(
        "Click the polygon's corners on the image; Enter, a double-click or a click on the first "
        "corner closes it, Esc drops it. It selects what Save writes: the points inside it along "
        "the view it was drawn in, within the clip.");
  } else {
    ImGui::BeginDisabled(vertices.size() < 3);
    if (ImGui::Button("Close polygon")) close(f, status);
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Drop##polygon")) cancel();
    ImGui::SameLine();
    ImGui::TextDisabled("%zu vertices: Enter closes, Esc drops", vertices.size());
  }
  marks.mark("clip.polygon");
  if (!closed) return;
  ImGui::Text("polygon: %zu vertices%s", closed->vertices.size(),
              !closed->on_image       ? " (world x, y)"
              : same_view(*closed, f) ? ""
                                      : " (drawn in another view)");
  ImGui::SameLine();
  if (ImGui::SmallButton("clear##polygon")) clear();
}

void PolygonTool::draw_over(const PickFrame& f, float ui_scale) const {
  if (f.area.empty() || (!drawing && !closed)) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  dl->PushClipRect(ImVec2(f.area.ux, f.area.uy),
                   ImVec2(f.area.ux + f.area.uw, f.area.uy + f.area.uh));
  const ImU32 color = IM_COL32(80, 200, 255, 230);
  const float t = 1.5f * ui_scale;
  if (closed && same_view(*closed, f)) {
    std::vector<ImVec2> pts;
    for (const glm::dvec2& v : closed->vertices) pts.push_back(to_window(v, f));
    dl->AddPolyline(pts.data(), int(pts.size()), color, ImDrawFlags_Closed, t);
  }
  if (drawing && !vertices.empty()) {
    std::vector<ImVec2> pts;
    for (const glm::dvec2& v : vertices) pts.emplace_back(float(v.x), float(v.y));
    pts.push_back(ImGui::GetIO().MousePos);  // the edge the next click would make
    dl->AddPolyline(pts.data(), int(pts.size()), color, ImDrawFlags_None, t);
    for (size_t i = 0; i < vertices.size(); ++i)
      dl->AddCircleFilled(pts[i], (i == 0 ? 5.0f : 3.5f) * ui_scale, color);
  }
  dl->PopClipRect();
}

}  // namespace pr
