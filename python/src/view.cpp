// The viewer window from Python: the program's viewer (app/viewer) run whole, from its window's
// creation to its teardown, on a thread of its own (SDL keeps a window on the thread that made
// it), driven through its per-frame hook: files to show next, the picks and measurements read
// back, a request to close.
#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <SDL.h>

#include "bindings.h"
#include "engine/image.h"
#include "engine/measure.h"
#include "engine/pick.h"
#include "options.h"
#include "viewer/viewer_testing.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace pr::py {

namespace {

/// The viewer keeps SDL's video subsystem and Dear ImGui's context process-wide: one window at a
/// time.
std::atomic<bool> g_window_open{false};

/// One viewer window on its own thread.
class ViewHandle {
 public:
  /// Opens the window with the command line's `args` (files and viewer options); raises with
  /// the reason when the arguments are bad or no window can be made.
  explicit ViewHandle(const std::vector<std::string>& args) {
    std::string error;
    if (parse_arguments(args, options_, &error) != 0) throw nb::value_error(error.c_str());
    if (g_window_open.exchange(true)) {
      PyErr_SetString(PyExc_RuntimeError,
                      "view: a viewer window is open already (close() or wait() it first)");
      throw nb::python_error();
    }
    {
      nb::gil_scoped_release unlocked;
      thread_ = std::thread([this] { run(); });
      std::unique_lock<std::mutex> lock(mutex_);
      changed_.wait(lock, [this] { return state_ != State::kStarting; });
    }
    if (state_ == State::kFailed) {
      thread_.join();
      PyErr_SetString(PyExc_RuntimeError, error_.c_str());
      throw nb::python_error();
    }
  }

  ~ViewHandle() {
    if (thread_.joinable()) {
      quit_ = true;
      thread_.join();
    }
  }

  /// Shows `paths` in place of the cloud on screen (read in the background, as Open does).
  void open(const std::vector<std::string>& paths) {
    std::lock_guard<std::mutex> lock(mutex_);
    pending_ = paths;
    has_pending_ = true;
  }

  /// A left click at window pixel (x, y) as a user makes one (the pointer moved there, pressed,
  /// released): a pick on the image, or a vertex of the measurement tool chosen.
  void click(int x, int y) {
    std::lock_guard<std::mutex> lock(mutex_);
    clicks_.push_back({x, y});
  }

  /// The image on screen (the view drawn, without the panel) written to `path` as PNG, at the
  /// next frame that has one.
  void screenshot(const std::string& path) {
    std::string error;
    {
      nb::gil_scoped_release unlocked;
      std::unique_lock<std::mutex> lock(mutex_);
      if (state_ != State::kRunning) {
        error = "view: the window is closed";
      } else {
        shot_path_ = path;
        shot_done_ = false;
        changed_.wait(lock, [this] { return shot_done_ || state_ != State::kRunning; });
        error = shot_done_ ? shot_error_ : "view: the window closed before " + path + " was saved";
        shot_path_.clear();
      }
    }
    if (!error.empty()) {
      PyErr_SetString(PyExc_OSError, error.c_str());
      throw nb::python_error();
    }
  }

  void close() {
    quit_ = true;
    wait();
  }

  /// Waits for the window to close; the viewer's exit code (0, or 1 when a scripted run failed).
  /// Ctrl-C (a signal Python turns into KeyboardInterrupt) ends the wait, the window open.
  int wait() {
    if (!thread_.joinable()) return exit_code_;
    for (bool closed = false; !closed;) {
      {
        nb::gil_scoped_release unlocked;
        std::unique_lock<std::mutex> lock(mutex_);
        closed = changed_.wait_for(lock, std::chrono::milliseconds(100),
                                   [this] { return state_ == State::kClosed; });
      }
      if (!closed && PyErr_CheckSignals() != 0) throw nb::python_error();
    }
    nb::gil_scoped_release unlocked;
    thread_.join();
    return exit_code_;
  }

  bool running() {
    std::lock_guard<std::mutex> lock(mutex_);
    return state_ == State::kRunning;
  }

  /// Points of the cloud on screen (0 until the first is ready).
  uint64_t points() {
    std::lock_guard<std::mutex> lock(mutex_);
    return points_;
  }

  /// The picked points (0 to 2) as dicts.
  nb::list picks() {
    std::vector<PickResult> picks;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      picks = picks_;
    }
    nb::list out;
    for (const PickResult& p : picks) {
      nb::dict d;
      d["index"] = p.index;
      d["xyz"] = nb::make_tuple(p.world.x, p.world.y, p.world.z);
      d["pixel"] = nb::make_tuple(p.x, p.y);
      if (p.has_intensity) d["intensity"] = p.intensity;
      if (p.has_class) d["classification"] = p.classification;
      out.append(d);
    }
    return out;
  }

