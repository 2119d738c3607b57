// nginx (Debian nginx-light) serving a folder on 127.0.0.1 for a test: a config written into a
// temporary folder, the server started as a child process in the foreground (one process, no
// daemon) on a free port, and stopped by its own pid when the object goes. With use_tls() it
// serves https:// on that port (its status page, for counts(), stays plain HTTP on a second one).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>

namespace pr::test {

class NginxServer {
 public:
  /// Serves the files under `root` (an absolute path; read-only). `extra_config` goes inside the
  /// server block, e.g. "location /private/ { deny all; }" for a 403.
  explicit NginxServer(std::string root, std::string extra_config = "");
  ~NginxServer();
  NginxServer(const NginxServer&) = delete;
  NginxServer& operator=(const NginxServer&) = delete;

  /// Why nginx cannot run here ("" when /usr/sbin/nginx, or the nginx PR_NGINX names, is there).
  static std::string unavailable();

  /// Before start(): serve https:// with this certificate (PEM, the chain after it) and key.
  void use_tls(std::string cert_file, std::string key_file);

  /// Starts nginx and waits (5 s at most) until its port answers; false with the reason (and
  /// nginx's own error log) otherwise. nginx is killed when the calling thread ends (so a test
  /// killed mid-run leaves no server): start it from the thread that runs the test.
  bool start(std::string* error);
  /// SIGTERM, and SIGKILL when it has not gone after 5 s; also done by the destructor.
  void stop();

  uint16_t port() const { return port_; }
  /// "http://127.0.0.1:PORT/" (https:// with TLS) + `relative_path` (no leading slash needed).
  std::string url(const std::string& relative_path) const;

  /// nginx's counts (stub_status) of the connections it accepted and the requests it served
  /// since it started, the status requests themselves left out. False when it does not answer.
  bool counts(uint64_t* connections, uint64_t* requests, std::string* error = nullptr);

 private:
  std::string root_, extra_config_, dir_;
  std::string tls_cert_, tls_key_;  ///< empty: plain HTTP
  uint16_t port_ = 0;
  uint16_t status_port_ = 0;  ///< the status page's: port_ without TLS
  pid_t pid_ = -1;
  bool raw_counts(uint64_t* accepted, uint64_t* served, std::string* error);

  uint64_t base_connections_ = 0, base_requests_ = 0;  ///< the counts when start() returned
  uint64_t queries_ = 0;                               ///< counts() calls since
};

/// Whether a missing nginx fails a test (under CI, CI=true) rather than skipping it.
bool nginx_required();

/// A free TCP port on 127.0.0.1 (bound and released: the caller binds it next), 0 on failure.
uint16_t free_loopback_port();

/// Connects to 127.0.0.1:`port`, sends `request` and reads the answer to its end (the server
/// closes), at most `timeout_ms`. "" when nothing answers.
std::string http_exchange(uint16_t port, const std::string& request, int timeout_ms = 5000);

}  // namespace pr::test

/// In a test: declares `server` (a started pr::test::NginxServer on `root`, with `extra`). Skips
/// the test when nginx is not installed (fails under CI), fails it when nginx does not start.
#define START_NGINX(server, root, extra)                                                    \
  if (const std::string pr_why_ = pr::test::NginxServer::unavailable(); !pr_why_.empty()) { \
    if (pr::test::nginx_required()) FAIL() << pr_why_ << " (required under CI)";            \
    GTEST_SKIP() << pr_why_;                                                                \
  }                                                                                         \
  pr::test::NginxServer server(root, extra);                                                \
  if (std::string pr_err_; !server.start(&pr_err_)) FAIL() << pr_err_
