// The scene options of the command line (docs/SCENE.md): --annotation (repeatable), --save-view,
// and a FILE ending in .json, the scene file the other options apply over (app/scene_file.h).
#pragma once

#include <string>

#include "engine/annotation.h"

namespace CLI {
class App;
}

namespace pr {

struct Options;

/// Adds --annotation and --save-view to `app`, writing into `o`: each value is checked as it is
/// read (a bad one throws CLI::ValidationError with the one-line message).
void add_scene_options(CLI::App& app, Options& o);

/// After parsing, before the other options' checks: the FILE ending in .json (any case) moves
/// from Options::files to Options::scene_file, and what does not go with a scene file or
/// --save-view is refused; throws CLI::ValidationError with the message.
void finish_scene_options(Options& o);

/// One --annotation value: TITLE;TEXT;X,Y,Z[;X,Y,Z,YAW,PITCH] (the title not empty, every number
/// finite; the camera in degrees as --camera takes it); false with the message.
bool parse_annotation(const std::string& v, Annotation* out, std::string* error);

/// Whether `path` ends in .json (any case) and is no EPT dataset's ept.json: a scene file.
bool is_scene_file(const std::string& path);

}  // namespace pr
