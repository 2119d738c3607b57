// Command-line options of the pointraster program (a contract: scripts and tests rely on it).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "engine/annotation.h"    // Annotation
#include "engine/camera.h"        // Projection, StandardView
#include "engine/camera_path.h"   // CameraPath
#include "engine/clip.h"          // Clip
#include "engine/clip_polygon.h"  // ClipPolygon
#include "engine/colorize.h"      // Colormap
#include "engine/measure.h"       // MeasureKind, CellHeight
#include "engine/profile.h"       // Profile
#include "engine/renderer.h"      // Toggle
#include "scene_extras.h"         // SceneExtras

namespace pr {

struct CameraArg {
  double x, y, z;
  double yaw_deg, pitch_deg;
};

/// --measure KIND X,Y,Z;X,Y,Z;...: one measurement (engine/measure.h); a box's points are its
/// centre, its size and (optional) its yaw, pitch and roll in degrees.
struct MeasureArg {
  MeasureKind kind = MeasureKind::kDistance;
  std::vector<glm::dvec3> points;
};

struct Options {
  bool help = false;
  bool headless = false;
  bool info = false;                ///< --info: print what each FILE holds and exit
  bool json = false;                ///< --info --json
  std::optional<std::string> mode;  ///< "cpu" | "gpu"; unset: headless cpu, viewer its saved choice
  std::optional<int> width, height;
  std::string scene;  ///< empty: the default scene (when no FILE is given)
  std::optional<uint64_t> points;
  std::optional<CameraArg> camera;
  std::optional<double> focus;
  std::optional<Projection> projection;  ///< --projection perspective|ortho
  std::optional<StandardView> view;      ///< --view top|bottom|front|back|left|right|iso
  std::optional<char>
      up;          ///< 'y' or 'z'; unset: z for files (LAS and scans are z-up), y for scenes
  int frames = 0;  ///< 0: headless renders 5 frames; the viewer runs until closed
  std::string screenshot;
  int point_size = 1;
  bool adaptive_size = false;         ///< --adaptive-size (RenderSettings::adaptive_size)
  std::optional<int> max_point_size;  ///< --max-point-size S; unset: RenderSettings' default
  bool compact = false;  ///< --compact: positions quantized to 4 bytes (engine/compact.h)
  bool culling = true;   ///< --culling on|off: batch culling (RenderOptions::culling)
  Toggle occlusion = Toggle::kAuto;  ///< --occlusion auto|on|off
  Toggle sort = Toggle::kAuto;       ///< --sort auto|on|off: Morton order of the stored cloud
  Toggle binning = Toggle::kAuto;    ///< --binning auto|on|off: the CPU renderer's binning
  std::optional<float> edl;          ///< --edl [STRENGTH]: eye-dome lighting at this strength
  bool hq = false;                   ///< --hq: high-quality splats (RenderSettings::hq)
  /// --pick X,Y (headless): print the point drawn at pixel (X, Y) of the last frame.
  std::optional<std::pair<int, int>> pick;
  uint64_t gpu_memory_limit = 0;  ///< --gpu-memory-limit BYTES: the GPU cloud's cap (0: none)
  /// --tile WxH (headless): the image drawn in tiles of at most W x H (engine/tiled_render.h);
  /// unset: tiles only where one frame does not fit.
  std::optional<std::pair<int, int>> tile;
  uint64_t tile_memory = 0;  ///< --tile-memory BYTES: a frame's host memory (0: 512 MiB)
  unsigned threads = 0;      ///< CPU renderer or --convert threads (0 = all cores)
  std::optional<bool> vsync;
  std::optional<float> ui_scale;  ///< panel scale; unset: from the display's DPI
  std::vector<std::string> files;
  std::vector<uint32_t> scans;  ///< --scan K (repeatable): E57 scans to load; empty: all
  /// --color MODE: rgb, intensity, elevation, classification, return, source or a field's name;
  /// empty: default_color_mode() (engine/colorize.h).
  std::string color;
  std::optional<Colormap> colormap;  ///< --colormap NAME; unset: viridis
  uint64_t max_points = 0;           ///< --max-points N: read at most N points of a file (0: all)
  int max_depth = -1;                ///< --max-depth D: COPC octree levels 0..D (-1: all)
  /// Streaming (COPC files and URLs, folders of them, .vpc surveys; engine/io/stream.h):
  /// --point-budget N, --sse PX, --cache-memory SIZE; unset: the defaults of app/streaming.h.
  std::optional<uint64_t> point_budget;
  std::optional<double> sse;
  std::optional<uint64_t> cache_memory;
  /// --stream on|off: stream COPC files by level of detail (on), or read them whole (off; URLs,
  /// folders and .vpc surveys always stream).
  bool stream = true;
  bool no_wait = false;  ///< --no-wait (headless): draw the frames without waiting for the nodes
  /// --ca-file PATH: a PEM bundle of certificate authorities trusted for https:// URLs besides
  /// the system's store (HttpOptions::ca_file); empty: the system's store alone.
  std::string ca_file;
  /// --convert OUT: write the FILEs, merged, to OUT (.copc.laz, .laz or .las) and exit.
  std::string convert;
  std::string temp_dir;  ///< --temp DIR: --convert's temporary buckets (default: OUT's folder)
  uint64_t memory = 0;   ///< --memory SIZE: what --convert may hold (0: half the machine's)
  bool timings = false;  ///< --timings: --convert prints the seconds of each stage
  /// --measure KIND POINTS (repeatable): print each measurement and exit (app/measure_run.h).
  std::vector<MeasureArg> measures;
  std::optional<double> measure_base;  ///< --measure-base H; unset: the polygon's mean height
  double measure_cell = 0.0;           ///< --measure-cell S; 0: the polygon box's side / 200
  CellHeight measure_height = CellHeight::kMean;  ///< --measure-height min|mean|max
  std::string measure_out;  ///< --measure-out FILE.geojson|FILE.csv: the measurements written
  /// --measure-show: the viewer opens with the --measure measurements listed and drawn.
  bool measure_show = false;
  /// --profile POINTS, --profile-width W (app/profile_run.h, docs/PROFILE.md): the profile to
  /// extract; --profile-out its points written, --profile-image its view drawn.
  std::vector<glm::dvec3> profile_line;
  std::optional<double> profile_width;
  std::string profile_out, profile_image;
  /// --clip-box (repeatable), --clip-mode, --section (app/clip_options.h, docs/CLIP.md): the
  /// clip of headless frames, of --convert's output and of the viewer's start.
  Clip clip;
  ClipMode clip_mode = ClipMode::kInside;
  std::vector<bool> clip_box_has_mode;  ///< per box: its value named its own mode
  /// --clip-polygon X,Y;X,Y;...: a vertical prism over a polygon in world XY that --convert (and
  /// the viewer's Save, as its export selection) writes the points of, within the clip.
  std::optional<ClipPolygon> clip_polygon;
  /// --annotation (repeatable): a title and text at a world point (engine/annotation.h).
  std::vector<Annotation> annotations;
  /// --camera-path "X,Y,Z,YAW,PITCH;...": keyframes at equal times over --duration SECONDS.
  CameraPath camera_path;
  std::optional<double> duration;
  /// --video OUT: the camera path rendered to OUT (.mp4, or PNG frames), at --fps.
  std::string video;
  std::optional<int> fps;
  /// --save-view OUT.json: the scene of these inputs and options written (docs/SCENE.md).
  std::string save_view;
  /// A FILE ending in .json: the scene file these options were read from (empty: none).
  std::string scene_file;
  /// What the scene file holds beyond these options: the viewer's state when it was saved.
  SceneExtras scene_extras;
};

/// Parses the arguments (argv without the program's name) into `out`, printing nothing: 0, or 2
/// for a bad option or value with the one-line message (no "pointraster: " prefix) in `error`.
int parse_arguments(const std::vector<std::string>& args, Options& out, std::string* error);

/// Parses argv, and a scene file named among the FILEs under it (apply_scene_file(),
/// app/scene_file.h; its notes printed to stderr). Returns 0 to go on; otherwise the exit code
/// (-1 after printing --help, for the caller to exit 0; 2 for a bad option or value, 1 for a
/// scene file that cannot be read, with the message already printed to stderr).
int parse_options(int argc, char** argv, Options& out);

/// The --help text.
std::string usage_text();

/// The format --convert writes to `path`, by its suffix (any case): "COPC" (.copc.laz), "LAZ"
/// (.laz) or "LAS" (.las); empty for any other suffix.
std::string convert_format(const std::string& path);

}  // namespace pr
