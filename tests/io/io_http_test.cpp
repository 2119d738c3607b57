// Byte sources: local files (pread), bytes in memory, and http:// URLs served by a real nginx on
// 127.0.0.1 (started by the tests with a config they write), directly and through a fault proxy
// that drops connections, cuts bodies short, answers 503, stalls, adds latency or ignores ranges.
// Every byte read is compared with the file on disk; the servers' own counts check retries and
// kept-alive connections.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "engine/io/open_byte_source.h"
#include "fault_proxy.h"
#include "nginx_server.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

using test::FaultProxy;
using test::NginxServer;

std::vector<uint8_t> random_bytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> v(n);
  for (uint8_t& b : v) b = uint8_t(rng());
  return v;
}

void write_file(const fs::path& path, const std::vector<uint8_t>& bytes) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary)
      .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

std::vector<uint8_t> slice(const std::vector<uint8_t>& v, uint64_t offset, uint64_t size) {
  return {v.begin() + ptrdiff_t(offset), v.begin() + ptrdiff_t(offset + size)};
}

/// A temporary folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "pr-http-test-XXXXXX").string();
    if (mkdtemp(t.data())) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// Small retries and backoff keep the failing cases fast.
HttpOptions quick(int retries = 3) {
  HttpOptions o;
  o.retries = retries;
  o.backoff_s = 0.01;
  o.stall_timeout_s = 2.0;
  o.max_connections = 4;
  return o;
}

// ---- local files and memory ----

TEST(FileSource, RangesEqualTheFile) {
  TempDir dir;
  const auto bytes = random_bytes(300000, 1);
  const std::string path = (dir.path / "data.bin").string();
  write_file(path, bytes);
  std::string error;
  auto src = open_byte_source(path, &error);
  ASSERT_TRUE(src) << error;
  EXPECT_EQ(src->name(), path);
  EXPECT_EQ(src->size(), bytes.size());
  std::vector<uint8_t> out;
  uint64_t total = 0;
  for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 1}, {0, 300000}, {12345, 6789}, {299999, 1}, {300000, 0}, {150000, 0}}) {
    ASSERT_TRUE(src->read(offset, size, out, &error)) << error;
    EXPECT_EQ(out, slice(bytes, offset, size)) << offset << "+" << size;
    total += size;
  }
  EXPECT_EQ(src->bytes_read(), total);
}

TEST(FileSource, RangeOutsideTheFileIsNamed) {
  TempDir dir;
  const std::string path = (dir.path / "small.bin").string();
  write_file(path, random_bytes(150, 2));
  std::string error;
  auto src = open_byte_source(path, &error);
  ASSERT_TRUE(src) << error;
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(100, 100, out, &error));
  EXPECT_EQ(error, path + ": bytes 100-200 lie outside the file (150 bytes)");
  EXPECT_FALSE(src->read(151, 0, out, &error));
  EXPECT_FALSE(src->read(1, UINT64_MAX, out, &error));
  EXPECT_EQ(error, path + ": 18446744073709551615 bytes from 1 lie outside the file (150 bytes)");
  EXPECT_EQ(src->bytes_read(), 0u);
}

TEST(FileSource, MissingFileAndFolderAreNamed) {
  TempDir dir;
  const std::string path = (dir.path / "absent.copc.laz").string();
  std::string error;
  EXPECT_FALSE(open_byte_source(path, &error));
  EXPECT_EQ(error, "cannot open " + path + ": No such file or directory");
  EXPECT_FALSE(open_byte_source(dir.path.string(), &error));
  EXPECT_EQ(error, "cannot open " + dir.path.string() + ": it is a folder, not a file");
}

