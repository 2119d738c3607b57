// The shared test data (../shared/testdata beside the checkout, PR_TESTDATA_DIR): tests that read
// it skip without it, except under CI (CI=true), where its absence fails them.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

namespace pr::test {

/// The shared test data's folder.
inline const std::string kData = PR_TESTDATA_DIR;

/// Whether the tests run under CI (CI=true), where every input must be present.
inline bool under_ci() {
  const char* ci = std::getenv("CI");
  return ci && std::strcmp(ci, "true") == 0;
}

/// The shared test data's `folder` ("" for the whole of it).
inline std::string data_path(const char* folder) {
  std::string path = kData;
  if (*folder) {
    path += '/';
    path += folder;
  }
  return path;
}

}  // namespace pr::test

/// In a test: skips it (fails it under CI) when the shared test data's `folder` ("las", "laz",
/// ...; "" for the whole of it) is absent.
#define REQUIRE_TESTDATA(folder)                                                                   \
  if (const std::string pr_td_ = pr::test::data_path(folder); !std::filesystem::exists(pr_td_)) {  \
    if (pr::test::under_ci()) FAIL() << "test data " << pr_td_ << " is absent under CI (CI=true)"; \
    GTEST_SKIP() << "test data " << pr_td_ << " is absent (../shared beside the checkout)";        \
  }
