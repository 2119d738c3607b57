// A small HTTP proxy on 127.0.0.1 between a client under test and a server (nginx), which
// misbehaves on purpose: added latency, connections dropped mid-body, bodies cut short under a
// Content-Length that agrees, 503 answers, stalls, and a 200 with the whole file in place of a
// range answer. It counts the connections and requests it served, so tests can assert retries,
// keep-alive and coalescing. One thread accepts; one thread serves each client connection (kept
// alive, HTTP/1.1, GET only); each request goes to the server on a fresh connection. Everything
// stops and is joined when the object goes.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace pr::test {

class FaultProxy {
 public:
  enum class Mode {
    kPass,      ///< answers as the server does
    kDrop,      ///< sends `drop_after` bytes of the body, then closes the connection
    kTruncate,  ///< sends half the body under a Content-Length saying so (a cut-short answer whose
                ///< Content-Range still names the whole range)
    kFail503,   ///< answers 503 Service Unavailable without asking the server
    kStall,     ///< sends half the body, then nothing for `stall_s` seconds, then the rest
    kNoRanges,  ///< asks the server for the whole file (no Range) and answers 200 with it
    kWrongRange,  ///< asks the server for the range one byte later ("bytes=A-B" as A+1-B) and
                  ///< answers with that (its Content-Range says so): not what was asked
  };
  struct Fault {
    Mode mode = Mode::kPass;
    /// The fault hits this many requests (counted from set_fault), then requests pass; -1: all.
    int count = -1;
    uint64_t drop_after = 0;  ///< kDrop: body bytes sent before the connection closes
    double stall_s = 0.0;     ///< kStall: the pause
    int latency_ms = 0;       ///< added before every answer, whatever the mode
  };

  /// Forwards to the HTTP server on 127.0.0.1:`upstream_port`.
  explicit FaultProxy(uint16_t upstream_port);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  /// Listens on a free port of 127.0.0.1; false with the reason.
  bool start(std::string* error);
  /// Closes every connection and joins every thread (also done by the destructor).
  void stop();

  /// The fault for the requests from now on (its count starts again).
  void set_fault(const Fault& fault);

  uint16_t port() const { return port_; }
  /// "http://127.0.0.1:PORT/" + `relative_path`.
  std::string url(const std::string& relative_path) const;

  uint64_t connections() const { return connections_.load(); }  ///< client connections accepted
  uint64_t requests() const { return requests_.load(); }        ///< requests answered (or dropped)
  uint64_t faulted() const { return faulted_.load(); }          ///< requests the fault hit

 private:
  struct Request;
  void accept_loop();
  void serve(int client);
  bool answer(int client, const Request& request);
  /// Waits `seconds` or until stop(); false when stopping.
  bool pause(double seconds);
  Fault take_fault(bool* hit);

  uint16_t upstream_port_;
  uint16_t port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread acceptor_;
  std::mutex mutex_;  // guards fault_, fault_uses_, clients_, workers_
  std::condition_variable wake_;
  Fault fault_;
  int fault_uses_ = 0;
  std::set<int> clients_;
  std::vector<std::thread> workers_;
  std::atomic<uint64_t> connections_{0}, requests_{0}, faulted_{0};
};

}  // namespace pr::test
