// The panel's groups: every section of the panel belongs to one group, and the panel draws the
// groups in a fixed order, each a collapsible header (open or closed at first by the table in
// panel_groups.cpp) with its sections indented under it, in the order they were listed. A new
// tool adds one line to the list in Viewer::Impl::draw_panel() (panel.cpp):
//   sections.push_back({PanelGroup::kTools, [&] { clips.draw_section(...); }});
// Streaming and Help have no group header: their sections stand alone at the top and the bottom.
#pragma once

#include <functional>
#include <vector>

namespace pr {

/// In the order the panel shows them.
enum class PanelGroup {
  kStreaming,    ///< a streamed survey's budget and progress (no header; only while streaming)
  kView,         ///< camera, focus, points
  kTools,        ///< pick and measure, and the tools on the cloud
  kColour,       ///< color modes and classes
  kData,         ///< open, save, the cloud's facts
  kPerformance,  ///< the renderer and its options, timings
  kHelp,         ///< keys (no header)
};

struct PanelSection {
  PanelGroup group;
  std::function<void()> draw;  ///< draws the section (its own header, when it has one)
};

/// Draws `sections` by group: each group that has a section gets its header (its ImGui ID scope
/// too, so a section may share its group's name), then its sections indented.
void draw_panel_sections(const std::vector<PanelSection>& sections, float ui_scale);

/// A group's name as its header shows it ("View", "Tools", ...).
const char* panel_group_name(PanelGroup g);

}  // namespace pr
