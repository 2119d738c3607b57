// read(), info() and convert() of the Python module: the engine's readers, the streaming room's
// region reads (COPC files, URLs, .vpc surveys by box and level of detail), --info's facts and
// --convert, with the GIL released while the engine works.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <functional>
#include <memory>
#include <new>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "bindings.h"
#include "convert.h"
#include "engine/io/copc.h"
#include "engine/io/corridor.h"
#include "engine/io/ept.h"
#include "engine/io/load.h"
#include "engine/io/open_byte_source.h"
#include "info.h"
#include "options.h"

namespace nb = nanobind;
using namespace nb::literals;

namespace pr::py {

namespace {

/// A vector handed to NumPy without a copy: the array owns it through a capsule.
template <class T, class V>
nb::object numpy_array(V&& values, size_t rows, size_t cols) {
  auto* held = new V(std::move(values));
  nb::capsule owner(held, [](void* p) noexcept { delete static_cast<V*>(p); });
  if (cols == 0)
    return nb::ndarray<nb::numpy, T>(reinterpret_cast<T*>(held->data()), {rows}, owner).cast();
  return nb::ndarray<nb::numpy, T>(reinterpret_cast<T*>(held->data()), {rows, cols}, owner).cast();
}

/// A JSON text (--info --json's) as Python objects.
nb::object json_object(const std::string& text) {
  return nb::module_::import_("json").attr("loads")(text);
}

/// The one-line message as Python's exception: ValueError for a bad argument, else OSError
/// (a file or URL that cannot be read or written).
[[noreturn]] void raise_error(const std::string& message, bool argument = false) {
  if (argument) throw nb::value_error(message.c_str());
  PyErr_SetString(PyExc_OSError, message.c_str());
  throw nb::python_error();
}

/// A survey of tiles listed, never read as one file: a .vpc, or a folder of COPC files.
bool is_survey(const std::string& path) {
  const FormatEntry* format = find_format_by_path(path);
  std::error_code ec;
  return (format && format->survey()) || std::filesystem::is_directory(path, ec);
}

/// Whether `path` is read by the streaming room's tile readers: a URL, a survey or a COPC file.
bool streamable(const std::string& path) {
  if (is_url(path) || is_survey(path)) return true;
  const FormatEntry* format = find_format_by_path(path);
  if (!format || format->format != FileFormat::kLaz) return false;
  std::string ignored;
  std::unique_ptr<ByteSource> source = open_byte_source(path, &ignored);
  return source && CopcFile::open(std::move(source), &ignored) != nullptr;
}

struct ReadRequest {
  std::string path;
  uint64_t max_points = 0;
  std::optional<std::array<double, 6>> bounds;
  double resolution = 0.0;
};

bool inside(const std::array<double, 6>& b, double x, double y, double z) {
  return x >= b[0] && y >= b[1] && z >= b[2] && x <= b[3] && y <= b[4] && z <= b[5];
}

/// The points `keep` names, in their order, of every array of `c`.
void keep_points(PointCloud& c, const std::vector<size_t>& keep) {
  auto pick = [&keep](auto& v) {
    if (v.empty()) return;
    for (size_t k = 0; k < keep.size(); ++k) v[k] = v[keep[k]];
    v.resize(keep.size());
  };
  pick(c.positions);
  pick(c.colors);
  pick(c.file_colors);
  pick(c.intensity);
  pick(c.classification);
  pick(c.returns);
  pick(c.point_source);
  pick(c.gps_time);
  for (ScalarField& f : c.fields) pick(f.values);
}

/// The box of the request, then at most max_points of what is left (an even stride, as the
/// readers keep).
void select_points(PointCloud& c, const ReadRequest& r) {
  std::vector<size_t> keep;
  if (r.bounds) {
    keep.reserve(c.size());
    for (size_t k = 0; k < c.size(); ++k) {
      const Float3& p = c.positions[k];
      if (inside(*r.bounds, c.origin.x + double(p.x), c.origin.y + double(p.y),
                 c.origin.z + double(p.z)))
        keep.push_back(k);
    }
  } else if (r.max_points && c.size() > r.max_points) {
    keep.resize(c.size());
    for (size_t k = 0; k < keep.size(); ++k) keep[k] = k;
  } else {
    return;
  }
  if (r.max_points && keep.size() > r.max_points) {
    std::vector<size_t> strided(r.max_points);
    for (size_t k = 0; k < strided.size(); ++k)
      strided[k] = keep[size_t(double(k) * double(keep.size()) / double(strided.size()))];
    keep.swap(strided);
  }
  keep_points(c, keep);
}

/// Reads what `r` asks into `cloud` and `report` (GIL released by the caller); `progress->cancel`
/// stops it.
bool read_cloud(const ReadRequest& r, PointCloud& cloud, FileReport& report, std::string* error,
                LoadProgress* progress) {
  const bool region = r.bounds || r.resolution > 0.0;
  const bool survey = is_survey(r.path);
  const bool ept = !ept_json_of(r.path).empty();
  if ((region || survey || is_url(r.path)) && (ept || streamable(r.path))) {
    report = describe_file(r.path, LoadOptions{});
    if (!report.ok && !survey) {
      *error = report.error;
      return false;
    }
    RegionRequest q;
    if (r.bounds) {
      const std::array<double, 6> b = *r.bounds;
      q.meets = [b](const Bounds& n) {
        return n.min.x <= b[3] && n.min.y <= b[4] && n.min.z <= b[5] && n.max.x >= b[0] &&
               n.max.y >= b[1] && n.max.z >= b[2];
      };
    }
    q.resolution = r.resolution;
    // Without a box, max_points bounds the levels read (whole levels from the root, as the
    // streaming room takes them); select_points() then keeps at most that many.
    if (!r.bounds) q.point_budget = r.max_points;
    if (!read_region({r.path}, q, &cloud, nullptr, error, &progress->cancel)) return false;
    select_points(cloud, r);
    if (!report.ok) {  // a folder, which --info does not describe: what was read of it
      report.info.file = r.path;
      report.info.format = "COPC folder";
      report.info.points = cloud.size();
      report.info.bounds = cloud.world_bounds();
      report.info.origin = cloud.origin;
    }
    return true;
  }
  if (r.resolution > 0.0) {
    *error = r.path + ": resolution needs a COPC file, an EPT dataset, a .vpc survey or a URL";
    return false;
  }
  LoadOptions options;
  if (!r.bounds) options.max_points = r.max_points;
  report.ok = load_point_cloud(r.path, cloud, &report.info, error, progress, &options);
  report.info.file = r.path;
  if (!report.ok) return false;
  select_points(cloud, r);
  return true;
}

/// `work` on a thread of its own while this one waits with the GIL released; Ctrl-C (Python's
/// signal check) sets `cancel` and raises KeyboardInterrupt once the work has stopped.
bool run_interruptible(const std::function<bool()>& work, std::atomic<bool>* cancel) {
  std::atomic<bool> finished{false};
  bool ok = false;
  std::thread worker([&] {
    ok = work();
    finished = true;
  });
  std::optional<nb::python_error> raised;
  while (!finished.load()) {
    {
      nb::gil_scoped_release unlocked;
      for (int k = 0; k < 10 && !finished.load(); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    if (!raised && PyErr_CheckSignals() != 0) {
      raised.emplace();
      *cancel = true;
    }
  }
  {
    nb::gil_scoped_release unlocked;
    worker.join();
  }
  if (raised) throw *raised;
  return ok;
}

/// The cloud as NumPy arrays: xyz (world, double), and each attribute the file has.
nb::dict cloud_dict(PointCloud& c, bool has_color) {
  const size_t n = c.size();
  nb::dict d;
  std::vector<double> xyz(n * 3);
  for (size_t k = 0; k < n; ++k) {
    const Float3& p = c.positions[k];
    xyz[3 * k] = c.origin.x + double(p.x);
    xyz[3 * k + 1] = c.origin.y + double(p.y);
    xyz[3 * k + 2] = c.origin.z + double(p.z);
  }
  d["xyz"] = numpy_array<double>(std::move(xyz), n, 3);
  if (has_color) {
    const PodVector<uint32_t>& colors = c.source_colors();
    std::vector<uint8_t> rgb(n * 3);
    for (size_t k = 0; k < n; ++k)
      for (int ch = 0; ch < 3; ++ch) rgb[3 * k + ch] = uint8_t(colors[k] >> (8 * ch));
    d["rgb"] = numpy_array<uint8_t>(std::move(rgb), n, 3);
  }
  if (!c.intensity.empty()) d["intensity"] = numpy_array<float>(std::move(c.intensity), n, 0);
  if (!c.classification.empty())
    d["classification"] = numpy_array<uint8_t>(std::move(c.classification), n, 0);
  if (!c.returns.empty()) {
    std::vector<uint8_t> number(n), count(n);
    for (size_t k = 0; k < n; ++k) {
      number[k] = uint8_t(return_number(c.returns[k]));
      count[k] = uint8_t(return_count(c.returns[k]));
    }
    d["return_number"] = numpy_array<uint8_t>(std::move(number), n, 0);
    d["number_of_returns"] = numpy_array<uint8_t>(std::move(count), n, 0);
  }
  if (!c.point_source.empty())
    d["point_source_id"] = numpy_array<uint16_t>(std::move(c.point_source), n, 0);
  if (!c.gps_time.empty()) d["gps_time"] = numpy_array<double>(std::move(c.gps_time), n, 0);
  nb::dict fields;
  for (ScalarField& f : c.fields)
    fields[f.name.c_str()] = numpy_array<float>(std::move(f.values), n, 0);
  d["fields"] = fields;
  return d;
}

nb::dict read(const std::string& path, uint64_t max_points,
              std::optional<std::vector<double>> bounds, std::optional<double> resolution) {
  ReadRequest r;
  r.path = path;
  r.max_points = max_points;
  if (bounds) {
    const std::vector<double>& b = *bounds;
    bool ok = b.size() == 6;
    for (size_t k = 0; ok && k < 6; ++k) ok = std::isfinite(b[k]);
    for (size_t k = 0; ok && k < 3; ++k) ok = b[k] <= b[k + 3];
    if (!ok)
      raise_error(
          "bounds: 6 finite numbers (xmin, ymin, zmin, xmax, ymax, zmax), each min at "
          "most its max",
          true);
    r.bounds = std::array<double, 6>{b[0], b[1], b[2], b[3], b[4], b[5]};
  }
  if (resolution) {
    if (!(*resolution > 0.0) || !std::isfinite(*resolution))
      raise_error("resolution: a point spacing above 0", true);
    r.resolution = *resolution;
  }
  PointCloud cloud;
  FileReport report;
  std::string error;
  LoadProgress progress;
  auto work = [&] {
    try {
      return read_cloud(r, cloud, report, &error, &progress);
    } catch (const std::bad_alloc&) {
      error = path + ": out of memory while reading";
    } catch (const std::exception& e) {
      error = path + ": " + e.what();
    }
    return false;
  };
  if (!run_interruptible(work, &progress.cancel)) raise_error(error);
  // A survey's tiles are not opened for its description: its cloud keeps the tiles' colors.
  const bool has_color = report.info.has_color || is_survey(path);
  nb::dict d = cloud_dict(cloud, has_color);
  report.ok = true;
  d["info"] = json_object(info_json(report));
  return d;
}

nb::object info(const std::string& path) {
  FileReport report;
  {
    nb::gil_scoped_release unlocked;
    report = describe_file(path, LoadOptions{});
  }
  if (!report.ok) raise_error(report.error);
  return json_object(info_json(report));
}

nb::dict result_dict(const ConvertResult& r) {
  nb::dict d;
  d["points"] = r.points;
  d["point_format"] = r.point_format;
  d["extra_bytes"] = r.extra_bytes;
  d["scale"] = nb::make_tuple(r.scale.x, r.scale.y, r.scale.z);
  d["offset"] = nb::make_tuple(r.offset.x, r.offset.y, r.offset.z);
  d["nodes"] = r.nodes;
  d["levels"] = r.levels;
  d["bytes"] = r.bytes;
  d["messages"] = r.messages;
  return d;
}

/// The share of the whole conversion done: its four stages of equal weight, each by its points.
double convert_fraction(const ConvertProgress& p) {
  const int stage = p.stage.load();
  if (stage >= ConvertProgress::kDone) return 1.0;
  const uint64_t total = p.total.load(), done = p.done.load();
  const double within = total ? std::min(1.0, double(done) / double(total)) : 0.0;
  return (double(stage) + within) / double(ConvertProgress::kDone);
}

/// --convert with `args` (the command line's words): the conversion on a thread of its own while
/// this one calls `progress` (GIL held) with the fraction done, 0 first, before the conversion
/// starts; False from it or an exception cancels the conversion, leaving no output.
nb::dict convert(const std::vector<std::string>& args, nb::object progress) {
  Options o;
  std::string error;
  if (parse_arguments(args, o, &error) != 0) raise_error(error, true);
  if (o.convert.empty()) raise_error("convert: no output file", true);
  double last = -1.0;
  if (!progress.is_none()) {
    // A first call before the conversion starts: a callback that cancels at once leaves no
    // output, however soon a small conversion would end.
    nb::object answer = progress(0.0);
    if (!answer.is_none() && !nb::cast<bool>(answer))
      raise_error(o.convert + ": cancelled by the progress callback");
    last = 0.0;
  }
  ConvertProgress p;
  ConvertResult result;
  std::atomic<bool> finished{false};
  bool ok = false;
  std::thread worker([&] {
    ok = convert_from_options(o, &p, &result, &error);
    finished = true;
  });
  std::optional<nb::python_error> raised;
  while (!finished.load()) {
    {
      nb::gil_scoped_release unlocked;
      for (int k = 0; k < 5 && !finished.load(); ++k)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    if (raised || p.cancel.load()) continue;
    try {
      if (PyErr_CheckSignals() != 0) throw nb::python_error();
      const double f = std::max(last, convert_fraction(p));
      if (!progress.is_none() && f > last) {
        last = f;
        nb::object answer = progress(f);
        if (!answer.is_none() && !nb::cast<bool>(answer)) p.cancel = true;
      }
    } catch (nb::python_error& e) {
      raised.emplace(std::move(e));
      p.cancel = true;
    }
  }
  {
    nb::gil_scoped_release unlocked;
    worker.join();
  }
  if (raised) throw *raised;
  if (!ok && p.cancel.load()) raise_error(o.convert + ": cancelled by the progress callback");
  if (!ok) raise_error(error);
  if (!progress.is_none() && last < 1.0) progress(1.0);
  return result_dict(result);
}

}  // namespace

void bind_files(nb::module_& m) {
  m.def("_read", &read, "path"_a, "max_points"_a = 0, "bounds"_a = nb::none(),
        "resolution"_a = nb::none());
  m.def("_info", &info, "path"_a);
  m.def("_convert", &convert, "args"_a, "progress"_a = nb::none());
}

}  // namespace pr::py
