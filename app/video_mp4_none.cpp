// The MP4 encoder where the build found no FFmpeg (libavcodec-dev, libavformat-dev,
// libswscale-dev, libavutil-dev): --video writes PNG frames only, and says so.
#include "video_writer.h"

namespace pr {

namespace {
constexpr const char* kWhy =
    "pointraster was built without FFmpeg (install libavcodec-dev, libavformat-dev, "
    "libswscale-dev and libavutil-dev and build again): write PNG frames instead (--video DIR/)";
}

bool mp4_available(std::string* why) {
  if (why) *why = kWhy;
  return false;
}

std::unique_ptr<FrameSink> open_mp4_sink(const std::string&, int, int, int, std::string*,
                                         std::string* error) {
  *error = kWhy;
  return nullptr;
}

}  // namespace pr
