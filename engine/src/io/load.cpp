// Temporary: replaced by the format readers (issue 5).
#include "engine/io.h"

namespace pr {
bool load_point_cloud(const std::string& path, PointCloud& out, FileInfo*, std::string* error,
                      LoadProgress*) {
  out = PointCloud{};
  if (error) *error = path + ": file reading is not built yet";
  return false;
}
}  // namespace pr
