// http:// and https:// files read with range requests through libcurl.
//
// Each connection of the pool is one easy handle on a multi handle of its own: the multi handle
// keeps the handle's kept-alive connection between requests, and driving the transfer through
// curl_multi_poll in short slices lets a read notice its cancel flag and a stalled server within
// tens of milliseconds (curl's own low-speed limit counts whole seconds only).
//
// The first request follows redirects (at most kMaxRedirects) and every later one asks the URL
// it ended at directly: a presigned or mirrored file costs one redirect, not one per node.
#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string_view>
#include <thread>

#include "engine/io/base/io_common.h"
#include "engine/io/base/source_checks.h"
#include "http_source.h"

namespace pr {

namespace {

using Clock = std::chrono::steady_clock;

/// The first request asks for this many bytes: it learns the size, and the file's header (a COPC
/// header with its VLRs fits) is answered from it without another round trip.
constexpr uint64_t kProbeBytes = 16384;

/// How often a transfer that waits for the network looks at its cancel flag and its stall clock.
constexpr int kPollMs = 20;

/// The most redirects the first request follows (a loop ends there).
constexpr long kMaxRedirects = 5;

bool global_init_ok() {
  static std::once_flag once;
  static bool ok = false;
  std::call_once(once, [] { ok = curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK; });
  return ok;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i]) return false;
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\n'))
    s.remove_suffix(1);
  return s;
}

bool parse_u64(std::string_view s, uint64_t* v) {
  const auto r = std::from_chars(s.data(), s.data() + s.size(), *v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size() && !s.empty();
}

/// "bytes FIRST-LAST/TOTAL", or "bytes */TOTAL" (a 416's answer: `first` > `last`).
struct ContentRange {
  uint64_t first = 1, last = 0, total = 0;
};

bool parse_content_range(std::string_view v, ContentRange* r) {
  if (!starts_with_nocase(v, "bytes ")) return false;
  v = trim(v.substr(6));
  const size_t slash = v.find('/');
  if (slash == std::string_view::npos || !parse_u64(v.substr(slash + 1), &r->total)) return false;
  const std::string_view span = v.substr(0, slash);
  if (span == "*") return true;
  const size_t dash = span.find('-');
  return dash != std::string_view::npos && parse_u64(span.substr(0, dash), &r->first) &&
         parse_u64(span.substr(dash + 1), &r->last) && r->first <= r->last && r->last < r->total;
}

/// One request's state, shared with libcurl's callbacks.
struct Transfer {
  CURL* easy = nullptr;
  uint8_t* dst = nullptr;
  uint64_t want = 0;  ///< bytes asked for (room at dst)
  uint64_t got = 0;
  std::string content_range;
  bool whole_file = false;  ///< a 200 answer to the range request (aborted at its first byte)
  bool too_long = false;    ///< more body than asked for
  bool cancelled = false, stalled = false;
  const std::atomic<bool>* cancel = nullptr;
  Clock::duration stall_after{};
  Clock::time_point last_byte{};

  /// Whether the transfer should end now; also called between polls, where curl may call nothing.
  bool should_abort() {
    if (cancel && cancel->load(std::memory_order_relaxed)) cancelled = true;
    if (Clock::now() - last_byte > stall_after) stalled = true;
    return cancelled || stalled;
  }
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const std::string_view line(data, size * count);
  t->last_byte = Clock::now();
  if (starts_with_nocase(line, "http/")) t->content_range.clear();  // a new answer (redirects)
  if (starts_with_nocase(line, "content-range:")) t->content_range = trim(line.substr(14));
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  t->last_byte = Clock::now();
  long status = 0;
  curl_easy_getinfo(t->easy, CURLINFO_RESPONSE_CODE, &status);
  if (status == 200) {  // the whole file is coming: stop it at once rather than download it
    t->whole_file = true;
    return 0;
  }
  if (status != 206) return n;  // an error page: only its status matters
  if (n > t->want - t->got) {
    t->too_long = true;
    return 0;
  }
  std::memcpy(t->dst + t->got, data, n);
  t->got += n;
  return n;
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->should_abort() ? 1 : 0;
}

/// A kept-alive connection: an easy handle and the multi handle that keeps its connection.
struct Connection {
  CURLM* multi = nullptr;
  CURL* easy = nullptr;
  char error[CURL_ERROR_SIZE] = {};
  ~Connection() {
    if (easy) curl_easy_cleanup(easy);
    if (multi) curl_multi_cleanup(multi);
  }
};

std::unique_ptr<Connection> make_connection(const HttpOptions& o) {
  auto c = std::make_unique<Connection>();
  c->multi = curl_multi_init();
  c->easy = curl_easy_init();
  if (!c->multi || !c->easy) return nullptr;
  CURL* e = c->easy;
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  // Only the address given: no proxy from the environment's http_proxy / https_proxy.
  curl_easy_setopt(e, CURLOPT_PROXY, "");
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_MAXREDIRS, kMaxRedirects);
  // Certificates are verified (libcurl's default, said here since it is the point): against the
  // system's store, and the given bundle besides.
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(e, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!o.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, o.ca_file.c_str());
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, long(std::max(1.0, o.connect_timeout_s * 1000.0)));
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(e, CURLOPT_USERAGENT, "pointraster");
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->error);
  curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(e, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(e, CURLOPT_NOPROGRESS, 0L);
  return c;
}