TEST(FileSource, ThreadsReadAtOnce) {
  TempDir dir;
  const auto bytes = random_bytes(1 << 20, 3);
  const std::string path = (dir.path / "data.bin").string();
  write_file(path, bytes);
  std::string error;
  auto src = open_byte_source(path, &error);
  ASSERT_TRUE(src) << error;
  std::atomic<int> bad{0};
  std::atomic<uint64_t> total{0};
  std::vector<std::thread> threads;
  for (uint32_t t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(t);
      std::vector<uint8_t> out;
      std::string e;
      for (int i = 0; i < 200; ++i) {
        const uint64_t offset = rng() % bytes.size(), size = rng() % (bytes.size() - offset + 1);
        if (!src->read(offset, size, out, &e) || out != slice(bytes, offset, size)) ++bad;
        total += size;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(src->bytes_read(), total.load());
}

TEST(ByteSource, CancelledBeforeReading) {
  auto src = memory_byte_source(random_bytes(10, 4), "mem");
  std::atomic<bool> cancel{true};
  std::vector<uint8_t> out;
  std::string error;
  EXPECT_FALSE(src->read(0, 5, out, &error, &cancel));
  EXPECT_EQ(error, "cancelled");
}

TEST(ByteSource, MemorySourceRanges) {
  const auto bytes = random_bytes(1000, 5);
  auto src = memory_byte_source(bytes, "fuzz input");
  EXPECT_EQ(src->name(), "fuzz input");
  EXPECT_EQ(src->size(), 1000u);
  std::vector<uint8_t> out;
  std::string error;
  ASSERT_TRUE(src->read(10, 990, out, &error)) << error;
  EXPECT_EQ(out, slice(bytes, 10, 990));
  EXPECT_FALSE(src->read(999, 2, out, &error));
  EXPECT_EQ(error, "fuzz input: bytes 999-1001 lie outside the file (1000 bytes)");
  EXPECT_EQ(src->bytes_read(), 990u);
}

TEST(ByteSource, IsUrl) {
  EXPECT_TRUE(is_url("http://example.org/a.copc.laz"));
  EXPECT_TRUE(is_url("HTTPS://example.org/a.copc.laz"));
  EXPECT_TRUE(is_url("Http://x"));
  EXPECT_FALSE(is_url("/data/http://x"));
  EXPECT_FALSE(is_url("ftp://example.org/a.laz"));
  EXPECT_FALSE(is_url("http:/x"));
  EXPECT_FALSE(is_url(""));
}

// ---- HTTP ----

/// nginx serving a folder of files written here: data.bin (1 MiB), small.bin (100 bytes),
/// empty.bin, and private/secret.bin behind a `deny all`.
class Http : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NginxServer::unavailable(); !why.empty()) {
      if (test::nginx_required()) FAIL() << why << " (required under CI)";
      GTEST_SKIP() << why;
    }
    data_ = random_bytes(1 << 20, 7);
    write_file(dir_.path / "data.bin", data_);
    write_file(dir_.path / "small.bin", random_bytes(100, 8));
    write_file(dir_.path / "empty.bin", {});
    write_file(dir_.path / "private" / "secret.bin", random_bytes(100, 9));
    nginx_ = std::make_unique<NginxServer>(dir_.path.string(), "location /private/ { deny all; }");
    std::string error;
    ASSERT_TRUE(nginx_->start(&error)) << error;
  }

  /// A proxy in front of nginx.
  std::unique_ptr<FaultProxy> proxy() {
    auto p = std::make_unique<FaultProxy>(nginx_->port());
    std::string error;
    EXPECT_TRUE(p->start(&error)) << error;
    return p;
  }

  /// Reads [offset, offset + size) and compares it with data.bin.
  void expect_range(ByteSource& src, uint64_t offset, uint64_t size) {
    std::vector<uint8_t> out;
    std::string error;
    ASSERT_TRUE(src.read(offset, size, out, &error)) << error;
    EXPECT_EQ(out, slice(data_, offset, size)) << "bytes " << offset << "+" << size;
  }

  TempDir dir_;
  std::vector<uint8_t> data_;
  std::unique_ptr<NginxServer> nginx_;
};

