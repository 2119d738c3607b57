// https:// sources and redirects: nginx on 127.0.0.1 serving TLS with a certificate signed by a
// certificate authority the test makes (tests/common/test_certs.h). The authority given as
// HttpOptions::ca_file is trusted; without it, or for a certificate made for another host, the
// open is refused with one line. Redirects of every kind are followed by the first request only:
// nginx's counts show the range requests after it going to the final URL.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "engine/io/open_byte_source.h"
#include "nginx_server.h"
#include "test_certs.h"

namespace fs = std::filesystem;

namespace pr {
namespace {

using test::NginxServer;

/// A temporary folder removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    std::string t = (fs::temp_directory_path() / "pr-https-test-XXXXXX").string();
    if (mkdtemp(t.data())) path = t;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

/// nginx's requests so far.
uint64_t requests(NginxServer& server) {
  uint64_t connections = 0, served = 0;
  std::string error;
  EXPECT_TRUE(server.counts(&connections, &served, &error)) << error;
  return served;
}

/// data.bin (300 kB) served over TLS by a server whose certificate names 127.0.0.1, with a
/// redirect of each kind to it (rNNN.bin) and a redirect to itself (loop.bin).
class Https : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const std::string why = NginxServer::unavailable(); !why.empty()) {
      if (test::nginx_required()) FAIL() << why << " (required under CI)";
      GTEST_SKIP() << why;
    }
    MAKE_TEST_CERTS(certs, dir_.path.string());
    certs_ = certs;
    fs::create_directories(dir_.path / "www");
    std::mt19937 rng(11);
    data_.resize(300000);
    for (uint8_t& b : data_) b = uint8_t(rng());
    std::ofstream(dir_.path / "www" / "data.bin", std::ios::binary)
        .write(reinterpret_cast<const char*>(data_.data()), std::streamsize(data_.size()));
    std::string redirects = "location = /loop.bin { return 302 /loop.bin; }";
    for (const char* code : {"301", "302", "303", "307", "308"})
      redirects += std::string(" location = /r") + code + ".bin { return " + code + " /data.bin; }";
    nginx_ = std::make_unique<NginxServer>((dir_.path / "www").string(), redirects);
    nginx_->use_tls(certs_.server, certs_.server_key);
    std::string error;
    ASSERT_TRUE(nginx_->start(&error)) << error;
  }

  HttpOptions trusting() const {
    HttpOptions o;
    o.retries = 2;
    o.backoff_s = 0.01;
    o.ca_file = certs_.ca;
    return o;
  }

  void expect_ranges(ByteSource& src) {
    std::string error;
    ASSERT_EQ(src.size(), data_.size());
    for (auto [offset, size] : std::vector<std::pair<uint64_t, uint64_t>>{
             {0, 100}, {20000, 5000}, {250000, 50000}, {0, 300000}}) {
      std::vector<uint8_t> out;
      ASSERT_TRUE(src.read(offset, size, out, &error)) << error;
      EXPECT_TRUE(std::equal(out.begin(), out.end(), data_.begin() + ptrdiff_t(offset)) &&
                  out.size() == size)
          << "bytes " << offset << "+" << size;
    }
  }

  TempDir dir_;
  test::TestCerts certs_;
  std::vector<uint8_t> data_;
  std::unique_ptr<NginxServer> nginx_;
};

TEST_F(Https, TrustedWithTheCaFile) {
  std::string error;
  const HttpOptions o = trusting();
  const std::string url = nginx_->url("data.bin");
  ASSERT_EQ(url.rfind("https://127.0.0.1:", 0), 0u) << url;
  auto src = open_byte_source(url, &error, &o);
  ASSERT_TRUE(src) << error;
  EXPECT_EQ(src->name(), url);
  expect_ranges(*src);
}

TEST_F(Https, UntrustedCertificateIsRefusedWithOneLine) {
  HttpOptions o = trusting();
  o.ca_file.clear();  // the system's store, which does not hold the test's authority
  const std::string url = nginx_->url("data.bin");
  std::string error;
  EXPECT_FALSE(open_byte_source(url, &error, &o));
  const std::string lead = url + ": the server's certificate is not trusted (";
  EXPECT_EQ(error.rfind(lead, 0), 0u) << error;
  const std::string tail = "); pass --ca-file with the authority that signed it";
  ASSERT_GE(error.size(), tail.size());
  EXPECT_EQ(error.substr(error.size() - tail.size()), tail) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(requests(*nginx_), 0u);  // no request was sent over the untrusted connection
  // A bundle without the authority (the server's own certificate is no authority).
  o.ca_file = certs_.elsewhere;
  EXPECT_FALSE(open_byte_source(url, &error, &o));
  EXPECT_EQ(error.rfind(url +
                            ": the server's certificate is not trusted by the system's store "
                            "nor by " +
                            certs_.elsewhere + " (",
                        0),
            0u)
      << error;
}

TEST_F(Https, CertificateForAnotherHostIsRefused) {
  NginxServer other((dir_.path / "www").string());
  other.use_tls(certs_.elsewhere, certs_.elsewhere_key);
  std::string error;
  ASSERT_TRUE(other.start(&error)) << error;
  const HttpOptions o = trusting();  // the authority is trusted: only the name is wrong
  const std::string url = other.url("data.bin");
  EXPECT_FALSE(open_byte_source(url, &error, &o));
  EXPECT_EQ(error.rfind(url + ": the server's certificate is made for another host (", 0), 0u)
      << error;
  EXPECT_EQ(error.find('\n'), std::string::npos) << error;
  EXPECT_EQ(requests(other), 0u);
}

TEST_F(Https, RedirectsAreFollowedOnceThenTheFinalUrlIsAsked) {
  const HttpOptions o = trusting();
  for (const char* code : {"301", "302", "303", "307", "308"}) {
    const uint64_t before = requests(*nginx_);
    const std::string url = nginx_->url(std::string("r") + code + ".bin");
    std::string error;
    auto src = open_byte_source(url, &error, &o);
    ASSERT_TRUE(src) << code << ": " << error;
    EXPECT_EQ(src->name(), url);  // messages name the URL given
    expect_ranges(*src);
    // The redirect and the first range request, then 3 reads past the first bytes (the first
    // read is answered from them), each straight to data.bin.
    EXPECT_EQ(requests(*nginx_) - before, 2u + 3u) << code;
  }
}

TEST_F(Https, RedirectLoopIsOneLine) {
  const HttpOptions o = trusting();
  const std::string url = nginx_->url("loop.bin");
  std::string error;
  EXPECT_FALSE(open_byte_source(url, &error, &o));
  EXPECT_EQ(error, url + ": more than 5 redirects (a redirect loop?)");
  EXPECT_EQ(requests(*nginx_), 6u);  // the request and 5 redirects followed, not retried
}

}  // namespace
}  // namespace pr
