// The viewer window from Python: the program's viewer (app/viewer) run whole, from its window's
// creation to its teardown, on a thread of its own (SDL keeps a window on the thread that made
// it), driven from Python's threads through its requests (viewer.h): files or points to show
// next, clicks, screenshots, a close; the picks and measurements read back.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bindings.h"
#include "cloud_arrays.h"
#include "engine/io/base/io_common.h"
#include "engine/measure.h"
#include "engine/pick.h"
#include "engine/point_cloud.h"
#include "options.h"
#include "viewer/viewer.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace pr::py {

namespace {

/// The points as the viewer's cloud, as render() takes them (cloud_arrays.h): positions of any
/// dtype and strides as floats about the origin the file readers choose (no float64 copy first),
/// the attributes of read()'s dict, colors as given (alpha not drawn); white without colors.
PointCloud cloud_from_arrays(const AnyArray& xyz, const std::optional<AnyArray>& rgb,
                             const nb::dict& attributes) {
  check_positions(xyz, "points");
  if (on_device(xyz))
    throw nb::value_error(
        "points: view() takes host arrays (copy device arrays to the host first)");
  PointCloud c;
  c.name = "points";
  {
    nb::gil_scoped_release unlocked;
    positions_from_array(xyz, c);
    c.colors.assign(c.size(), rgba(255, 255, 255));
  }
  attributes_from_dict(attributes, c);
  if (rgb) colors_from_array(*rgb, c, "colors");
  return c;
}

[[noreturn]] void raise_os_error(const std::string& message) {
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw nb::python_error();
}

/// The viewer keeps SDL's video subsystem and Dear ImGui's context process-wide: one window at a
/// time.
std::atomic<bool> g_window_open{false};

/// One viewer window on its own thread.
class ViewHandle {
 public:
  /// Opens the window with the command line's `args` (files and viewer options), or on the
  /// points `xyz` (with `rgb`) in place of the files; raises with the reason when the arguments
  /// are bad or no window can be made.
  ViewHandle(const std::vector<std::string>& args, std::optional<AnyArray> xyz,
             std::optional<AnyArray> rgb, const nb::dict& attributes) {
    std::string error;
    if (parse_arguments(args, options_, &error) != 0) throw nb::value_error(error.c_str());
    std::unique_ptr<PointCloud> first;
    if (xyz) first = std::make_unique<PointCloud>(cloud_from_arrays(*xyz, rgb, attributes));
    if (g_window_open.exchange(true)) {
      PyErr_SetString(PyExc_RuntimeError,
                      "view: a viewer window is open already (close() or wait() it first)");
      throw nb::python_error();
    }
    {
      nb::gil_scoped_release unlocked;
      thread_ = std::thread([this, cloud = std::move(first)]() mutable { run(std::move(cloud)); });
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
    if (!thread_.joinable()) return;
    with_viewer([](Viewer& v) { v.request_close(); });
    thread_.join();
  }

  /// Shows `paths` in place of the cloud on screen (read in the background, as Open does).
  void open(const std::vector<std::string>& paths) {
    if (!with_viewer([&](Viewer& v) { v.request_open(paths); }))
      raise_os_error("view: the window is closed");
  }

  /// Shows the points in place of the cloud on screen, framed unless `keep_view`.
  void set_points(const AnyArray& xyz, std::optional<AnyArray> rgb, const nb::dict& attributes,
                  bool keep_view) {
    PointCloud cloud = cloud_from_arrays(xyz, rgb, attributes);
    if (!with_viewer([&](Viewer& v) { v.set_cloud(std::move(cloud), keep_view); }))
      raise_os_error("view: the window is closed");
  }

  /// A left click at window pixel (x, y) as a user makes one: a pick on the image, or a vertex
  /// of the measurement tool chosen.
  void click(int x, int y) {
    if (!with_viewer([&](Viewer& v) { v.click(x, y); }))
      raise_os_error("view: the window is closed");
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
        struct Shot {
          bool done = false;
          std::string error;
        };
        auto shot = std::make_shared<Shot>();
        viewer_->request_screenshot(path, [this, shot](const std::string& why) {
          {
            std::lock_guard<std::mutex> done_lock(mutex_);
            shot->done = true;
            shot->error = why;
          }
          changed_.notify_all();
        });
        changed_.wait(lock, [&] { return shot->done || state_ != State::kRunning; });
        error = shot->done ? shot->error : "view: the window closed before " + path + " was saved";
      }
    }
    if (!error.empty()) raise_os_error(error);
  }

  void close() {
    with_viewer([](Viewer& v) { v.request_close(); });
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
  uint64_t points() { return shown().points; }

  /// The picked points (0 to 2) as dicts.
  nb::list picks() {
    nb::list out;
    for (const PickResult& p : shown().picks) {
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
    nb::list out;
    for (const Measurement& m : shown().measurements) {
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

  /// Calls f(viewer) while the window runs (the viewer stays while the lock is held); false
  /// when it does not.
  bool with_viewer(const std::function<void(Viewer&)>& f) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_ != State::kRunning) return false;
    f(*viewer_);
    return true;
  }

  /// What the window shows, or showed last once closed.
  Viewer::Shown shown() {
    std::lock_guard<std::mutex> lock(mutex_);
    return viewer_ ? viewer_->shown() : last_shown_;
  }

  void set_state(State s, Viewer* viewer) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (viewer_ && !viewer) last_shown_ = viewer_->shown();
      viewer_ = viewer;
      state_ = s;
    }
    changed_.notify_all();
  }

  void run_window(std::unique_ptr<PointCloud> first) {
    Viewer v(options_);
    if (first) v.set_cloud(std::move(*first));
    std::string error;
    if (!v.open(&error)) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        error_ = error;
      }
      set_state(State::kFailed, nullptr);
      return;
    }
    set_state(State::kRunning, &v);
    const int rc = v.run();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      exit_code_ = rc;
    }
    set_state(State::kClosed, nullptr);
  }

  /// The window from its creation to its teardown; then another may open.
  void run(std::unique_ptr<PointCloud> first) {
    run_window(std::move(first));
    g_window_open = false;
  }

  Options options_;
  std::thread thread_;
  std::mutex mutex_;
  std::condition_variable changed_;
  State state_ = State::kStarting;
  Viewer* viewer_ = nullptr;  // while kRunning
  Viewer::Shown last_shown_;
  std::string error_;
  int exit_code_ = 0;
};

}  // namespace

void bind_view(nb::module_& m) {
  nb::class_<ViewHandle>(m, "_ViewHandle")
      .def(nb::init<const std::vector<std::string>&, std::optional<AnyArray>,
                    std::optional<AnyArray>, const nb::dict&>(),
           "args"_a, "xyz"_a = nb::none(), "rgb"_a = nb::none(), "attributes"_a = nb::dict())
      .def("open", &ViewHandle::open, "paths"_a)
      .def("set_points", &ViewHandle::set_points, "xyz"_a, "rgb"_a = nb::none(),
           "attributes"_a = nb::dict(), "keep_view"_a = false)
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
