// Scene files on disk (scene_file.h): written through a temporary file renamed over the old one,
// read whole, and put under a command line.
#include "scene_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kernels/gpu_renderer.h"
#include "scene_json.h"

namespace pr {

namespace fs = std::filesystem;

uint32_t scene_background(const SceneExtras& extras) {
  if (!extras.background) return rgba(16, 18, 24);
  auto b = [](float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); };
  const auto& c = *extras.background;
  return rgba(b(c[0]), b(c[1]), b(c[2]));
}

void read_scene_text(const std::string& text, const std::string& scene_path, Options& o,
                     std::vector<std::string>* notes) {
  const std::string name = fs::path(scene_path).filename().string();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // "[json.exception.parse_error.101] parse error at line 3, column 1: ...": the part after
    // the bracket says where and what.
    std::string what = e.what();
    const size_t at = what.find("] ");
    if (at != std::string::npos) what = what.substr(at + 2);
    if (notes) notes->push_back(name + ": not valid JSON (nothing read from it): " + what);
    return;
  }
  read_scene_json(j, scene_path, name, o, notes);
}

namespace {

/// Writes all of `text` to `fd` and flushes it to the disk; false with errno set.
bool write_all(int fd, const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return ::fsync(fd) == 0;
}

}  // namespace

bool write_scene_file(const std::string& path, const Options& o, std::string* error) {
  const std::string text = scene_text(o, path);
  const fs::path target(path);
  const fs::path folder = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  // A temporary file beside the target, renamed over it once whole: a failed write leaves the
  // old file as it was.
  std::string tmp = (folder / ("." + target.filename().string() + ".XXXXXX")).string();
  const int fd = ::mkstemp(tmp.data());
  if (fd < 0) {
    if (error) *error = "cannot write " + path + ": " + std::strerror(errno);
    return false;
  }
  // mkstemp makes the file readable by its owner only; a scene is an ordinary file (or keeps the
  // permissions of the file it replaces).
  struct stat old {};
  ::fchmod(fd, ::stat(path.c_str(), &old) == 0 ? (old.st_mode & 07777) : 0644);
  const bool written = write_all(fd, text);
  const int write_errno = errno;
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int e = !written ? write_errno : errno;
    ::unlink(tmp.c_str());
    if (error) *error = "cannot write " + path + ": " + std::strerror(e);
    return false;
  }
  return true;
}

bool read_scene_file(const std::string& path, Options& o, std::vector<std::string>* notes,
                     std::string* error) {
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    if (error) *error = path + ": a folder, not a scene file";
    return false;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (error) *error = path + ": cannot open: " + std::strerror(errno);
    return false;
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    if (error) *error = path + ": cannot read: " + std::strerror(errno);
    return false;
  }
  read_scene_text(text.str(), path, o, notes);
  return true;
}

bool apply_scene_file(const std::vector<std::string>& args, Options& o,
                      std::vector<std::string>* notes, std::string* error, int* rc) {
  const Options cli = o;
  Options base;
  if (!read_scene_file(cli.scene_file, base, notes, error)) {
    *rc = 1;
    return false;
  }
  // What the command line gives of the inputs or the clip replaces the scene's.
  if (!cli.files.empty() || !cli.scene.empty()) {  // the whole of the scene's "inputs"
    const Options none;
    base.files.clear();
    base.scene.clear();
    base.points.reset();
    base.up.reset();
    base.scans.clear();
    base.max_points = none.max_points;
    base.max_depth = none.max_depth;
    base.stream = none.stream;
  }
  if (cli.clip.active()) {
    base.clip = Clip{};
    base.clip_box_has_mode.clear();
  }
  // The other options are parsed again over the scene's: those given override it.
  std::vector<std::string> rest = args;
  const auto it = std::find(rest.begin(), rest.end(), cli.scene_file);
  if (it != rest.end()) rest.erase(it);
  // Headless frames do not draw the export polygon: not refused as --clip-polygon would be.
  std::optional<ClipPolygon> polygon = std::move(base.clip_polygon);
  base.clip_polygon.reset();
  std::string why;
  const int parsed = parse_arguments(rest, base, &why);
  base.scene_file = cli.scene_file;  // after the parse, which checks the scene's camera path
  if (!base.clip_polygon) base.clip_polygon = std::move(polygon);
  if (parsed != 0) {
    if (error) *error = cli.scene_file + ": " + why;
    *rc = 2;
    return false;
  }
  if (!cli.mode && base.mode == "gpu" && !gpu_renderer_available(&why)) {
    if (notes)
      notes->push_back(fs::path(cli.scene_file).filename().string() +
                       ": render.mode gpu is not available here (" + why + "): drawing on the CPU");
    base.mode = "cpu";
  }
  o = std::move(base);
  return true;
}

}  // namespace pr