/// Up to `max` connections; a caller beyond that waits for one to come back.
class ConnectionPool {
 public:
  explicit ConnectionPool(HttpOptions options)
      : options_(std::move(options)), max_(std::max(1, options_.max_connections)) {}

  /// Null when cancelled while waiting, or when libcurl cannot make a handle.
  std::unique_ptr<Connection> acquire(const std::atomic<bool>* cancel) {
    std::unique_lock lock(mutex_);
    while (idle_.empty() && open_ >= max_) {
      if (cancel && cancel->load(std::memory_order_relaxed)) return nullptr;
      ready_.wait_for(lock, std::chrono::milliseconds(kPollMs));
    }
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    ++open_;
    lock.unlock();
    auto c = make_connection(options_);
    if (!c) give_back(nullptr);
    return c;
  }

  /// Returns a connection for the next request (null: one fewer connection open).
  void give_back(std::unique_ptr<Connection> c) {
    {
      std::lock_guard lock(mutex_);
      if (c)
        idle_.push_back(std::move(c));
      else
        --open_;
    }
    ready_.notify_one();
  }

 private:
  HttpOptions options_;
  int max_;
  std::mutex mutex_;
  std::condition_variable ready_;
  std::vector<std::unique_ptr<Connection>> idle_;
  int open_ = 0;
};

/// Runs the transfer to its end (or its abort) on the connection's multi handle.
CURLcode perform(Connection& c, Transfer& t) {
  if (curl_multi_add_handle(c.multi, c.easy) != CURLM_OK) return CURLE_FAILED_INIT;
  CURLcode result = CURLE_OK;
  for (bool done = false; !done;) {
    int running = 0;
    if (curl_multi_perform(c.multi, &running) != CURLM_OK) {
      result = CURLE_FAILED_INIT;
      break;
    }
    int queued = 0;
    while (CURLMsg* m = curl_multi_info_read(c.multi, &queued)) {
      if (m->msg != CURLMSG_DONE) continue;
      result = m->data.result;
      done = true;
    }
    if (done) break;
    if (t.should_abort()) {
      result = CURLE_ABORTED_BY_CALLBACK;
      break;
    }
    curl_multi_poll(c.multi, nullptr, 0, kPollMs, nullptr);
  }
  // Removing a handle whose transfer did not finish closes its connection, which is what an
  // abandoned answer needs: its remaining bytes must not be read as the next answer.
  curl_multi_remove_handle(c.multi, c.easy);
  return result;
}

/// One request's outcome: its bytes, or what went wrong (without the URL) and whether another
/// try can help.
struct Attempt {
  bool ok = false;
  bool retry = false;
  bool cancelled = false;
  std::string error;
  uint64_t got = 0;       ///< bytes delivered at the destination
  uint64_t total = 0;     ///< the file's size (Content-Range)
  std::string final_url;  ///< where the redirects, if any, ended
};

Attempt failure(std::string message, bool retry) {
  Attempt a;
  a.error = std::move(message);
  a.retry = retry;
  return a;
}

/// Errors of the address itself (no such host, nothing listening, a bad URL or certificate):
/// asking again gives the same answer.
bool permanent(CURLcode code) {
  switch (code) {
    case CURLE_UNSUPPORTED_PROTOCOL:
    case CURLE_URL_MALFORMAT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_TOO_MANY_REDIRECTS:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_FAILED_INIT:
    case CURLE_OUT_OF_MEMORY:
      return true;
    default:
      return false;
  }
}

/// libcurl's failure in a person's words where the fix is known: a loop of redirects, a
/// certificate that does not verify (its authority unknown: --ca-file; or made for another host),
/// a CA bundle that cannot be read. libcurl's own message stays in brackets.
std::string curl_failure(const Connection& c, CURLcode code, const HttpOptions& o) {
  const std::string curl = c.error[0] ? c.error : curl_easy_strerror(code);
  switch (code) {
    case CURLE_TOO_MANY_REDIRECTS:
      return "more than " + std::to_string(kMaxRedirects) + " redirects (a redirect loop?)";
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_ISSUER_ERROR:
      // OpenSSL's "no alternative certificate subject name matches target host name", GnuTLS's
      // "does not match target host name".
      if (curl.find("host name") != std::string::npos)
        return "the server's certificate is made for another host (" + curl + ")";
      if (!o.ca_file.empty())
        return "the server's certificate is not trusted by the system's store nor by " + o.ca_file +
               " (" + curl + ")";
      return "the server's certificate is not trusted (" + curl +
             "); pass --ca-file with the authority that signed it";
    case CURLE_SSL_CACERT_BADFILE:
      return "the certificate authorities in " +
             (o.ca_file.empty() ? std::string("the system's store") : o.ca_file) +
             " cannot be read (" + curl + ")";
    default:
      return curl;
  }
}