TEST_F(Http, SizeAndRangesEqualTheFile) {
  std::string error;
  const HttpOptions o = quick();
  auto src = open_byte_source(nginx_->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  EXPECT_EQ(src->name(), nginx_->url("data.bin"));
  EXPECT_EQ(src->size(), data_.size());
  // Inside the first request's bytes, across their end, far in, the last byte, everything.
  for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
           {0, 375}, {16000, 1000}, {500000, 70000}, {(1 << 20) - 1, 1}, {0, 1 << 20}})
    expect_range(*src, offset, size);
  EXPECT_EQ(src->bytes_read(), 375u + 1000 + 70000 + 1 + (1 << 20));
  expect_range(*src, 500000, 0);  // nothing to ask the server
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(1 << 20, 1, out, &error));
  EXPECT_EQ(error, nginx_->url("data.bin") +
                       ": bytes 1048576-1048577 lie outside the file "
                       "(1048576 bytes)");
  auto small = open_byte_source(nginx_->url("small.bin"), &error, &o);
  ASSERT_TRUE(small) << error;
  EXPECT_EQ(small->size(), 100u);
  auto empty = open_byte_source(nginx_->url("empty.bin"), &error, &o);
  ASSERT_TRUE(empty) << error;
  EXPECT_EQ(empty->size(), 0u);
  ASSERT_TRUE(empty->read(0, 0, out, &error)) << error;
  EXPECT_TRUE(out.empty());
}

TEST(HttpTestdata, SharedFilesThroughNginxEqualTheFiles) {
  REQUIRE_TESTDATA("laz");
  START_NGINX(server, test::kData, "");
  for (const char* name : {"laz/lone-star.copc.laz", "laz/simple.copc.laz"}) {
    std::string error;
    auto local = open_byte_source(test::kData + "/" + name, &error);
    ASSERT_TRUE(local) << error;
    auto remote = open_byte_source(server.url(name), &error);
    ASSERT_TRUE(remote) << error;
    ASSERT_EQ(remote->size(), local->size()) << name;
    const uint64_t n = local->size();
    for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
             {0, 589}, {n / 3, n / 4}, {n - 1000, 1000}, {0, n}}) {
      std::vector<uint8_t> a, b;
      ASSERT_TRUE(local->read(offset, size, a, &error)) << error;
      ASSERT_TRUE(remote->read(offset, size, b, &error)) << error;
      EXPECT_EQ(a, b) << name << " bytes " << offset << "+" << size;
    }
  }
}

