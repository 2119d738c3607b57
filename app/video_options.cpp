// The camera path and video options (video_options.h).
#include "video_options.h"

#include <CLI/CLI.hpp>

#include <charconv>
#include <cmath>

#include "option_fields.h"
#include "options.h"
#include "video_writer.h"

namespace pr {

namespace {

using cli::bad;
using cli::number;
using cli::split;
using cli::value;

/// What --video cannot go with, named; empty when nothing.
std::string video_conflict(const Options& o) {
  if (o.info) return "--info";
  if (!o.convert.empty()) return "--convert";
  if (!o.measures.empty()) return "--measure";
  if (!o.profile_line.empty()) return "--profile";
  if (o.frames > 0) return "--frames";
  if (!o.screenshot.empty()) return "--screenshot";
  if (o.pick) return "--pick";
  return "";
}

}  // namespace

bool parse_camera_path(const std::string& v, std::vector<CameraPose>* out, std::string* error) {
  out->clear();
  for (const std::string& key : split(v, ';')) {
    const std::vector<std::string> f = split(key, ',');
    double c[5];
    bool ok = f.size() == 5;
    for (size_t i = 0; ok && i < 5; ++i) ok = number(f[i], &c[i]);
    if (!ok) {
      *error = "option --camera-path: expected X,Y,Z,YAW,PITCH;X,Y,Z,YAW,PITCH;..., got '" + key +
               "' in '" + v + "'";
      return false;
    }
    if (std::abs(c[4]) > 90.0) {
      *error = "option --camera-path: key " + std::to_string(out->size() + 1) + ": pitch '" + f[4] +
               "' lies beyond +-90 degrees";
      return false;
    }
    CameraPose p;
    p.position = {c[0], c[1], c[2]};
    p.yaw_deg = c[3];
    p.pitch_deg = c[4];
    out->push_back(p);
  }
  if (out->size() < 2) {
    *error =
        "option --camera-path: needs at least 2 keys (X,Y,Z,YAW,PITCH;X,Y,Z,YAW,PITCH), got '" + v +
        "'";
    return false;
  }
  return true;
}

void add_video_options(CLI::App& app, Options& o) {
  value(app, "--camera-path", "X,Y,Z,YAW,PITCH;...",
        "camera keyframes (as --camera) at equal times over --duration:\n"
        "the path --video renders; the viewer loads it into its Camera\n"
        "path section (docs/VIDEO.md)",
        [&o](const std::string& v) {
          std::vector<CameraPose> poses;
          std::string why;
          if (!parse_camera_path(v, &poses, &why)) bad(why);
          o.camera_path = path_at_equal_times(poses, 0.0, false);  // times: finish_video_options()
        });
  value(
      app, "--duration", "SECONDS", "--camera-path: its length (default 10)",
      [&o](const std::string& v) {
        double d = 0.0;
        if (!number(v, &d) || !(d > 0.0) || d > 86400.0)
          bad("option --duration: '" + v + "' is not a number of seconds above 0 and up to 86400");
        o.duration = d;
      });
  value(app, "--fps", "N", "--video: frames a second, 1 to 120 (default 30)",
        [&o](const std::string& v) {
          double d = 0.0;
          if (!number(v, &d) || d != std::floor(d) || d < 1.0 || d > 120.0)
            bad("option --fps: '" + v + "' is not a whole number of frames a second, 1 to 120");
          o.fps = int(d);
        });
  value(app, "--video", "OUT",
        "render --camera-path to OUT: an MP4 (OUT.mp4, H.264), or PNG\n"
        "frames (a folder DIR/, NAME_%05d.png or NAME.png); --width,\n"
        "--height, --fps; with --headless (the viewer: its Render video)",
        [&o](const std::string& v) {
          const VideoFormat f = video_format(v);
          std::string why, pattern;
          if (f == VideoFormat::kNone)
            bad("option --video: '" + v +
                "' is neither .mp4 nor PNG frames (a folder DIR/, NAME_%05d.png or NAME.png)");
          if (f == VideoFormat::kMp4 && !mp4_available(&why)) bad("option --video: " + why);
          if (f == VideoFormat::kPng && !png_pattern(v, &pattern, &why)) bad("option " + why);
          o.video = v;
        });
}

void finish_video_options(Options& o) {
  const bool path = !o.camera_path.keys.empty();
  // A path of the command line has every key at 0 until now (no other path can: its times must
  // increase): its keys at equal times over --duration.
  bool from_command_line = path;
  for (const CameraKey& k : o.camera_path.keys)
    from_command_line = from_command_line && k.time == 0.0;
  if (from_command_line) {
    std::vector<CameraPose> poses;
    for (const CameraKey& k : o.camera_path.keys) poses.push_back(k.pose);
    o.camera_path = path_at_equal_times(poses, o.duration.value_or(kDefaultPathSeconds), false);
  }
  // A scene file's path is read after this first parse, and checked then (apply_scene_file()).
  const bool scene = !o.scene_file.empty();
  if (o.duration && !path && !scene) bad("--duration goes with --camera-path");
  if (!o.video.empty() && !path && !scene) bad("--video needs --camera-path (the keys it renders)");
  if (o.fps && o.video.empty() && !path && !scene) bad("--fps goes with --video");
  // A scene's path goes with its camera and renders only with --video.
  if (from_command_line && (o.camera || o.view))
    bad(std::string("--camera-path places the camera: ") + (o.camera ? "--camera" : "--view") +
        " does not go with it");
  if (from_command_line && o.headless && o.video.empty())
    bad("--camera-path goes with --video in headless mode (the frames it renders)");
  if (o.video.empty()) return;
  const std::string conflict = video_conflict(o);
  if (!conflict.empty())
    bad("--video renders the path's frames: " + conflict + " does not go with it");
}

}  // namespace pr
