// Inside scene files (scene_file.h): the JSON a scene is written as (scene_write.cpp) and read
// from (scene_read.cpp), and what both sides share.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

#include "options.h"

namespace pr {

/// "pointraster scene": the "format" key's value.
inline constexpr const char* kSceneFormat = "pointraster scene";

/// The JSON of `o`'s scene at `scene_path` (scene_text()), its keys in the schema's order.
nlohmann::ordered_json scene_json(const Options& o, const std::string& scene_path);

/// Reads `j` into `o` (read_scene_text(), without the text's parse): notes start with `name`.
void read_scene_json(const nlohmann::json& j, const std::string& scene_path,
                     const std::string& name, Options& o, std::vector<std::string>* notes);

/// "perspective" or "ortho"; parse_projection() also takes "orthographic".
const char* projection_key(Projection p);
bool parse_projection(const std::string& s, Projection* out);

/// An input as stored: relative to `folder` (absolute) when it lies under it, else absolute;
/// URLs as they are.
std::string stored_input(const std::string& input, const std::string& folder);
/// An input as stored, resolved against `folder`.
std::string resolved_input(const std::string& stored, const std::string& folder);

/// The folder of the scene file `scene_path`, absolute.
std::string scene_folder(const std::string& scene_path);

}  // namespace pr