std::string bytes_text(uint64_t first, uint64_t last) {
  return "bytes " + std::to_string(first) + "-" + std::to_string(last);
}

std::string status_text(long status) {
  if (status == 404) return "not found (HTTP 404)";
  if (status == 403) return "forbidden (HTTP 403)";
  return "HTTP " + std::to_string(status);
}

/// What a finished transfer of [offset, offset + t.want) amounts to. `probe`: the first request,
/// whose range may reach past the end of a smaller file.
Attempt judge(const Connection& c, const Transfer& t, CURLcode code, const HttpOptions& o,
              uint64_t offset, bool probe) {
  if (t.cancelled) {
    Attempt a = failure("cancelled", false);
    a.cancelled = true;
    return a;
  }
  if (t.whole_file)
    return failure(
        "the server does not support range requests (it answered 200 with the whole file)", false);
  if (t.too_long)
    return failure("the server sent more than the " + std::to_string(t.want) + " bytes asked for",
                   false);
  if (t.stalled) {
    char seconds[32];
    std::snprintf(seconds, sizeof(seconds), "%g",
                  std::chrono::duration<double>(t.stall_after).count());
    return failure(std::string("no data for ") + seconds + " s (stalled)", true);
  }
  if (code != CURLE_OK) return failure(curl_failure(c, code, o), !permanent(code));
  long status = 0;
  curl_easy_getinfo(c.easy, CURLINFO_RESPONSE_CODE, &status);
  ContentRange r;
  const bool has_range = parse_content_range(t.content_range, &r);
  curl_off_t length = -1;
  curl_easy_getinfo(c.easy, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
  // An empty file has no range to send: servers answer 416 (bytes */0) or 200 with no body.
  if (probe && ((status == 416 && has_range && r.total == 0) || (status == 200 && length == 0))) {
    Attempt a;
    a.ok = true;
    return a;
  }
  // Server errors, "too many requests" (object stores' throttling) and a request timeout pass.
  if (status >= 500 || status == 429 || status == 408) return failure(status_text(status), true);
  if (status != 206) return failure(status_text(status), false);
  if (!has_range)
    return failure(
        "the server's 206 answer has no usable Content-Range (\"" + t.content_range + "\")", false);
  const uint64_t last = offset + t.want - 1;
  if (r.first != offset || (probe ? r.last > last : r.last != last))
    return failure("the server answered " + bytes_text(r.first, r.last) + " to a request for " +
                       bytes_text(offset, last),
                   false);
  if (t.got != r.last - r.first + 1)
    return failure("the answer was cut short (" + std::to_string(t.got) + " of " +
                       std::to_string(r.last - r.first + 1) + " bytes)",
                   true);
  Attempt a;
  a.ok = true;
  a.got = t.got;
  a.total = r.total;
  return a;
}

/// A range request for `url`; the first (`probe`) follows redirects and says where they ended.
Attempt request(Connection& c, const std::string& url, const HttpOptions& o, uint64_t offset,
                uint64_t size, uint8_t* dst, const std::atomic<bool>* cancel, bool probe) {
  Transfer t;
  t.easy = c.easy;
  t.dst = dst;
  t.want = size;
  t.cancel = cancel;
  t.stall_after = std::chrono::duration_cast<Clock::duration>(
      std::chrono::duration<double>(std::max(0.01, o.stall_timeout_s)));
  t.last_byte = Clock::now();
  const std::string range = std::to_string(offset) + "-" + std::to_string(offset + size - 1);
  c.error[0] = '\0';
  curl_easy_setopt(c.easy, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c.easy, CURLOPT_FOLLOWLOCATION, probe ? 1L : 0L);
  curl_easy_setopt(c.easy, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(c.easy, CURLOPT_HEADERDATA, &t);
  curl_easy_setopt(c.easy, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c.easy, CURLOPT_XFERINFODATA, &t);
  const CURLcode code = perform(c, t);
  Attempt a = judge(c, t, code, o, offset, probe);
  if (a.ok && probe) {
    const char* effective = nullptr;
    curl_easy_getinfo(c.easy, CURLINFO_EFFECTIVE_URL, &effective);
    a.final_url = effective ? effective : url;
  }
  return a;
}

/// Waits `seconds`, or less when `cancel` turns true (then false).
bool wait_unless_cancelled(double seconds, const std::atomic<bool>* cancel) {
  const auto end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                      std::chrono::duration<double>(seconds));
  while (Clock::now() < end) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return false;
    std::this_thread::sleep_for(
        std::min<Clock::duration>(end - Clock::now(), std::chrono::milliseconds(10)));
  }
  return !(cancel && cancel->load(std::memory_order_relaxed));
}

