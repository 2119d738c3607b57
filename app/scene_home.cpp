#include "scene_home.h"

#include <cstdio>
#include <fstream>
#include <limits>
#include <sstream>

namespace pr {

uint64_t host_memory_available() {
  std::ifstream in("/proc/meminfo");
  std::string key;
  uint64_t kib = 0;
  std::string unit;
  while (in >> key >> kib) {
    std::getline(in, unit);
    if (key == "MemAvailable:") return kib * 1024;
  }
  return 0;
}

std::string gigabytes(uint64_t bytes) {
  char s[32];
  const double gb = double(bytes) / 1e9;
  std::snprintf(s, sizeof s, gb < 10 ? "%.1f GB" : "%.0f GB", gb);
  return s;
}

SceneHome scene_home(const std::string& name, uint64_t n, const std::string& mode,
                     uint64_t available, std::string* why) {
  const bool indexable = n < uint64_t(std::numeric_limits<uint32_t>::max());
  const uint64_t need = n > std::numeric_limits<uint64_t>::max() / kSceneHostBytesPerPoint
                            ? std::numeric_limits<uint64_t>::max()
                            : n * kSceneHostBytesPerPoint;
  const bool fits = available == 0 || need <= available;
  if (indexable && fits) return SceneHome::kHost;
  const bool device_makes = name == "terrain" || name == "cube";
  if (mode == "gpu" && device_makes) return SceneHome::kDevice;
  if (why) {
    std::ostringstream m;
    m << n << " points of scene " << name << ": ";
    if (!fits)
      m << "the host would need " << gigabytes(need) << " (" << kSceneHostBytesPerPoint
        << " bytes a point) and has " << gigabytes(available) << " available";
    else
      m << "the host's renderers index fewer than 2^32 - 1 points";
    if (device_makes)
      m << "; GPU mode (--mode gpu) makes " << name << " clouds on the device";
    else
      m << "; GPU mode makes only terrain and cube clouds on the device";
    *why = m.str();
  }
  return SceneHome::kNone;
}

}  // namespace pr
