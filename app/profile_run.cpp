// --profile: loads the cloud, extracts the corridor, draws and writes what was asked, and prints
// "profile points=N length=L width=W extract_ms=T [draw_ms=T]".
#include "profile_run.h"

#include <algorithm>
#include <cstdio>

#include "engine/frame_stats.h"
#include "engine/image.h"
#include "engine/io/corridor.h"
#include "measure_export.h"
#include "profile_export.h"
#include "startup.h"
#include "streaming.h"

namespace pr {

namespace {

/// Draws the profile view into `img` with the --mode renderer: three frames, the fastest one's
/// time in `draw_ms`. False after the message.
bool draw_profile(const Options& o, const ProfileCloud& p, Image& img, double* draw_ms) {
  const std::string mode = o.mode.value_or("cpu");
  auto renderer = make_headless_renderer(o);
  if (!renderer) return false;
  std::string why;
  if (!renderer->set_cloud(p.cloud, &why)) {
    std::fprintf(stderr, "pointraster: %s renderer refused the profile: %s\n", mode.c_str(),
                 why.c_str());
    return false;
  }
  RenderSettings rs;
  rs.width = o.width.value_or(1280);
  rs.height = o.height.value_or(720);
  rs.point_size = o.point_size;
  rs.background = rgba(16, 18, 24);
  const Camera cam = profile_camera(p, double(rs.width) / double(rs.height));
  *draw_ms = 1e300;
  for (int f = 0; f < 3; ++f) {
    FrameStats st;
    if (!renderer->render(cam, rs, img, st, &why)) {
      std::fprintf(stderr, "pointraster: the profile's frame failed: %s\n", why.c_str());
      return false;
    }
    *draw_ms = std::min(*draw_ms, st.total_ms);
  }
  return true;
}

/// A survey's corridor at full depth within the point budget (engine/io/corridor.h), with a
/// "corridor ..." line; 0 or the exit code after the message.
int read_survey_corridor(const Options& o, PointCloud* cloud, double* read_ms) {
  std::string why;
  if (up_axis_for(o, true) != UpAxis::kZ) {
    std::fprintf(stderr, "pointraster: --profile of a streamed survey needs --up z\n");
    return 2;
  }
  CorridorRequest r;
  for (const glm::dvec3& p : o.profile_line) r.line.emplace_back(p.x, p.y);
  r.half_width = *o.profile_width * 0.5;
  r.point_budget = stream_options(o, o.mode.value_or("cpu") == "gpu").point_budget;
  r.threads = o.threads;
  r.http = http_options(o);
  CorridorStats st;
  const Stopwatch clock;
  if (!read_corridor(o.files, r, cloud, &st, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  *read_ms = clock.ms();
  std::printf("corridor tiles=%llu nodes=%llu points=%llu depth=%d complete=%d read_ms=%.1f\n",
              (unsigned long long)st.tiles, (unsigned long long)st.nodes,
              (unsigned long long)st.points, st.depth, st.complete ? 1 : 0, *read_ms);
  return 0;
}

}  // namespace

int run_profile(const Options& o) {
  Startup s;
  std::string why;
  double read_ms = 0.0;
  if (streams(o.files, o.stream, &why)) {
    // A survey is not read whole: only the octree nodes near the line, every level of them.
    if (const int rc = read_survey_corridor(o, &s.cloud, &read_ms); rc != 0) return rc;
  } else if (!why.empty() || !build_startup(o, s, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 1;
  }
  const UpAxis up = up_axis_for(o, s.scene.empty());
  if (!apply_color_options(o, s.cloud, up, nullptr, nullptr, &why)) {
    std::fprintf(stderr, "pointraster: %s\n", why.c_str());
    return 2;
  }
  ProfileCloud p;
  const Stopwatch extract;
  if (!extract_profile(s.cloud, Profile{o.profile_line, *o.profile_width}, up, &p, &why,
                       o.threads)) {
    std::fprintf(stderr, "pointraster: --%s\n", why.c_str());
    return 2;
  }
  const double extract_ms = extract.ms();
  double draw_ms = -1.0;
  if (!o.profile_image.empty()) {
    Image img;
    if (!draw_profile(o, p, img, &draw_ms)) return 1;
    if (!write_png(o.profile_image, img, &why)) {
      std::fprintf(stderr, "pointraster: --profile-image %s\n", why.c_str());
      return 1;
    }
  }
  if (!o.profile_out.empty() && !write_profile(o.profile_out, s.cloud, p, &why)) {
    std::fprintf(stderr, "pointraster: --profile-out %s\n", why.c_str());
    return 1;
  }
  std::printf("profile points=%zu length=%s width=%s extract_ms=%.1f total_ms=%.1f", p.cloud.size(),
              format_number(p.length).c_str(), format_number(p.width).c_str(), extract_ms,
              read_ms + extract_ms);
  if (draw_ms >= 0.0) std::printf(" draw_ms=%.3f", draw_ms);
  std::printf("\n");
  if (!o.profile_image.empty()) std::printf("wrote %s\n", o.profile_image.c_str());
  if (!o.profile_out.empty()) std::printf("wrote %s\n", o.profile_out.c_str());
  return 0;
}

}  // namespace pr
