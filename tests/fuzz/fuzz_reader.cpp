// libFuzzer target for one reader (PR_FUZZ_FORMAT: a pr::FileFormat enumerator; kUnknown fuzzes
// format detection plus whichever reader it picks). Any crash, sanitizer report or leak fails.
// E57 inputs whose last byte is odd get their page checksums rewritten first, so that mutations
// reach the parsing behind the checksum test (even ones exercise the test itself).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "e57_pages.h"
#include "engine/io/base/io_common.h"
#include "engine/io/io.h"

static constexpr bool is_e57(pr::FileFormat f) {
  return f == pr::FileFormat::kE57;
}

// The fuzzers run under a memory limit (run_fuzz.sh: -rss_limit_mb=2048): the readers refuse what
// would take more than 1 GB, as they refuse what would take more than a machine's memory.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  pr::io::set_memory_limit(uint64_t{1} << 30);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<uint8_t> fixed;
  if (is_e57(pr::FileFormat::PR_FUZZ_FORMAT) && size > 0 && (data[size - 1] & 1)) {
    fixed.assign(data, data + size);
    pr::test::e57_fix_checksums(fixed.data(), fixed.size());
    data = fixed.data();
  }
  pr::PointCloud cloud;
  pr::FileInfo info;
  std::string error;
  const bool ok = pr::parse_point_cloud(data, size, PR_FUZZ_NAME, pr::FileFormat::PR_FUZZ_FORMAT,
                                        cloud, &info, &error);
  // The contract: success gives the cloud its info counts (none for a file without points, those
  // before the cut for a file cut short), and each warning is one line; failure gives a one-line
  // message and no points.
  if (ok && info.points != cloud.size()) __builtin_trap();
  for (const std::string& w : info.warnings)
    if (w.empty() || w.find('\n') != std::string::npos) __builtin_trap();
  if (!ok && (error.empty() || !cloud.empty() || error.find('\n') != std::string::npos))
    __builtin_trap();
  return 0;
}