class HttpByteSource final : public ByteSource {
 public:
  HttpByteSource(std::string url, const HttpOptions& options)
      : url_(std::move(url)), target_(url_), options_(options), pool_(options) {}

  /// The first request: the size, and the file's first bytes.
  bool open(std::string* error) {
    head_.resize(kProbeBytes);
    const Attempt a = fetch(0, kProbeBytes, head_.data(), nullptr, true);
    if (!a.ok) {
      if (error) *error = a.error;
      return false;
    }
    head_.resize(a.got);
    size_ = a.total;
    target_ = a.final_url;
    return true;
  }

  const std::string& name() const override { return url_; }
  uint64_t size() const override { return size_; }
  uint64_t bytes_read() const override { return bytes_read_.load(std::memory_order_relaxed); }

  bool read(uint64_t offset, uint64_t size, std::vector<uint8_t>& out, std::string* error,
            const std::atomic<bool>* cancel) override {
    if (cancelled(cancel, error)) return false;
    if (!byte_range_fits(url_, offset, size, size_, error)) return false;
    if (size == 0) {
      out.clear();
      return true;
    }
    if (offset + size <= head_.size()) {
      out.assign(head_.begin() + ptrdiff_t(offset), head_.begin() + ptrdiff_t(offset + size));
    } else {
      out.resize(size);
      const Attempt a = fetch(offset, size, out.data(), cancel, false);
      if (!a.ok) {
        if (error) *error = a.error;
        return false;
      }
      if (a.total != size_) {
        if (error)
          *error = io::redact_url_queries(url_ + ": the file changed on the server (" +
                                          std::to_string(a.total) + " bytes, " +
                                          std::to_string(size_) + " when opened)");
        return false;
      }
    }
    bytes_read_.fetch_add(size, std::memory_order_relaxed);
    return true;
  }

 private:
  /// A request, tried again after a retryable failure with a backoff that doubles each time. The
  /// error names the URL, the bytes (but for the first request) and the number of tries.
  Attempt fetch(uint64_t offset, uint64_t size, uint8_t* dst, const std::atomic<bool>* cancel,
                bool probe) {
    Attempt a;
    int tries = 0;
    for (int i = 0; i <= std::max(0, options_.retries); ++i) {
      // The i-th retry waits backoff_s * 2^(i-1).
      const double backoff = i > 0 ? options_.backoff_s * double(1u << std::min(i - 1, 20)) : 0.0;
      if (backoff > 0.0 && !wait_unless_cancelled(backoff, cancel)) {
        a.cancelled = true;
        break;
      }
      std::unique_ptr<Connection> c = pool_.acquire(cancel);
      if (!c) {
        a = failure("libcurl cannot start a transfer", false);
        a.cancelled = cancel && cancel->load(std::memory_order_relaxed);
        break;
      }
      a = request(*c, target_, options_, offset, size, dst, cancel, probe);
      pool_.give_back(std::move(c));
      ++tries;
      if (a.ok || !a.retry) break;
    }
    if (a.ok) return a;
    if (a.cancelled) {
      a.ok = false;
      a.error = "cancelled";
      return a;
    }
    std::string where = probe ? "" : bytes_text(offset, offset + size - 1);
    if (tries > 1) where += (where.empty() ? "" : ", ") + std::to_string(tries) + " tries";
    a.error =
        io::redact_url_queries(url_ + ": " + a.error + (where.empty() ? "" : " (" + where + ")"));
    return a;
  }

  std::string url_;     ///< as given: the name in messages
  std::string target_;  ///< where the first request's redirects ended: every later request's
  HttpOptions options_;
  ConnectionPool pool_;
  uint64_t size_ = 0;
  std::vector<uint8_t> head_;  ///< the file's first bytes, from the first request
  std::atomic<uint64_t> bytes_read_{0};
};

}  // namespace

std::unique_ptr<ByteSource> open_http_source(const std::string& url, const HttpOptions& options,
                                             std::string* error) {
  if (!global_init_ok()) {
    if (error) *error = io::redact_url_queries(url + ": libcurl cannot be initialised");
    return nullptr;
  }
  auto source = std::make_unique<HttpByteSource>(url, options);
  if (!source->open(error)) return nullptr;
  return source;
}

}  // namespace pr
