// The panel's Open section (open_box.h): a path typed and opened with the button or Enter, the
// point budget of what opens here, Recent files, and the folder listed: ".." goes up, a folder is
// browsed into, a file's path goes into the path box, and a folder with COPC files opens as one
// survey of them, as the command line streams a folder.
#include <imgui.h>

#include <cstdio>
#include <filesystem>

#include "viewer/open_box.h"
#include "viewer/panel_widgets.h"

namespace pr {

void OpenBox::relist(StatusLine& status) {
  std::string err;
  if (!refresh(&err)) status.set(err, true);
}

namespace {

/// The folder listed and what it offers; `open` receives the folder when it is to open as a
/// survey.
void folder_listing(OpenBox& box, ViewerSettings& settings, float ui_scale, PanelMarks& marks,
                    StatusLine& status, std::vector<std::string>* open) {
  ImGui::TextWrapped("%s", box.dir.c_str());
  if (ImGui::Selectable("..")) {
    box.go_up();
    box.relist(status);
  }
  ImGui::BeginChild("listing", ImVec2(0, 140 * ui_scale), true);
  std::string go_dir;
  for (const auto& [name, dir] : box.listing) {
    const std::string label = dir ? name + "/" : name;
    const bool picked = ImGui::Selectable(label.c_str());
    if (marks.on) marks.mark(("open.entry:" + label).c_str());
    if (picked) {
      const std::string full = (std::filesystem::path(box.dir) / name).string();
      if (dir)
        go_dir = full;
      else
        std::snprintf(box.path, sizeof box.path, "%s", full.c_str());
    }
  }
  ImGui::EndChild();
  if (box.copc_files > 0) {
    const std::string survey = "Open the folder as one survey (" + std::to_string(box.copc_files) +
                               " COPC file" + (box.copc_files > 1 ? "s)" : ")");
    const bool open_all = ImGui::Button(survey.c_str());
    marks.mark("open.survey");
    tooltip(
        "Streams the folder's *.copc.laz files as one survey (pointraster FOLDER does the\n"
        "same): only what the view needs is read.");
    if (open_all) *open = {box.dir};
  }
  if (!go_dir.empty()) {
    box.dir = go_dir;
    settings.open_dir = go_dir;
    box.relist(status);
  }
}

}  // namespace

std::vector<std::string> OpenBox::draw_section(ViewerSettings& settings, float ui_scale,
                                               PanelMarks& marks, StatusLine& status) {
  const bool shown = ImGui::CollapsingHeader("Open");
  marks.mark("open.header");
  if (!shown) return {};
  std::vector<std::string> open;
  // Enter in the field opens as the button does. The button's own ID ("##path"): the section's
  // header is "Open" too, and ImGui tells items apart by the ID their label hashes to.
  const bool entered =
      ImGui::InputText("path", path, sizeof path, ImGuiInputTextFlags_EnterReturnsTrue);
  marks.mark("open.path");
  ImGui::SameLine();
  const bool clicked = ImGui::Button("Open##path");
  marks.mark("open.button");
  if ((clicked || entered) && path[0]) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec)) {
      dir = path;
      relist(status);
    } else {
      open = {path};
    }
  }
  ImGui::TextDisabled("or drop files on the window");
  ImGui::InputScalar("point budget", ImGuiDataType_U64, &budget);
  tooltip(
      "Points a file opened here keeps (0: all): a COPC file its top octree levels that fit,\n"
      "any other an even subset of its records. Read more / Read everything fetch the rest.");
  const auto& recent = settings.recent;
  const bool recent_shown = !recent.empty() && ImGui::TreeNode("Recent files");
  if (!recent.empty()) marks.mark("open.recent");
  if (recent_shown) {
    for (size_t i = 0; i < recent.size(); ++i) {
      const bool picked = ImGui::Selectable(recent[i].c_str());
      if (marks.on) marks.mark(("open.recent." + std::to_string(i)).c_str());
      if (picked) {
        open = {recent[i]};
        break;
      }
    }
    ImGui::TreePop();
  }
  if (ImGui::TreeNodeEx("Folder", ImGuiTreeNodeFlags_DefaultOpen)) {
    folder_listing(*this, settings, ui_scale, marks, status, &open);
    ImGui::TreePop();
  }
  return open;
}

}  // namespace pr
