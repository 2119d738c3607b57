// A streamed survey on screen (engine/io/stream.h): opened in the background (a URL or a folder
// of tiles takes a while), updated once a frame (selection for the camera, arrived nodes into the
// pool, the pool's changed ranges to the renderers), and what the Streaming section shows and
// sets.
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "engine/io/stream.h"

namespace pr {

/// What the Streaming section says of a survey's figures: lines of counts, then a line on how
/// far the view has loaded (the cache's bar, drawn between them, is not text).
struct StreamFigures {
  std::vector<std::string> counts;
  std::string progress;
};
/// The Streaming section's words for `stats`, with `options` set.
StreamFigures stream_figures(const StreamStats& stats, const StreamOptions& options);

/// What the status line says when `inputs` did not open (`error`: StreamingScene::open()'s
/// message): for several inputs, a folder or a .vpc, the survey's message as it is ("no tile
/// opens: " and the first tile's reason); for one file or URL, which and why ("cannot open URL:
/// not found (HTTP 404)"), without the survey's words.
std::string open_failure(const std::vector<std::string>& inputs, const std::string& error);

struct StreamState {
  /// The survey on screen; null when the cloud on screen is not streamed. Shared with
  /// CloudState::points, which points at its pool.
  std::shared_ptr<StreamingScene> scene;
  StreamOptions options;  ///< what the Streaming section sets (the command line's to begin with)
  StreamStats stats;      ///< after the last frame's update
  bool options_changed = false;

  /// Opens `inputs` on a thread of its own. False when an opening is still under way.
  bool start(const std::vector<std::string>& inputs, const StreamOptions& o);
  /// A finished opening: true with the scene (or null and the message) once the thread is done.
  bool take(std::shared_ptr<StreamingScene>& out, std::string* error);
  bool opening() const { return opener_.joinable(); }
  /// What is being opened ("3 inputs" or the one path).
  const std::string& label() const { return label_; }
  const std::vector<std::string>& inputs() const { return inputs_; }
  ~StreamState();

 private:
  std::thread opener_;
  std::atomic<bool> done_{false};
  std::shared_ptr<StreamingScene> opened_;
  std::string error_;
  std::string label_;
  std::vector<std::string> inputs_;
};

}  // namespace pr
