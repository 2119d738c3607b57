#include "nginx_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "under_ci.h"

namespace pr::test {

namespace {

/// Debian's nginx, or the one PR_NGINX names (a benchmark on a machine where nginx travels with
/// the binaries: docs/DEVELOPING.md).
const char* nginx_path() {
  const char* own = std::getenv("PR_NGINX");
  return own && *own ? own : "/usr/sbin/nginx";
}
using Clock = std::chrono::steady_clock;

int connect_loopback(uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

/// Starts nginx in the foreground on `conf`, its output into `output`. The child is killed when
/// the thread that started it ends (PR_SET_PDEATHSIG), so that a test process killed mid-test
/// (a timeout, ^C) leaves no server behind.
pid_t spawn_nginx(const std::string& conf, const std::string& prefix, const std::string& error_log,
                  const std::string& output) {
  std::string a0 = nginx_path(), a1 = "-c", c = conf, a3 = "-p", p = prefix, a5 = "-e",
              e = error_log;
  char* argv[] = {a0.data(), a1.data(), c.data(), a3.data(),
                  p.data(),  a5.data(), e.data(), nullptr};
  const pid_t parent = ::getpid();
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  // The child: only async-signal-safe calls until exec.
  if (::prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || ::getppid() != parent) ::_exit(127);
  const int fd = ::open(output.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd >= 0) {
    ::dup2(fd, 1);
    ::dup2(fd, 2);
  }
  ::execv(nginx_path(), argv);
  ::_exit(127);
}

}  // namespace

bool nginx_required() {
  return under_ci();
}

uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::string http_exchange(uint16_t port, const std::string& request, int timeout_ms) {
  const int fd = connect_loopback(port);
  if (fd < 0) return "";
  const auto end = Clock::now() + std::chrono::milliseconds(timeout_ms);
  std::string answer;
  if (::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == ssize_t(request.size())) {
    char buf[16384];
    for (;;) {
      const auto left =
          std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
      pollfd p{fd, POLLIN, 0};
      if (left <= 0 || ::poll(&p, 1, int(left)) <= 0) break;
      const ssize_t n = ::recv(fd, buf, sizeof(buf), 0);
      if (n <= 0) break;
      answer.append(buf, size_t(n));
    }
  }
  ::close(fd);
  return answer;
}

NginxServer::NginxServer(std::string root, std::string extra_config)
    : root_(std::move(root)), extra_config_(std::move(extra_config)) {}

NginxServer::~NginxServer() {
  stop();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
}

std::string NginxServer::unavailable() {
  if (::access(nginx_path(), X_OK) == 0) return "";
  return std::string(nginx_path()) + " is not installed (Debian: nginx-light)";
}

void NginxServer::use_tls(std::string cert_file, std::string key_file) {
  tls_cert_ = std::move(cert_file);
  tls_key_ = std::move(key_file);
}

std::string NginxServer::url(const std::string& relative_path) const {
  const bool slash = !relative_path.empty() && relative_path[0] == '/';
  return std::string(tls_cert_.empty() ? "http" : "https") +
         "://127.0.0.1:" + std::to_string(port_) + (slash ? "" : "/") + relative_path;
}

namespace {

/// `status_port` != `port`: `port` speaks TLS with `cert` and `key`, `status_port` plain HTTP.
std::string nginx_config(const std::string& dir, const std::string& root, uint16_t port,
                         uint16_t status_port, const std::string& cert, const std::string& key,
                         const std::string& extra) {
  std::string c;
  c += "daemon off;\nmaster_process off;\nworker_processes 1;\n";
  c += "pid " + dir + "/nginx.pid;\nerror_log " + dir + "/error.log warn;\n";
  c += "events { worker_connections 256; }\n";
  c += "http {\n  access_log off;\n  default_type application/octet-stream;\n";
  for (const char* t : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    c += std::string("  ") + t + "_temp_path " + dir + "/" + t + ";\n";
  c += "  keepalive_timeout 60s;\n  keepalive_requests 100000;\n";
  if (status_port == port) {
    c += "  server {\n    listen 127.0.0.1:" + std::to_string(port) + ";\n";
  } else {
    c += "  server {\n    listen 127.0.0.1:" + std::to_string(port) + " ssl;\n";
    c += "    listen 127.0.0.1:" + std::to_string(status_port) + ";\n";
    c += "    ssl_certificate \"" + cert + "\";\n    ssl_certificate_key \"" + key + "\";\n";
  }
  c += "    root \"" + root + "\";\n";
  c += "    location = /nginx_status { stub_status; }\n";
  c += "    " + extra + "\n  }\n}\n";
  return c;
}

}  // namespace

bool NginxServer::start(std::string* error) {
  if (const std::string why = unavailable(); !why.empty()) {
    if (error) *error = why;
    return false;
  }
  if (dir_.empty()) {
    std::string templ = (std::filesystem::temp_directory_path() / "pr-nginx-XXXXXX").string();
    if (!::mkdtemp(templ.data())) {
      if (error) *error = std::string("mkdtemp: ") + std::strerror(errno);
      return false;
    }
    dir_ = templ;
  }
  std::string why;
  // A port found free can be taken by someone else before nginx binds it: then try another.
  for (int attempt = 0; attempt < 3; ++attempt) {
    why.clear();
    port_ = free_loopback_port();
    status_port_ = port_;
    for (int i = 0; i < 8 && !tls_cert_.empty() && status_port_ == port_; ++i)
      status_port_ = free_loopback_port();
    const std::string conf = dir_ + "/nginx.conf";
    std::ofstream(conf) << nginx_config(dir_, root_, port_, status_port_, tls_cert_, tls_key_,
                                        extra_config_);
    const std::string stderr_path = dir_ + "/stderr.log", error_log = dir_ + "/error.log";
    pid_ = spawn_nginx(conf, dir_, error_log, stderr_path);
    if (pid_ < 0) {
      if (error) *error = std::string("cannot start nginx: ") + std::strerror(errno);
      return false;
    }
    const auto end = Clock::now() + std::chrono::seconds(5);
    while (Clock::now() < end) {
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        break;
      }
      if (const int fd = connect_loopback(status_port_); fd >= 0) {
        ::close(fd);
        if (raw_counts(&base_connections_, &base_requests_, &why)) return true;
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    if (why.empty())
      why = pid_ < 0 ? "nginx exited"
                     : "nginx did not answer on port " + std::to_string(port_) + " within 5 s";
    why += ": " + read_file(stderr_path) + read_file(error_log);
    stop();
  }
  if (error) *error = why;
  return false;
}

void NginxServer::stop() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  const auto end = Clock::now() + std::chrono::seconds(5);
  int status = 0;
  while (::waitpid(pid_, &status, WNOHANG) == 0) {
    if (Clock::now() > end) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, &status, 0);
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  pid_ = -1;
}

bool NginxServer::raw_counts(uint64_t* accepted, uint64_t* served, std::string* error) {
  const std::string answer = http_exchange(
      status_port_, "GET /nginx_status HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
  // "server accepts handled requests\n A H R", this query's connection and request included.
  const size_t at = answer.find("handled requests");
  if (answer.compare(0, 12, "HTTP/1.1 200") != 0 || at == std::string::npos) {
    if (error) *error = "nginx's status page does not answer: " + answer.substr(0, 200);
    return false;
  }
  uint64_t handled = 0;
  std::istringstream(answer.substr(at + 16)) >> *accepted >> handled >> *served;
  return true;
}

bool NginxServer::counts(uint64_t* connections, uint64_t* requests, std::string* error) {
  uint64_t accepted = 0, served = 0;
  if (!raw_counts(&accepted, &served, error)) return false;
  ++queries_;
  // The baseline (start's port check and its own query) and every status query since.
  *connections = accepted - base_connections_ - queries_;
  *requests = served - base_requests_ - queries_;
  return true;
}

}  // namespace pr::test
