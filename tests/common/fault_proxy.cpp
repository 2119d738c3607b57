#include "fault_proxy.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include "nginx_server.h"

namespace pr::test {

namespace {

constexpr int kPollMs = 50;

bool send_all(int fd, const char* data, size_t size) {
  while (size > 0) {
    const ssize_t n = ::send(fd, data, size, MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= size_t(n);
  }
  return true;
}

bool send_all(int fd, const std::string& s) {
  return send_all(fd, s.data(), s.size());
}

std::string lower(std::string s) {
  for (char& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

/// The value of header `name` (lower case) among the lines of `head`, "" when absent.
std::string header(const std::string& head, const std::string& name) {
  size_t at = 0;
  while ((at = head.find("\r\n", at)) != std::string::npos) {
    at += 2;
    const size_t end = std::min(head.find("\r\n", at), head.size());
    const std::string line = head.substr(at, end - at);
    const size_t colon = line.find(':');
    if (colon != std::string::npos && lower(line.substr(0, colon)) == name) {
      size_t v = colon + 1;
      while (v < line.size() && line[v] == ' ') ++v;
      return line.substr(v);
    }
  }
  return "";
}

/// `head` (status line and headers) without the framing headers, which the proxy writes itself.
std::string without_framing(const std::string& head) {
  std::string out;
  size_t at = 0;
  for (bool first = true; at < head.size(); first = false) {
    const size_t end = std::min(head.find("\r\n", at), head.size());
    const std::string line = head.substr(at, end - at);
    const std::string key = lower(line.substr(0, line.find(':')));
    if (first || (key != "content-length" && key != "connection" && key != "keep-alive" &&
                  key != "transfer-encoding"))
      out += line + "\r\n";
    at = end + 2;
  }
  return out;
}

/// "bytes=A-B" as "bytes=A+1-B" (other forms as they are).
std::string later_by_one(const std::string& range) {
  unsigned long long first = 0, last = 0;
  if (std::sscanf(range.c_str(), "bytes=%llu-%llu", &first, &last) != 2) return range;
  return "bytes=" + std::to_string(first + 1) + "-" + std::to_string(last);
}

}  // namespace

struct FaultProxy::Request {
  std::string path;
  std::string range;  ///< the Range header's value, "" when none
};

FaultProxy::FaultProxy(uint16_t upstream_port) : upstream_port_(upstream_port) {}

FaultProxy::~FaultProxy() {
  stop();
}

std::string FaultProxy::url(const std::string& relative_path) const {
  const bool slash = !relative_path.empty() && relative_path[0] == '/';
  return "http://127.0.0.1:" + std::to_string(port_) + (slash ? "" : "/") + relative_path;
}

bool FaultProxy::start(std::string* error) {
  listener_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (listener_ < 0 || ::bind(listener_, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      ::listen(listener_, 64) != 0 ||
      ::getsockname(listener_, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    if (error) *error = std::string("fault proxy: cannot listen: ") + std::strerror(errno);
    if (listener_ >= 0) ::close(listener_);
    listener_ = -1;
    return false;
  }
  port_ = ntohs(a.sin_port);
  acceptor_ = std::thread(&FaultProxy::accept_loop, this);
  return true;
}

void FaultProxy::stop() {
  stopping_ = true;
  wake_.notify_all();
  if (acceptor_.joinable()) acceptor_.join();
  std::vector<std::thread> workers;
  {
    std::lock_guard lock(mutex_);
    for (const int fd : clients_) ::shutdown(fd, SHUT_RDWR);  // wakes a worker in recv or send
    workers.swap(workers_);
  }
  for (std::thread& t : workers) t.join();
  if (listener_ >= 0) ::close(listener_);
  listener_ = -1;
}

void FaultProxy::set_fault(const Fault& fault) {
  std::lock_guard lock(mutex_);
  fault_ = fault;
  fault_uses_ = 0;
}

FaultProxy::Fault FaultProxy::take_fault(bool* hit) {
  std::lock_guard lock(mutex_);
  *hit = fault_.mode != Mode::kPass && (fault_.count < 0 || fault_uses_ < fault_.count);
  if (*hit) ++fault_uses_;
  return fault_;
}

bool FaultProxy::pause(double seconds) {
  std::unique_lock lock(mutex_);
  wake_.wait_for(lock, std::chrono::duration<double>(seconds), [&] { return stopping_.load(); });
  return !stopping_;
}

void FaultProxy::accept_loop() {
  while (!stopping_) {
    pollfd p{listener_, POLLIN, 0};
    if (::poll(&p, 1, kPollMs) <= 0) continue;
    const int fd = ::accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    ++connections_;
    std::lock_guard lock(mutex_);
    clients_.insert(fd);
    workers_.emplace_back(&FaultProxy::serve, this, fd);
  }
}

void FaultProxy::serve(int client) {
  std::string buffer;
  char chunk[16384];
  while (!stopping_) {
    size_t end = buffer.find("\r\n\r\n");
    if (end == std::string::npos) {
      pollfd p{client, POLLIN, 0};
      if (::poll(&p, 1, kPollMs) <= 0) continue;
      const ssize_t n = ::recv(client, chunk, sizeof(chunk), 0);
      if (n <= 0 || buffer.size() > 65536) break;
      buffer.append(chunk, size_t(n));
      continue;
    }
    const std::string head = buffer.substr(0, end);
    buffer.erase(0, end + 4);
    Request r;
    const size_t sp1 = head.find(' '), sp2 = head.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) break;
    r.path = head.substr(sp1 + 1, sp2 - sp1 - 1);
    r.range = header(head, "range");
    if (!answer(client, r)) break;
  }
  std::lock_guard lock(mutex_);
  clients_.erase(client);
  ::close(client);
}

bool FaultProxy::answer(int client, const Request& r) {
  bool hit = false;
  const Fault f = take_fault(&hit);
  ++requests_;
  if (hit) ++faulted_;
  if (f.latency_ms > 0 && !pause(f.latency_ms / 1000.0)) return false;
  if (hit && f.mode == Mode::kFail503) {
    const std::string body = "busy\n";
    return send_all(client, "HTTP/1.1 503 Service Unavailable\r\nContent-Length: " +
                                std::to_string(body.size()) + "\r\nConnection: keep-alive\r\n\r\n" +
                                body);
  }
  const bool ranged = !r.range.empty() && !(hit && f.mode == Mode::kNoRanges);
  const std::string range = hit && f.mode == Mode::kWrongRange ? later_by_one(r.range) : r.range;
  const std::string up =
      http_exchange(upstream_port_,
                    "GET " + r.path + " HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n" +
                        (ranged ? "Range: " + range + "\r\n" : "") + "\r\n",
                    10000);
  const size_t end = up.find("\r\n\r\n");
  if (end == std::string::npos)
    return send_all(client, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n");
  const std::string head = without_framing(up.substr(0, end + 2));
  const std::string body = up.substr(end + 4);
  const Mode mode = hit ? f.mode : Mode::kPass;
  const size_t sent = mode == Mode::kTruncate ? body.size() / 2 : body.size();
  if (!send_all(client, head + "Content-Length: " + std::to_string(sent) +
                            "\r\nConnection: keep-alive\r\n\r\n"))
    return false;
  if (mode == Mode::kDrop) {
    send_all(client, body.data(), std::min<size_t>(body.size(), size_t(f.drop_after)));
    return false;  // serve() closes the connection
  }
  if (mode == Mode::kStall) {
    const size_t half = body.size() / 2;
    if (!send_all(client, body.data(), half) || !pause(f.stall_s)) return false;
    return send_all(client, body.data() + half, body.size() - half);
  }
  return send_all(client, body.data(), sent);
}

}  // namespace pr::test