  /// The measurements of the panel's list: kind, points and named values.
  nb::list measurements() {
    std::vector<Measurement> ms;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      ms = measurements_;
    }
    nb::list out;
    for (const Measurement& m : ms) {
      nb::dict d;
      d["kind"] = measure_kind_name(m.kind);
      nb::list points;
      for (const glm::dvec3& p : m.points) points.append(nb::make_tuple(p.x, p.y, p.z));
      d["points"] = points;
      nb::dict values;
      for (const MeasureValue& v : m.values) values[v.name.c_str()] = v.v;
      d["values"] = values;
      d["summary"] = measurement_summary(m);
      out.append(d);
    }
    return out;
  }

 private:
  enum class State { kStarting, kRunning, kFailed, kClosed };

  void set_state(State s) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      state_ = s;
    }
    changed_.notify_all();
  }

  /// The next step of the first click waiting: the pointer moved to it; two frames later (the
  /// panel sees where it is) the button pressed; the frame after, released.
  void click_step(ViewerTesting& v, int frame) {
    if (clicks_.empty()) return;
    const auto [x, y] = clicks_.front();
    if (click_stage_ == 0) {
      SDL_WarpMouseInWindow(v.window(), x, y);
      click_stage_ = 1;
      click_frame_ = frame;
    } else if (click_stage_ == 1 && frame >= click_frame_ + 2) {
      push_button(true, x, y);
      click_stage_ = 2;
    } else if (click_stage_ == 2) {
      push_button(false, x, y);
      click_stage_ = 0;
      clicks_.pop_front();
    }
  }

  static void push_button(bool down, int x, int y) {
    SDL_Event e{};
    e.type = down ? SDL_MOUSEBUTTONDOWN : SDL_MOUSEBUTTONUP;
    e.button.button = SDL_BUTTON_LEFT;
    e.button.state = down ? SDL_PRESSED : SDL_RELEASED;
    e.button.clicks = 1;
    e.button.x = x;
    e.button.y = y;
    SDL_PushEvent(&e);
  }

  /// The screenshot asked for, once the window has an image.
  void save_image(ViewerTesting& v) {
    std::string path;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (shot_path_.empty() || shot_done_) return;
      path = shot_path_;
    }
    std::vector<uint32_t> pixels;
    int w = 0, h = 0;
    if (!v.read_image(pixels, w, h)) return;  // none drawn yet: the next frame's
    std::string error;
    write_png_rgba(path, pixels.data(), w, h, &error);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      shot_error_ = error;
      shot_done_ = true;
    }
    changed_.notify_all();
  }

  /// Once a frame on the viewer's thread: the files asked for, the clicks, the state read back,
  /// the close.
  void on_frame(ViewerTesting& v, int frame) {
    std::vector<std::string> paths;
    bool open_now = false;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      click_step(v, frame);
      if (has_pending_) {
        paths.swap(pending_);
        has_pending_ = false;
        open_now = true;
      }
      picks_.clear();
      for (int k = 0; k < v.pick_count(); ++k) picks_.push_back(v.pick(k));
      measurements_ = v.measurements();
      points_ = v.cloud_points();
    }
    if (open_now) v.open_files(paths);
    save_image(v);
    if (quit_.load()) v.request_quit();
  }

  void run_window() {
    ViewerTesting v(options_);
    if (!v.open(&error_)) {
      set_state(State::kFailed);
      return;
    }
    set_state(State::kRunning);
    ViewerHooks hooks;
    hooks.on_frame = [this](int frame, ViewerTesting& viewer) { on_frame(viewer, frame); };
    exit_code_ = v.run(&hooks);
    set_state(State::kClosed);
  }

  /// The window from its creation to its teardown; then another may open.
  void run() {
    run_window();
    g_window_open = false;
  }

  Options options_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::kStarting;
  std::string error_;
  int exit_code_ = 0;
  std::atomic<bool> quit_{false};
  std::vector<std::string> pending_;
  bool has_pending_ = false;
  std::vector<PickResult> picks_;
  std::vector<Measurement> measurements_;
  uint64_t points_ = 0;
  std::string shot_path_, shot_error_;  // a screenshot asked for, and how it went
  bool shot_done_ = false;
  std::deque<std::pair<int, int>> clicks_;
  int click_stage_ = 0;  // of the first click: 0 move the pointer, 1 press, 2 release
  int click_frame_ = 0;  // when the pointer moved
};

}  // namespace

void bind_view(nb::module_& m) {
  nb::class_<ViewHandle>(m, "_ViewHandle")
      .def(nb::init<const std::vector<std::string>&>(), "args"_a)
      .def("open", &ViewHandle::open, "paths"_a)
      .def("close", &ViewHandle::close)
      .def("wait", &ViewHandle::wait)
      .def("running", &ViewHandle::running)
      .def("points", &ViewHandle::points)
      .def("click", &ViewHandle::click, "x"_a, "y"_a)
      .def("screenshot", &ViewHandle::screenshot, "path"_a)
      .def("picks", &ViewHandle::picks)
      .def("measurements", &ViewHandle::measurements);
}

}  // namespace pr::py
