// The Camera path section's Render video (video_job.h).
#include "viewer/video_job.h"

#include <imgui.h>

#include <algorithm>
#include <cstdio>

#include "viewer/panel_widgets.h"

namespace pr {

bool VideoJob::start(const CameraPath& p, const Camera& base, const RenderSettings& look,
                     StatusLine& status) {
  if (busy()) {
    status.set("a video is being rendered already", true);
    return false;
  }
  VideoRequest r;
  r.out = path;
  r.width = width;
  r.height = height;
  r.fps = fps;
  r.path = p;
  r.base = base;
  r.settings = look;
  auto v = std::make_unique<PathVideo>();
  std::string why;
  if (video_format(r.out) == VideoFormat::kNone) {
    status.set("Render video: '" + r.out +
                   "' is neither .mp4 nor PNG frames (a folder DIR/, NAME_%05d.png, NAME.png)",
               true);
    return false;
  }
  if (!v->start(r, &why)) {
    status.set("Render video: " + why, true);
    return false;
  }
  out = r.out;
  video = std::move(v);
  clock.reset();
  char s[256];
  std::snprintf(s, sizeof s, "rendering %s: %d frames at %dx%d, %d fps (%s)", out.c_str(),
                video->frames(), video->settings().width, video->settings().height, fps,
                video->writer().description().c_str());
  status.set(s, false);
  return true;
}

VideoJob::~VideoJob() {
  if (closer_.joinable()) closer_.join();
  if (video) video->cancel();
}

void VideoJob::start_finish() {
  closed_ = false;
  closer_ = std::thread([this] {
    finish_ok_ = video->finish(&finish_error_);
    closed_ = true;
  });
}

void VideoJob::end_finish(StatusLine& status) {
  closer_.join();
  const int frames = video->frames();
  video.reset();
  if (!finish_ok_) {
    status.set("Render video: " + finish_error_, true);
    return;
  }
  char s[256];
  std::snprintf(s, sizeof s, "wrote %s: %d frames (%.2f s of video) in %.1f s", out.c_str(), frames,
                double(frames) / fps, clock.ms() * 1e-3);
  status.set(s, false);
}

void VideoJob::update(const DrawFrame& draw, StatusLine& status) {
  if (!busy()) return;
  if (finishing()) {
    if (closed_.load()) end_finish(status);
    return;
  }
  const Stopwatch frame;
  std::string why;
  do {
    if (!video->ready()) break;  // the encoder is behind: the window's frame goes on
    const int before = video->next();
    if (!video->step(draw, &why)) {
      video->cancel();
      video.reset();
      status.set("Render video: " + why + ": " + out + " not written", true);
      return;
    }
    if (video->next() == before) break;  // a survey still reading this frame's view
  } while (!video->done() && frame.ms() < budget_ms);
  if (video->done()) start_finish();
}

void VideoJob::cancel(StatusLine& status) {
  if (!busy()) return;
  if (finishing()) {  // every frame is drawn: it is written in a moment
    end_finish(status);
    return;
  }
  video->cancel();
  video.reset();
  status.set("Render video cancelled: " + out + " not written", false);
}

bool VideoJob::draw_rows(bool can_render, float ui_scale, StatusLine& status) {
  if (busy()) {
    char label[96];
    if (finishing())
      std::snprintf(label, sizeof label, "writing the last frames");
    else
      std::snprintf(label, sizeof label, "frame %d / %d", video->next(), video->frames());
    ImGui::ProgressBar(float(video->next()) / float(std::max(video->frames(), 1)),
                       ImVec2(-80 * ui_scale, 0), label);
    ImGui::SameLine();
    if (ImGui::Button("Cancel##video")) cancel(status);
    return false;
  }
  ImGui::InputText("file##video", path, sizeof path);
  tooltip(
      "NAME.mp4: H.264 video. PNG frames: a folder DIR/, NAME_%05d.png or NAME.png\n"
      "(frames numbered from 0). Written beside the name first, moved into place when done.");
  int size[2] = {width, height};
  if (ImGui::InputInt2("size##video", size)) {
    width = std::clamp(size[0], 2, 16384);
    height = std::clamp(size[1], 2, 16384);
  }
  tooltip("An MP4's sides are rounded down to even numbers (H.264 in yuv420p needs them).");
  if (ImGui::InputInt("fps##video", &fps)) fps = std::clamp(fps, 1, 120);
  ImGui::BeginDisabled(!can_render);
  const bool pressed = ImGui::Button("Render video");
  ImGui::EndDisabled();
  if (!can_render) {
    ImGui::SameLine();
    ImGui::TextDisabled("(2 keys and a cloud needed)");
  }
  return pressed;
}

}  // namespace pr
