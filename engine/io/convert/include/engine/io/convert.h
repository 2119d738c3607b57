// Conversion of point clouds to COPC, LAZ and LAS: every format the readers open, one input or
// many merged, out of core (points binned into spatial buckets on disk, each bucket's subtree built
// in memory) and in parallel on every core.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <glm/glm.hpp>

#include "engine/point_cloud.h"

namespace pr {

struct ConvertOptions {
  /// Folder for the temporary buckets (removed on success, failure and cancel); empty: the
  /// output's folder.
  std::string temp_dir;
  /// Host memory the conversion may hold, in bytes; 0: half the machine's physical memory.
  uint64_t memory_bytes = 0;
  /// Threads for reading, building and encoding; 0: every core.
  unsigned threads = 0;
  /// Which points are written (a clip, engine/clip.h): keep(world position of the record, as it
  /// is written: on the output's grid) says; unset: every point. Called from several threads.
  std::function<bool(const glm::dvec3&)> keep;
  /// With `keep`: whether some point of the world box [lo, hi] may be kept (engine/clip.h's
  /// clip_hides_box() answers it for a clip); false rules out a COPC input's octree node, whose
  /// chunk is then never read, so that a small box out of a large survey reads little. It must
  /// never refuse a box holding a point `keep` takes. Unset: every node is read.
  std::function<bool(const glm::dvec3& lo, const glm::dvec3& hi)> keep_box;
};

/// What a conversion is doing, for a progress bar: written by the converter, read by the UI;
/// `cancel` set by the UI (or a Ctrl-C handler) stops it, leaving no output file behind.
struct ConvertProgress {
  enum Stage : int { kScan, kBin, kBuild, kWrite, kDone };
  std::atomic<int> stage{kScan};
  std::atomic<uint64_t> done{0};   ///< points through the current stage
  std::atomic<uint64_t> total{0};  ///< points the current stage will see (0: not known yet)
  std::atomic<bool> cancel{false};
};

/// Name of a stage as the progress bar prints it ("scanning", "binning", ...).
const char* convert_stage_name(int stage);

/// What a conversion wrote.
struct ConvertResult {
  uint64_t points = 0;   ///< points written (non-finite input points dropped)
  int point_format = 6;  ///< LAS point format of the output
  uint16_t extra_bytes = 0;
  glm::dvec3 scale{0.0}, offset{0.0};
  bool scale_from_input = false;      ///< scale and offset kept from LAS inputs that agree
  uint32_t nodes = 0;                 ///< COPC: octree nodes holding points
  int levels = 0;                     ///< COPC: octree depth + 1
  uint64_t bytes = 0;                 ///< size of the output file
  uint64_t points_skipped = 0;        ///< points of COPC nodes keep_box ruled out, never read
  std::vector<std::string> messages;  ///< one line each: inputs skipped, values clamped, choices
};

/// Converts `inputs` (files of any format the readers open; folders: every point-cloud file in
/// them; http(s) URLs are not read: stream them) into `output`, whose suffix picks the format:
/// ".copc.laz" (COPC), ".laz", ".las". False with a one-line `error` (naming the file) when an
/// input cannot be read, the disk is full or too small, or the conversion was cancelled: no output
/// file is left behind then. `progress` and `result` may be null.
bool convert_point_clouds(const std::vector<std::string>& inputs, const std::string& output,
                          const ConvertOptions& options, ConvertProgress* progress,
                          ConvertResult* result, std::string* error);

/// Writes a cloud already in memory (the viewer's) to `output` (suffix as above): world
/// coordinates (origin added), its attributes and named fields (as extra bytes).
bool save_point_cloud(const PointCloud& cloud, const std::string& output,
                      const ConvertOptions& options, ConvertProgress* progress,
                      ConvertResult* result, std::string* error);

}  // namespace pr
