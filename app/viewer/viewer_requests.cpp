// The viewer's requests from other threads (viewer.h): queued under ViewerRequests' mutex by the
// public functions, taken by the frame loop (the input to show next, the clicks, the close and
// the screenshots), and what the window shows copied back for the callers to read.
#include "viewer/viewer_requests.h"

#include <SDL.h>

#include "engine/image.h"
#include "viewer/viewer_impl.h"

namespace pr {

namespace {

void push_button(bool down, int x, int y) {
  SDL_Event e{};
  e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
  e.button.button = SDL_BUTTON_LEFT;
  e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
  e.button.clicks = 1;
  e.button.x = x;
  e.button.y = y;
  SDL_PushEvent(&e);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// The public requests, from any thread

void Viewer::set_cloud(PointCloud cloud, bool keep_view) {
  auto input = std::make_unique<ViewerRequests::Input>();
  input->cloud = std::make_unique<PointCloud>(std::move(cloud));
  input->keep_view = keep_view;
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  impl_->requests.input = std::move(input);
}

void Viewer::request_open(std::vector<std::string> paths) {
  auto input = std::make_unique<ViewerRequests::Input>();
  input->paths = std::move(paths);
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  impl_->requests.input = std::move(input);
}

void Viewer::click(int x, int y) {
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  impl_->requests.clicks.emplace_back(x, y);
}

void Viewer::request_screenshot(std::string path, ScreenshotDone done) {
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  impl_->requests.screenshots.push_back({std::move(path), std::move(done)});
}

void Viewer::request_close() {
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  impl_->requests.close = true;
}

Viewer::Shown Viewer::shown() const {
  std::lock_guard<std::mutex> lock(impl_->requests.mutex);
  return impl_->requests.shown;
}

// ---------------------------------------------------------------------------------------------
// The frame loop's side

void Viewer::Impl::take_requests() {
  ViewerRequests& q = requests;
  std::unique_ptr<ViewerRequests::Input> input;
  bool has_click = false;
  std::pair<int, int> at;
  {
    std::lock_guard<std::mutex> lock(q.mutex);
    // The next input waits for the cloud or survey being made, as the Open box would refuse it.
    if (q.input && !cloud.job.busy() && !stream.opening()) input = std::move(q.input);
    if (!q.clicks.empty()) {
      has_click = true;
      at = q.clicks.front();
    }
    if (q.close) quit = true;
  }
  if (input) start_input(*input);
  if (has_click) step_click(at.first, at.second);
}

void Viewer::Impl::start_input(ViewerRequests::Input& input) {
  if (!input.cloud) {
    start_open(input.paths);
    return;
  }
  cloud.job.set_color_request(colors.request_for_jobs(opt, view.files_up));
  cloud.start_cloud(std::move(input.cloud), input.keep_view, status);
}

void Viewer::Impl::step_click(int x, int y) {
  ViewerRequests& q = requests;
  if (q.click_stage == 0) {
    SDL_WarpMouseInWindow(win.window, x, y);
    q.click_stage = 1;
    q.click_frame = frame;
  } else if (q.click_stage == 1 && frame >= q.click_frame + 2) {
    // Two frames on, the panel and the image have seen where the pointer is.
    push_button(true, x, y);
    q.click_stage = 2;
  } else if (q.click_stage == 2) {
    push_button(false, x, y);
    q.click_stage = 0;
    std::lock_guard<std::mutex> lock(q.mutex);
    q.clicks.pop_front();
  }
}

void Viewer::Impl::publish_shown() {
  Viewer::Shown s;
  s.points = cloud.point_total();
  s.picks.assign(picks.points, picks.points + picks.count);
  for (const MeasureState::Item& it : measures.items) s.measurements.push_back(it.m);
  std::lock_guard<std::mutex> lock(requests.mutex);
  requests.shown = std::move(s);
}

void Viewer::Impl::write_requested_screenshots() {
  std::vector<ViewerRequests::Screenshot> shots;
  {
    std::lock_guard<std::mutex> lock(requests.mutex);
    if (requests.screenshots.empty() || !have_image) return;
    shots.swap(requests.screenshots);
  }
  std::vector<uint32_t> px;
  const Display& d = *win.display;
  std::string error;
  if (!d.read_image(px)) {
    error = "screenshot: the image on screen could not be read";
  } else {
    for (uint32_t& p : px) p |= 0xff000000u;  // opaque, as the screenshot key saves it
  }
  // Each caller learns how its own file went; the callbacks run outside the lock.
  for (ViewerRequests::Screenshot& s : shots) {
    std::string why = error;
    if (why.empty()) write_png_rgba(s.path, px.data(), d.width(), d.height(), &why);
    if (s.done) s.done(why);
  }
}

}  // namespace pr
