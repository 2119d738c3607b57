// Scene files (docs/SCENE.md): a versioned JSON file holding what a view is made of: the inputs,
// the camera, the renderer's settings, the colors, the clip, the measurements, the annotations
// and the camera path. It is the JSON form of Options plus what the viewer's live state adds
// (Options::scene_extras); `pointraster VIEW.json` opens it, --save-view and the viewer's Save
// view write it. Problems in a file are reported one line each and what they concern is left
// out: the rest opens.
#pragma once

#include <string>
#include <vector>

#include "options.h"

namespace pr {

/// The version this program writes and reads whole.
constexpr int kSceneVersion = 1;

/// The scene of `o` as the text of a scene file at `scene_path`: the inputs relative to that
/// file's folder where they lie under it (absolute otherwise; URLs as they are), the camera of
/// Options::scene_extras when set, the image size of the extras (else --width, --height or
/// 1280x720).
std::string scene_text(const Options& o, const std::string& scene_path);

/// Reads the text of a scene file at `scene_path` into `o`: what the scene holds is set (its
/// relative inputs resolved against the file's folder), the rest left as it is. Each problem adds
/// one line to `notes`, starting with the file's name: text that is not JSON (nothing read), a
/// newer version (what this version knows is read), an unknown key, a value of the wrong type or
/// out of range, an input that is not there; what it concerns is left out.
void read_scene_text(const std::string& text, const std::string& scene_path, Options& o,
                     std::vector<std::string>* notes);

/// Writes `o`'s scene to `path` through a temporary file in the same folder renamed over it, so
/// that a file saved over stays whole when writing fails. False with one line.
bool write_scene_file(const std::string& path, const Options& o, std::string* error);

/// Reads the scene file `path` into `o` (read_scene_text()). False with one line when the file
/// cannot be read at all (not there, a folder, unreadable).
bool read_scene_file(const std::string& path, Options& o, std::vector<std::string>* notes,
                     std::string* error);

/// The command line `args` (argv without the program's name), which parse_arguments() read into
/// `o` naming a scene file (Options::scene_file), with the scene under it: the scene's options,
/// then `args` parsed again over them, so that the options given override the scene's. FILEs or
/// --scene given replace its inputs (the whole "inputs" section: its points and up axis too),
/// --clip-box or --section its clip; --annotation adds to its
/// annotations. A scene asking for the GPU where there is none draws on the CPU (a note says so)
/// unless --mode is given. False with one line when the file cannot be read (`rc` 1) or the
/// options do not go with the scene's (`rc` 2); `notes` as read_scene_text().
bool apply_scene_file(const std::vector<std::string>& args, Options& o,
                      std::vector<std::string>* notes, std::string* error, int* rc);

}  // namespace pr
