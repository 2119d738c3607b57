#include "cancel_signals.h"

namespace pr {

namespace {

// The handler's only work is atomic stores: the cancel flag (lock-free, so async-signal-safe)
// and the signal's number; the job's polling loop does the rest.
static_assert(std::atomic<bool>::is_always_lock_free, "cancel must be lock-free in a handler");
std::atomic<std::atomic<bool>*> g_cancel{nullptr};
volatile std::sig_atomic_t g_signal = 0;

extern "C" void on_cancel_signal(int sig) {
  g_signal = sig;
  if (std::atomic<bool>* c = g_cancel.load(std::memory_order_relaxed))
    c->store(true, std::memory_order_relaxed);
}

}  // namespace

CancelOnSignals::CancelOnSignals(std::atomic<bool>* cancel) {
  g_signal = 0;
  g_cancel.store(cancel);
  struct sigaction sa {};
  sa.sa_handler = on_cancel_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESETHAND | SA_RESTART;
  sigaction(SIGINT, &sa, &old_int_);
  sigaction(SIGTERM, &sa, &old_term_);
}

CancelOnSignals::~CancelOnSignals() {
  sigaction(SIGINT, &old_int_, nullptr);
  sigaction(SIGTERM, &old_term_, nullptr);
  g_cancel.store(nullptr);
}

int CancelOnSignals::signal() {
  return g_signal;
}

const char* signal_word(int sig) {
  return sig == SIGINT ? "interrupted" : "terminated";
}

}  // namespace pr
