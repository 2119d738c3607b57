// Progress and cancellation shared between a long job (loading a file, making a scene) and the UI.
#pragma once

#include <atomic>

namespace pr {

/// Shared with a loading thread: it writes progress, the UI may set cancel.
struct LoadProgress {
  std::atomic<double> fraction{0.0};  ///< 0..1
  std::atomic<bool> cancel{false};  ///< set to ask the loader to stop (it then fails, "cancelled")
};

}  // namespace pr
