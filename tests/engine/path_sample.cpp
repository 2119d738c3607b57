// Test helper for tests/engine/path_compare.py: evaluates a camera path (engine/camera_path.h)
//   path_sample LOOP CONSTANT N T,X,Y,Z,YAW,PITCH...
// LOOP and CONSTANT are 0 or 1 (CameraPath::loop, constant_speed); each key is its time and pose.
// Prints {"start", "duration", "length", "poses": [[t, x, y, z, yaw, pitch], ...]} for N + 1
// times evenly from a tenth of the duration before the start to a tenth after the end.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/camera_path.h"

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: path_sample LOOP CONSTANT N T,X,Y,Z,YAW,PITCH...\n");
    return 2;
  }
  pr::CameraPath path;
  path.loop = std::atoi(argv[1]) != 0;
  path.constant_speed = std::atoi(argv[2]) != 0;
  const int n = std::atoi(argv[3]);
  for (int a = 4; a < argc; ++a) {
    pr::CameraKey k;
    if (std::sscanf(argv[a], "%lf,%lf,%lf,%lf,%lf,%lf", &k.time, &k.pose.position.x,
                    &k.pose.position.y, &k.pose.position.z, &k.pose.yaw_deg,
                    &k.pose.pitch_deg) != 6) {
      std::fprintf(stderr, "path_sample: bad key '%s'\n", argv[a]);
      return 2;
    }
    path.keys.push_back(k);
  }
  std::string why;
  if (!pr::validate_path(path, &why) || n < 1) {
    std::fprintf(stderr, "path_sample: %s\n", n < 1 ? "N must be at least 1" : why.c_str());
    return 2;
  }
  const pr::CameraPathPlayer p(path);
  std::printf("{\"start\": %.17g, \"duration\": %.17g, \"length\": %.17g, \"poses\": [", p.start(),
              p.duration(), p.length());
  for (int k = 0; k <= n; ++k) {
    const double t = p.start() + p.duration() * (-0.1 + 1.2 * k / n);
    const pr::CameraPose q = p.at(t);
    std::printf("%s[%.17g, %.17g, %.17g, %.17g, %.17g, %.17g]", k ? ", " : "", t, q.position.x,
                q.position.y, q.position.z, q.yaw_deg, q.pitch_deg);
  }
  std::printf("]}\n");
  return 0;
}
