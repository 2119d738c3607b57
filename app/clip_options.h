// The clip's command-line options (docs/CLIP.md): --clip-box, --clip-mode and --section, parsed
// into Options::clip for headless renders, --convert and the viewer's first frame; --clip-polygon
// into Options::clip_polygon for --convert and the viewer's Save.
#pragma once

#include <string>

#include "engine/clip.h"

namespace CLI {
class App;
}

namespace pr {

struct Options;

/// Adds --clip-box, --clip-mode and --section to `app`, writing into `o`: each value is checked
/// as it is read (a bad one throws CLI::ValidationError with the one-line message).
void add_clip_options(CLI::App& app, Options& o);

/// After parsing: --clip-mode applied to the boxes that name no mode of their own, and the whole
/// clip checked (validate_clip()); throws CLI::ValidationError with the message.
void finish_clip_options(Options& o);

/// One --clip-box value: CX,CY,CZ,SX,SY,SZ[,YAW,PITCH,ROLL][,MODE]; false with the message.
bool parse_clip_box(const std::string& v, ClipBox* out, bool* has_mode, std::string* error);
/// One --section value: X,Y,Z,NX,NY,NZ,T or AXIS=V,T (AXIS x, y or z); false with the message.
bool parse_section(const std::string& v, ClipSection* out, std::string* error);

}  // namespace pr
