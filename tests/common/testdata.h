// The test data: real point-cloud files written by other tools, kept in the repository at
// tests/data (PR_TESTDATA_DIR; tests/data/SOURCES.md names the origin and licence of each). A test
// that reads them fails when they are missing: that is a broken checkout, not a reason to skip.
// The environment variable PR_TESTDATA_DIR, where set, replaces the folder the build names: tests
// carried to another machine (the GPU machine) read the repository's copy there.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace pr::test {

/// The test data's folder.
inline const std::string kData =
    std::getenv("PR_TESTDATA_DIR") ? std::getenv("PR_TESTDATA_DIR") : PR_TESTDATA_DIR;

/// The test data's `folder` ("" for the whole of it).
inline std::string data_path(const char* folder) {
  std::string path = kData;
  if (*folder) {
    path += '/';
    path += folder;
  }
  return path;
}

}  // namespace pr::test

/// In a test: fails it when the test data's `folder` ("las", "laz", ...; "" for the whole of it) is
/// absent.
#define REQUIRE_TESTDATA(folder)                                                                  \
  if (const std::string pr_td_ = pr::test::data_path(folder); !std::filesystem::exists(pr_td_)) { \
    FAIL() << "test data " << pr_td_ << " is absent: the checkout is incomplete (tests/data)";    \
  }