TEST_F(Http, ManyThreadsShareTheConnections) {
  std::string error;
  HttpOptions o = quick();
  o.max_connections = 3;
  auto src = open_byte_source(nginx_->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  std::atomic<int> bad{0};
  std::vector<std::thread> threads;
  constexpr int kThreads = 8, kReads = 25;
  for (uint32_t t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      std::mt19937 rng(100 + t);
      std::vector<uint8_t> out;
      std::string e;
      for (int i = 0; i < kReads; ++i) {
        // Past the first request's bytes, so that every read is a request.
        const uint64_t offset = 20000 + rng() % 900000, size = 1 + rng() % 100000;
        if (!src->read(offset, size, out, &e) || out != slice(data_, offset, size)) ++bad;
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(bad.load(), 0);
  uint64_t connections = 0, requests = 0;
  ASSERT_TRUE(nginx_->counts(&connections, &requests, &error)) << error;
  EXPECT_EQ(requests, 1u + kThreads * kReads);
  EXPECT_LE(connections, 3u);
}

TEST_F(Http, KeptAliveConnectionCarriesEveryRequest) {
  std::string error;
  HttpOptions o = quick();
  o.max_connections = 1;
  auto p = proxy();
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  for (uint64_t i = 0; i < 10; ++i) expect_range(*src, 20000 + i * 50000, 30000);
  EXPECT_EQ(p->requests(), 11u);
  EXPECT_EQ(p->connections(), 1u);
  // Straight to nginx, too.
  auto direct = open_byte_source(nginx_->url("data.bin"), &error, &o);
  ASSERT_TRUE(direct) << error;
  for (uint64_t i = 0; i < 10; ++i) expect_range(*direct, 30000 + i * 50000, 20000);
  uint64_t connections = 0, requests = 0;
  ASSERT_TRUE(nginx_->counts(&connections, &requests, &error)) << error;
  EXPECT_EQ(requests, 22u);     // 11 through the proxy (one connection each), 11 direct
  EXPECT_EQ(connections, 12u);  // the proxy's 11 and the direct source's one
}

TEST_F(Http, NotFoundAndForbiddenAreNamed) {
  std::string error;
  const HttpOptions o = quick();
  EXPECT_FALSE(open_byte_source(nginx_->url("absent.copc.laz"), &error, &o));
  EXPECT_EQ(error, nginx_->url("absent.copc.laz") + ": not found (HTTP 404)");
  EXPECT_FALSE(open_byte_source(nginx_->url("private/secret.bin"), &error, &o));
  EXPECT_EQ(error, nginx_->url("private/secret.bin") + ": forbidden (HTTP 403)");
  uint64_t connections = 0, requests = 0;
  ASSERT_TRUE(nginx_->counts(&connections, &requests, &error)) << error;
  EXPECT_EQ(requests, 2u);  // not retried
}

TEST_F(Http, UnreachableServerIsNamed) {
  const uint16_t port = test::free_loopback_port();  // nothing listens there
  const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/data.bin";
  std::string error;
  const HttpOptions o = quick();
  EXPECT_FALSE(open_byte_source(url, &error, &o));
  EXPECT_EQ(error.rfind(url + ": ", 0), 0u) << error;
  EXPECT_NE(error.find("onnect"), std::string::npos) << error;  // curl's "Couldn't connect"
}

TEST_F(Http, ServerWithoutRangesIsNamed) {
  auto p = proxy();
  p->set_fault({FaultProxy::Mode::kNoRanges});
  std::string error;
  const HttpOptions o = quick();
  EXPECT_FALSE(open_byte_source(p->url("data.bin"), &error, &o));
  EXPECT_EQ(error, p->url("data.bin") +
                       ": the server does not support range requests (it answered 200 with the "
                       "whole file)");
  EXPECT_EQ(p->requests(), 1u);
}

TEST_F(Http, AnswerForOtherBytesIsRefused) {
  auto p = proxy();
  std::string error;
  const HttpOptions o = quick();
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  p->set_fault({FaultProxy::Mode::kWrongRange});
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(100000, 1000, out, &error));
  EXPECT_EQ(error, p->url("data.bin") +
                       ": the server answered bytes 100001-100999 to a request for bytes "
                       "100000-100999 (bytes 100000-100999)");
  EXPECT_EQ(p->requests(), 2u);  // not retried: the server means it
  EXPECT_FALSE(open_byte_source(p->url("data.bin"), &error, &o));
  EXPECT_EQ(error, p->url("data.bin") +
                       ": the server answered bytes 1-16383 to a request for bytes 0-16383");
}

TEST_F(Http, ProxyFromTheEnvironmentIsIgnored) {
  const char* old = std::getenv("http_proxy");
  const std::string saved = old ? old : "";
  setenv("http_proxy", "http://127.0.0.1:1", 1);
  std::string error;
  const HttpOptions o = quick();
  auto src = open_byte_source(nginx_->url("small.bin"), &error, &o);
  if (old)
    setenv("http_proxy", saved.c_str(), 1);
  else
    unsetenv("http_proxy");
  ASSERT_TRUE(src) << error;
  EXPECT_EQ(src->size(), 100u);
}

TEST_F(Http, ServiceUnavailableIsRetried) {
  auto p = proxy();
  p->set_fault({FaultProxy::Mode::kFail503, 2});
  std::string error;
  const HttpOptions o = quick(3);
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  EXPECT_EQ(src->size(), data_.size());
  EXPECT_EQ(p->faulted(), 2u);
  p->set_fault({FaultProxy::Mode::kFail503, 3});
  expect_range(*src, 100000, 50000);
  EXPECT_EQ(p->faulted(), 5u);
  EXPECT_EQ(p->requests(), 3u + 4u);
}

TEST_F(Http, ServiceUnavailableForeverGivesUp) {
  auto p = proxy();
  std::string error;
  const HttpOptions o = quick(2);
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  p->set_fault({FaultProxy::Mode::kFail503});
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(100000, 1000, out, &error));
  EXPECT_EQ(error, p->url("data.bin") + ": HTTP 503 (bytes 100000-100999, 3 tries)");
  EXPECT_FALSE(open_byte_source(p->url("data.bin"), &error, &o));
  EXPECT_EQ(error, p->url("data.bin") + ": HTTP 503 (3 tries)");
  EXPECT_EQ(p->requests(), 1u + 3u + 3u);
}

TEST_F(Http, DroppedConnectionIsRetried) {
  auto p = proxy();
  std::string error;
  const HttpOptions o = quick();
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  FaultProxy::Fault drop{FaultProxy::Mode::kDrop, 2};
  drop.drop_after = 5000;
  p->set_fault(drop);
  expect_range(*src, 200000, 300000);
  EXPECT_EQ(p->faulted(), 2u);
  EXPECT_EQ(p->requests(), 1u + 3u);
  EXPECT_EQ(src->bytes_read(), 300000u);
}

TEST_F(Http, TruncatedBodyIsRetried) {
  auto p = proxy();
  std::string error;
  const HttpOptions o = quick(2);
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  p->set_fault({FaultProxy::Mode::kTruncate, 1});
  expect_range(*src, 300000, 40000);
  EXPECT_EQ(p->faulted(), 1u);
  p->set_fault({FaultProxy::Mode::kTruncate});
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(300000, 40000, out, &error));
  EXPECT_EQ(error, p->url("data.bin") +
                       ": the answer was cut short (20000 of 40000 bytes) (bytes 300000-339999, "
                       "3 tries)");
}

