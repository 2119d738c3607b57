// The Profile tool's line, extraction and export (profile_panel.h); the window is
// profile_view.cpp.
#include "viewer/profile_panel.h"

#include <imgui.h>

#include <cmath>
#include <cstdio>
#include <new>

#include "engine/frame_stats.h"
#include "engine/io/corridor.h"
#include "engine/measure.h"
#include "profile_export.h"
#include "viewer/screen_map.h"

namespace pr {

namespace {

/// The corridor's two edges across the ground: each segment's ends moved half the width to
/// either side, at the ends' heights.
void corridor_edges(const std::vector<glm::dvec3>& line, double half, UpAxis up,
                    std::vector<std::pair<glm::dvec3, glm::dvec3>>* out) {
  for (size_t k = 0; k + 1 < line.size(); ++k) {
    const glm::dvec2 a = ground_of(line[k], up), b = ground_of(line[k + 1], up);
    const glm::dvec2 d = b - a;
    const double len = std::sqrt(d.x * d.x + d.y * d.y);
    if (!(len > 0.0)) continue;
    const glm::dvec2 n = glm::dvec2(-d.y, d.x) * (half / len);  // to the left
    // The ground's (u, v) back to world: (x, y) with z up, (z, x) with y up.
    auto shifted = [&](const glm::dvec3& p, double sign) {
      glm::dvec3 q = p;
      if (up == UpAxis::kZ) {
        q.x += sign * n.x;
        q.y += sign * n.y;
      } else {
        q.z += sign * n.x;
        q.x += sign * n.y;
      }
      return q;
    };
    for (const double sign : {1.0, -1.0})
      out->push_back({shifted(line[k], sign), shifted(line[k + 1], sign)});
  }
}

void draw_segment(ImDrawList* dl, const ScreenMap& map, const glm::dvec3& a, const glm::dvec3& b,
                  ImU32 tint, float thickness) {
  ImVec2 pa, pb;
  if (!map.segment(a, b, &pa, &pb)) return;
  dl->AddLine(pa, pb, IM_COL32(0, 0, 0, 150), thickness + 2.0f);
  dl->AddLine(pa, pb, tint, thickness);
}

}  // namespace

void ProfileState::choose(bool on) {
  active = on;
}

void ProfileState::update(const PickState& picks, const std::shared_ptr<const PointCloud>& now,
                          const std::vector<std::string>* surveyed, const StreamOptions& stream,
                          const ColorSettings& shown, StatusLine& status) {
  const bool streamed = surveyed != nullptr;
  if (streamed && survey != *surveyed) survey = *surveyed;
  if (!streamed) survey.clear();
  survey_budget = stream.point_budget;
  survey_http = stream.http;
  if (const std::optional<glm::dvec3> p = picks.newest_since(&seen_picks); p && active)
    take_vertex(line, *p);
  ProfileMade made;
  if (job.take(&made)) {
    job_source = nullptr;
    if (!made.profile) {
      status.set(made.error, true);
    } else if (made.profile && source == now.get()) {
      profile = std::move(made.profile);
      world = std::move(made.world);
      copied_colors = now ? now->colors.data() : nullptr;
      view.open = true;
      view.dirty = true;
      view.pick_count = 0;
      view.camera = Camera();  // framed at the window's first draw
      view.held = nullptr;
      survey_colored = false;
      view.rs.width = 0;
      char text[160];
      std::snprintf(text, sizeof text, "profile: %zu points, %.3f long, %.3f wide (%.0f ms)",
                    profile->cloud.size(), profile->length, profile->width, made.ms);
      status.set(text, false);
    }
  }
  if (profile && source != now.get()) {  // another cloud on screen: its profile is gone
    profile.reset();
    world.reset();
    view.pick_count = 0;
  }
  // The source's color mode applies: its new colors, copied once they are on the host. A
  // streamed pool changes its points in place: the profile keeps the colors it was made with.
  if (profile && now && !streamed && !job.busy() && now->colors.data() != copied_colors &&
      now->colors.size() == now->size()) {
    profile_copy_colors(*now, profile.get());
    copied_colors = now->colors.data();
    view.dirty = true;
    if (view.renderer) {
      std::string why;
      if (!view.renderer->update_colors(profile->cloud, &why)) view.renderer.reset();
    }
  }
  if (profile && streamed && !(survey_colored && survey_colors == shown)) color_survey(shown);
  std::string export_error;
  if (export_job.take(&export_error)) {
    if (export_error.empty())
      status.set("exported the profile to " + export_target, false);
    else
      status.set("profile export: " + export_error, true);
  }
}

void ProfileState::color_survey(const ColorSettings& shown) {
  // The survey's profile has the file's colors of its own points: the mode is computed on them.
  survey_colors = shown;
  survey_colored = true;
  PodVector<uint32_t> colors;
  if (!colorize(profile->cloud, shown, colors, nullptr, nullptr)) return;  // it lacks the mode
  set_display_colors(profile->cloud, shown.mode, std::move(colors));
  view.dirty = true;
  std::string why;
  if (view.renderer && !view.renderer->update_colors(profile->cloud, &why)) view.renderer.reset();
}

bool ProfileState::make(const PickFrame& f, StatusLine& status) {
  if (job.busy()) {
    status.set("profile: one is still being made", true);
    return false;
  }
  if (!f.cloud || f.cloud->empty()) {
    status.set("profile: no cloud on screen", true);
    return false;
  }
  const Profile p{line, width};
  const UpAxis up = f.camera.up_axis;
  std::string why;
  if (!validate_profile(p, up, &why)) {
    status.set(why, true);
    return false;
  }
  if (!survey.empty() && up != UpAxis::kZ) {
    status.set("profile: a streamed survey's profile needs z up", true);
    return false;
  }
  source = f.cloud.get();
  // A survey's corridor is read from its files, not from the pool on screen.
  job_source = survey.empty() ? source : nullptr;
  job.start([p, up, cloud = f.cloud, inputs = survey, budget = survey_budget, h = survey_http]() {
    ProfileMade m;
    const Stopwatch clock;
    try {
      std::shared_ptr<const PointCloud> from = cloud;
      if (!inputs.empty()) {
        CorridorRequest r;
        for (const glm::dvec3& q : p.line) r.line.emplace_back(q.x, q.y);
        r.half_width = p.width * 0.5;
        r.point_budget = budget;
        r.http = h;
        auto read = std::make_shared<PointCloud>();
        if (!read_corridor(inputs, r, read.get(), nullptr, &m.error)) {
          m.error = "profile: " + m.error;
          return m;
        }
        from = std::move(read);
      }
      auto out = std::make_shared<ProfileCloud>();
      if (extract_profile(*from, p, up, out.get(), &m.error)) {
        auto w = std::make_shared<PointCloud>(profile_export_cloud(*from, *out));
        w->fields.pop_back();  // "distance": write_profile() adds it
        m.world = std::move(w);
        m.profile = std::move(out);
      }
    } catch (const std::bad_alloc&) {
      m.error = "profile: out of memory";
    }
    m.ms = clock.ms();
    return m;
  });
  status.set("making the profile...", false);
  return true;
}

bool ProfileState::export_to(const std::string& path, StatusLine& status) {
  if (!profile || !world) {
    status.set("profile export: no profile yet", true);
    return false;
  }
  if (export_job.busy()) {
    status.set("profile export: one is still being written", true);
    return false;
  }
  if (profile_export_format(path) == ProfileFormat::kNone) {
    status.set("profile export: '" + path + "' ends in neither .las, .laz nor .csv", true);
    return false;
  }
  // The thread writes the corridor's own copy of its points (`world`, which the cloud on screen
  // does not change), the profile's indices made its own.
  auto copy = std::make_shared<ProfileCloud>(*profile);
  for (size_t k = 0; k < copy->source.size(); ++k) copy->source[k] = k;
  export_target = path;
  export_progress = std::make_shared<ConvertProgress>();
  export_job.start([path, copy, w = world, progress = export_progress]() {
    std::string why;
    try {
      if (!write_profile(path, *w, *copy, &why, progress.get()) && why.empty())
        why = path + ": not written";
    } catch (const std::bad_alloc&) {
      why = path + ": out of memory";
    }
    return why;
  });
  status.set("exporting the profile to " + path + "...", false);
  return true;
}

void ProfileState::draw_marks(const PickFrame& f, float ui) {
  if (line.empty() || f.settings.width <= 0 || f.area.empty()) return;
  ImDrawList* dl = ImGui::GetBackgroundDrawList();
  const ScreenMap map(f.camera, f.settings, f.area);
  dl->PushClipRect(ImVec2(f.area.ux, f.area.uy),
                   ImVec2(f.area.ux + f.area.uw, f.area.uy + f.area.uh));
  std::vector<std::pair<glm::dvec3, glm::dvec3>> edges;
  if (std::isfinite(width) && width > 0.0)
    corridor_edges(line, width * 0.5, f.camera.up_axis, &edges);
  for (const auto& [a, b] : edges) draw_segment(dl, map, a, b, IM_COL32(120, 230, 255, 160), ui);
  for (size_t k = 0; k + 1 < line.size(); ++k)
    draw_segment(dl, map, line[k], line[k + 1], IM_COL32(120, 230, 255, 255), 2.0f * ui);
  for (const glm::dvec3& p : line)
    if (const auto q = map.point(p))
      dl->AddCircleFilled(*q, 3.5f * ui, IM_COL32(120, 230, 255, 255));
  dl->PopClipRect();
}

void ProfileState::draw_section(const PickFrame& f, PanelMarks& marks, StatusLine& status) {
  if (!ImGui::CollapsingHeader("Profile", ImGuiTreeNodeFlags_DefaultOpen)) return;
  marks.mark("profile.header");
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  ImGui::TextWrapped("turn on, click the line's points on the cloud, give the width, Make");
  ImGui::PopStyleColor();
  bool on = active;
  if (ImGui::Checkbox("take clicked points", &on)) choose(on);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 7.0f);
  ImGui::InputDouble("width", &width, 0.0, 0.0, "%.3f");
  marks.mark("profile.width");
  ImGui::Text("%zu points", line.size());
  ImGui::SameLine();
  if (ImGui::SmallButton("undo") && !line.empty()) line.pop_back();
  ImGui::SameLine();
  if (ImGui::SmallButton("clear")) line.clear();
  if (ImGui::Button(job.busy() ? "Making..." : "Make profile")) make(f, status);
  marks.mark("profile.make");
  if (!profile) return;
  ImGui::SameLine();
  if (ImGui::Button(view.open ? "Hide view" : "Show view")) view.open = !view.open;
  ImGui::Text("%zu points, %.3f long", profile->cloud.size(), profile->length);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 10.0f);
  ImGui::InputText("##profile_export", export_path, sizeof export_path);
  ImGui::SameLine();
  if (export_job.busy()) {
    const uint64_t done = export_progress ? export_progress->done.load() : 0;
    ImGui::Text("writing %llu...", (unsigned long long)done);
    ImGui::SameLine();
    if (ImGui::SmallButton("cancel") && export_progress) export_progress->cancel = true;
  } else if (ImGui::Button("Export")) {
    export_to(export_path, status);
  }
}

ProfileSpan ProfileState::span() const {
  if (!profile || view.pick_count < 2) return {};
  const PickResult& a = view.picks[0];
  const PickResult& b = view.picks[1];
  return profile_span(profile->station[a.index], a.world.z, profile->station[b.index], b.world.z);
}

std::string ProfileState::pick_text(int i) const {
  if (!profile || !world || i >= view.pick_count) return "";
  const PickResult& r = view.picks[i];
  const Float3& f = world->positions[r.index];
  const glm::dvec3 w = world->origin + glm::dvec3(f.x, f.y, f.z);
  char text[320];
  std::snprintf(text, sizeof text,
                "%c: station %.3f, elevation %.3f, offset %.3f; at %.3f, %.3f, %.3f",
                i == 0 ? 'A' : 'B', profile->station[r.index], r.world.z, profile->offset[r.index],
                w.x, w.y, w.z);
  return text;
}

}  // namespace pr
