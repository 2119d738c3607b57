#include "viewer/panel_groups.h"

#include <imgui.h>

#include <iterator>

namespace pr {

namespace {

struct GroupInfo {
  PanelGroup group;
  const char* name;
  bool header;  // false: its sections stand alone
  bool open;    // open at first
};

// The order of the panel. Open at first: what a user works with (the view, the tools, the
// colors, opening files); closed: the renderer's internals and timings.
constexpr GroupInfo kGroups[] = {
    {PanelGroup::kStreaming, "Streaming", false, true},
    {PanelGroup::kView, "View", true, true},
    {PanelGroup::kTools, "Tools", true, true},
    {PanelGroup::kColour, "Colour", true, true},
    {PanelGroup::kData, "Data", true, true},
    {PanelGroup::kPerformance, "Performance", true, false},
    {PanelGroup::kHelp, "Help", false, true},
};

/// A group's header, in a color apart from its sections' headers.
bool group_header(const GroupInfo& g) {
  ImGui::PushStyleColor(ImGuiCol_Header, ImVec4(0.16f, 0.36f, 0.34f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_HeaderHovered, ImVec4(0.20f, 0.46f, 0.43f, 1.0f));
  ImGui::PushStyleColor(ImGuiCol_HeaderActive, ImVec4(0.24f, 0.54f, 0.50f, 1.0f));
  const bool open = ImGui::CollapsingHeader(
      g.name, g.open ? ImGuiTreeNodeFlags_DefaultOpen : ImGuiTreeNodeFlags_None);
  ImGui::PopStyleColor(3);
  return open;
}

}  // namespace

const char* panel_group_name(PanelGroup g) {
  for (const GroupInfo& i : kGroups)
    if (i.group == g) return i.name;
  return "";
}

void draw_panel_sections(const std::vector<PanelSection>& sections, float ui_scale) {
  for (const GroupInfo& g : kGroups) {
    bool any = false;
    for (const PanelSection& s : sections) any = any || s.group == g.group;
    if (!any) continue;
    ImGui::PushID(g.name);
    const bool open = !g.header || group_header(g);
    if (open) {
      if (g.header) ImGui::Indent(8.0f * ui_scale);
      for (const PanelSection& s : sections)
        if (s.group == g.group && s.draw) s.draw();
      if (g.header) ImGui::Unindent(8.0f * ui_scale);
    }
    ImGui::PopID();
  }
}

}  // namespace pr
