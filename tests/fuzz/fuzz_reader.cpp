// libFuzzer target for one reader (PR_FUZZ_FORMAT: a pr::FileFormat enumerator; kUnknown fuzzes
// format detection plus whichever reader it picks). Any crash, sanitizer report or leak fails.
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/io.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  pr::PointCloud cloud;
  pr::FileInfo info;
  std::string error;
  const bool ok = pr::parse_point_cloud(data, size, PR_FUZZ_NAME, pr::FileFormat::PR_FUZZ_FORMAT,
                                        cloud, &info, &error);
  // The contract: success gives points, failure gives a one-line message and no points.
  if (ok && (cloud.empty() || info.points != cloud.size())) __builtin_trap();
  if (!ok && (error.empty() || !cloud.empty() || error.find('\n') != std::string::npos))
    __builtin_trap();
  return 0;
}
