// The camera path and video options (docs/VIDEO.md): --camera-path, --duration, --fps and
// --video, parsed into Options::camera_path, duration, fps and video: for headless videos and the
// viewer's Camera path section.
#pragma once

#include <string>
#include <vector>

#include "engine/camera_path.h"

namespace CLI {
class App;
}

namespace pr {

struct Options;

/// The length of a --camera-path without --duration, in seconds.
constexpr double kDefaultPathSeconds = 10.0;
/// The frame rate without --fps.
constexpr int kDefaultFps = 30;

/// Adds --camera-path, --duration, --fps and --video to `app`, writing into `o`: each value is
/// checked as it is read (a bad one throws CLI::ValidationError with the one-line message).
void add_video_options(CLI::App& app, Options& o);

/// After parsing: the path's keys at equal times over --duration, and the options' combinations
/// checked; throws CLI::ValidationError with the message.
void finish_video_options(Options& o);

/// One --camera-path value: X,Y,Z,YAW,PITCH;X,Y,Z,YAW,PITCH;... (at least two poses, each five
/// finite numbers, pitch within +-90); false with the message.
bool parse_camera_path(const std::string& v, std::vector<CameraPose>* out, std::string* error);

}  // namespace pr
