// What headless mode and the viewer share for streamed inputs (engine/io/stream.h): which inputs
// stream, the streaming options of the command line and their defaults, and the view a selection
// is made for.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "engine/camera.h"
#include "engine/colorize.h"
#include "engine/io/stream.h"
#include "options.h"

namespace pr {

/// Whether FILEs stream: every one is a URL, a folder, a .vpc or (with --stream on) a COPC file.
/// False for plain files (read whole); false with a message in `error` for a mix of the two
/// (streamed and whole inputs cannot be drawn together).
bool streams(const std::vector<std::string>& files, bool stream_copc, std::string* error);

/// The default point budget: what the renderer draws within a frame's time at 1080p (measured:
/// docs/PERFORMANCE.md, "Streaming") and what memory holds: the pool costs about 32 bytes a point
/// of host memory and 16 of device memory; at most a quarter of the machine's memory goes to it.
uint64_t default_point_budget(bool gpu, uint64_t host_memory_bytes);
/// The default host cache: a quarter of the machine's memory, at least 256 MiB.
uint64_t default_cache_bytes(uint64_t host_memory_bytes);
/// The machine's physical memory in bytes.
uint64_t physical_memory_bytes();

/// --point-budget, --sse, --cache-memory, else the defaults for the renderer (`gpu`);
/// http_options().
StreamOptions stream_options(const Options& o, bool gpu);

/// How URLs are read: the defaults, with --ca-file.
HttpOptions http_options(const Options& o);

/// The camera as streaming's view of it, for an image of width x height.
/// `clip` (or null): the nodes it hides whole are not selected (LodView::hidden).
LodView lod_view(const Camera& camera, int width, int height, const Clip* clip = nullptr);

/// The color mode a survey starts with: the file's colors when it has them, else intensity, else
/// elevation (default_color_mode() needs the points, which have not arrived yet).
ColorMode stream_default_color(const FileInfo& info);

/// A field's color mode with an automatic range over a survey: the range its files declare (LAS
/// extra bytes' min and max) set as a fixed range; true when they declare one. Without one, the
/// range is found over the points arrived, and then kept fixed as the other continuous modes'.
bool declared_field_range(const FileInfo& info, ColorSettings& settings);

/// The starting camera of a streamed survey: a scene file's camera, else its bounds framed from
/// above as for files (frame_files_camera()); then --camera, --focus, --projection and --view.
Camera stream_camera(const Options& o, const Bounds& world_bounds, double aspect);

}  // namespace pr
