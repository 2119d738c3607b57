// Ctrl-C and SIGTERM as a cancel request for a long job run from the command line (--convert,
// --video): while a CancelOnSignals lives, either signal stores true into the job's cancel flag
// (an atomic store: async-signal-safe) and remembers the signal; the job's own loop notices,
// stops and removes what it wrote. SA_RESETHAND: a second Ctrl-C ends the program at once, as
// the user then asks. SA_RESTART: the main thread's sleeps and writes go on.
#pragma once

#include <atomic>
#include <csignal>

namespace pr {

class CancelOnSignals {
 public:
  explicit CancelOnSignals(std::atomic<bool>* cancel);
  ~CancelOnSignals();
  CancelOnSignals(const CancelOnSignals&) = delete;
  CancelOnSignals& operator=(const CancelOnSignals&) = delete;

  /// The signal that asked to cancel (SIGINT, SIGTERM), or 0.
  static int signal();

 private:
  struct sigaction old_int_ {};
  struct sigaction old_term_ {};
};

/// "interrupted" for SIGINT, "terminated" for SIGTERM.
const char* signal_word(int sig);

}  // namespace pr
