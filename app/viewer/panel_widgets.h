// Small Dear ImGui helpers the panel's sections share (each feature draws its own section).
#pragma once

#include <imgui.h>

namespace pr {

/// The last item's tooltip, while the pointer is over it.
inline void tooltip(const char* text) {
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

}  // namespace pr
