// The test data (tests/data, PR_TESTDATA_DIR): real files from other projects' test suites, part
// of the source tree. A test whose folder is missing fails: the checkout is broken. The environment
// variable PR_TESTDATA_DIR, where set, replaces the folder the build names: tests carried to
// another machine (the GPU machine) read the repository's copy there.
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

/// In a test: fails it when the test data's `folder` ("las", "laz", ...; "" for the whole of it)
/// is absent.
#define REQUIRE_TESTDATA(folder)                                                                  \
  if (const std::string pr_td_ = pr::test::data_path(folder); !std::filesystem::exists(pr_td_)) { \
    FAIL() << "test data " << pr_td_ << " is absent: tests/data belongs to the checkout";         \
  }