TEST_F(Http, StalledTransferIsAbandonedAndRetried) {
  auto p = proxy();
  std::string error;
  HttpOptions o = quick();
  o.stall_timeout_s = 0.5;
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  FaultProxy::Fault stall{FaultProxy::Mode::kStall, 1};
  stall.stall_s = 20.0;  // the read succeeds only if the stall is abandoned
  p->set_fault(stall);
  expect_range(*src, 400000, 200000);
  EXPECT_EQ(p->faulted(), 1u);
  EXPECT_EQ(p->requests(), 1u + 2u);
}

TEST_F(Http, CancelEndsAStalledRead) {
  auto p = proxy();
  std::string error;
  HttpOptions o = quick();
  o.stall_timeout_s = 60.0;
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  FaultProxy::Fault stall{FaultProxy::Mode::kStall};
  stall.stall_s = 20.0;  // longer than the test may take: only the cancel ends the read
  p->set_fault(stall);
  std::atomic<bool> cancel{false};
  std::thread canceller([&] {
    while (p->faulted() == 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    cancel = true;
  });
  std::vector<uint8_t> out;
  EXPECT_FALSE(src->read(100000, 500000, out, &error, &cancel));
  canceller.join();
  EXPECT_EQ(error, "cancelled");
  EXPECT_EQ(p->requests(), 2u);  // no retry after a cancel
}

TEST_F(Http, AddedLatency) {
  auto p = proxy();
  FaultProxy::Fault slow;
  slow.latency_ms = 30;
  p->set_fault(slow);
  std::string error;
  const HttpOptions o = quick();
  auto src = open_byte_source(p->url("data.bin"), &error, &o);
  ASSERT_TRUE(src) << error;
  std::vector<std::thread> threads;
  for (uint64_t t = 0; t < 4; ++t)
    threads.emplace_back([&, t] { expect_range(*src, 50000 + t * 200000, 100000); });
  for (auto& t : threads) t.join();
  EXPECT_EQ(p->requests(), 5u);
  EXPECT_EQ(p->faulted(), 0u);  // latency alone is no fault
}

}  // namespace
}  // namespace pr
