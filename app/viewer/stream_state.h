// A streamed survey on screen (engine/io/stream.h): opened in the background (a URL or a folder
// of tiles takes a while), updated once a frame (selection for the camera, arrived nodes into the
// pool, the pool's changed ranges to the renderers), and the panel's Streaming section, what it
// shows and sets.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/colorize.h"
#include "engine/io/stream.h"
#include "viewer/render_backend.h"
#include "viewer/status_line.h"

namespace pr {

/// What the Streaming section says of a survey's figures: lines of counts, then a line on how
/// far the view has loaded (the cache's bar, drawn between them, is not text).
struct StreamFigures {
  std::vector<std::string> counts;
  std::string progress;
};
/// The Streaming section's words for `stats`, with `options` set.
StreamFigures stream_figures(const StreamStats& stats, const StreamOptions& options);

struct StreamState {
  /// The survey on screen; null when the cloud on screen is not streamed. Shared with
  /// CloudState::points, which points at its pool.
  std::shared_ptr<StreamingScene> scene;
  StreamOptions options;  ///< what the Streaming section sets (the command line's to begin with)
  StreamStats stats;      ///< after the last frame's update
  bool options_changed = false;

  /// Opens `inputs` on a thread of its own. False when an opening is still under way.
  bool start(const std::vector<std::string>& inputs, const StreamOptions& o);
  /// start() with the Streaming section's options, and a status line either way.
  void open(const std::vector<std::string>& inputs, StatusLine& status);
  /// An opened survey to the renderers (its pool drawn as stored), and it becomes the survey on
  /// screen. False (with the status line) when the renderers refused it: the cloud on screen
  /// stays. `note` and `refused`: what the GPU's upload adds to the status line.
  bool install(std::shared_ptr<StreamingScene> opened, RenderBackend& backend, StatusLine& status,
               std::string* note, bool* refused);
  /// The status line of a survey installed.
  void say_installed(const std::string& note, bool refused, StatusLine& status) const;
  /// Each frame, for a survey on screen: its selection for `view`, the nodes that arrived into
  /// the pool and the pool's changed ranges to the renderers, colored with `colors` (a fixed
  /// range) unless the pool shows the file's colors; the figures and the survey's messages.
  /// Returns whether points of the pool changed (what a pick made of them is stale).
  bool update(const LodView& view, const ColorSettings& colors, RenderBackend& backend,
              StatusLine& status);
  /// The panel's Streaming section, while a survey is on screen or opening.
  void draw_section();
  /// A finished opening: true with the scene (or null and the message) once the thread is done.
  bool take(std::shared_ptr<StreamingScene>& out, std::string* error);
  bool opening() const { return opener_.joinable(); }
  /// What is being opened ("3 inputs" or the one path).
  const std::string& label() const { return label_; }
  const std::vector<std::string>& inputs() const { return inputs_; }
  /// What the survey on screen was opened from (Save converts its tiles).
  const std::vector<std::string>& scene_inputs() const { return scene_inputs_; }
  ~StreamState();

 private:
  std::thread opener_;
  std::atomic<bool> done_{false};
  std::shared_ptr<StreamingScene> opened_;
  std::string error_;
  std::string label_;
  std::vector<std::string> inputs_;
  std::vector<std::string> scene_inputs_;
};

}  // namespace pr
