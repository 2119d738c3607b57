// Certificates for a TLS test server on 127.0.0.1, made with the openssl command line in a
// folder the test owns: a self-signed certificate authority, a server certificate it signs for
// IP 127.0.0.1, and one it signs for another host (example.org, no 127.0.0.1 in it).
#pragma once

#include <string>

#include "under_ci.h"

namespace pr::test {

struct TestCerts {
  std::string ca;                  ///< the authority's certificate (PEM): what --ca-file takes
  std::string server, server_key;  ///< for 127.0.0.1
  std::string elsewhere, elsewhere_key;  ///< for example.org only
};

/// Why the certificates cannot be made here ("" when /usr/bin/openssl is there).
std::string openssl_unavailable();

/// Makes the certificates in `dir` (an existing folder); false with openssl's output otherwise.
bool make_test_certs(const std::string& dir, TestCerts* certs, std::string* error);

}  // namespace pr::test

/// In a test: declares `certs` (a pr::test::TestCerts made in `dir`). Skips the test when openssl
/// is not installed (fails under CI), fails it when the certificates cannot be made.
#define MAKE_TEST_CERTS(certs, dir)                                                    \
  if (const std::string pr_why_ = pr::test::openssl_unavailable(); !pr_why_.empty()) { \
    if (pr::test::under_ci()) FAIL() << pr_why_ << " (required under CI)";             \
    GTEST_SKIP() << pr_why_;                                                           \
  }                                                                                    \
  pr::test::TestCerts certs;                                                           \
  if (std::string pr_err_; !pr::test::make_test_certs(dir, &certs, &pr_err_)) FAIL() << pr_err_
