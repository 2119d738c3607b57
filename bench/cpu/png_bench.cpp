// PNG writing of a large image: a scene drawn by the CPU renderer in tiles at W x H (16384 x 16384
// by default, 1 GiB of pixels), then written by engine/png_writer.h at zlib levels 1 and 6 and,
// with --stb, by stb_image_write (which holds a filtered copy of the whole image and compresses
// it with its own deflate). Prints each writer's time and the file's size; run one writer at a
// time under /usr/bin/time -v for its memory.
//   png_bench [--width W] [--height H] [--points N] [--point-size S] [--out DIR]
//             [--writers zlib1,zlib6,stb]
#include <stb_image_write.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "engine/cpu_renderer.h"
#include "engine/frame_stats.h"
#include "engine/png_writer.h"
#include "engine/scenes.h"
#include "engine/tiled_render.h"

using namespace pr;

namespace {

bool write_with(const std::string& writer, const std::string& path, const Image& img,
                std::string* error) {
  if (writer == "stb") {
    if (stbi_write_png(path.c_str(), img.width, img.height, 4, img.rgba.data(), img.width * 4))
      return true;
    *error = "stb_image_write failed";
    return false;
  }
  PngWriter w;
  const int level = writer == "zlib6" ? 6 : 1;
  return w.open(path, img.width, img.height, error, level) &&
         w.write_rows(img.rgba.data(), img.height, error) && w.finish(error);
}

}  // namespace

int main(int argc, char** argv) {
  int width = 16384, height = 16384, point_size = 1;
  uint64_t points = 4'000'000;
  std::string out = std::filesystem::temp_directory_path().string(), writers = "zlib1,zlib6";
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    if (a == "--width" && v)
      width = std::atoi(argv[++i]);
    else if (a == "--height" && v)
      height = std::atoi(argv[++i]);
    else if (a == "--points" && v)
      points = uint64_t(std::atof(argv[++i]));
    else if (a == "--point-size" && v)
      point_size = std::atoi(argv[++i]);
    else if (a == "--out" && v)
      out = argv[++i];
    else if (a == "--writers" && v)
      writers = argv[++i];
    else {
      std::fprintf(stderr,
                   "usage: png_bench [--width W] [--height H] [--points N] [--point-size S] "
                   "[--out DIR] [--writers zlib1,zlib6,stb]\n");
      return 2;
    }
  }
  const PointCloud cloud = make_scene("terrain", points, 1);
  CpuRenderer r(0);
  std::string err;
  if (!r.set_cloud(cloud, &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  RenderSettings s;
  s.width = width;
  s.height = height;
  s.point_size = point_size;
  s.background = rgba(16, 18, 24);
  Camera cam = scene_camera("terrain", cloud);
  cam.fill_view(cloud.world_bounds(), double(width) / double(height));
  Image img;
  Stopwatch sw;
  if (!render_tiled(r, cam, s, plan_tiles_for(s, tile_pixel_limit(r, s, TileBudget{})), img,
                    &err)) {
    std::fprintf(stderr, "%s\n", err.c_str());
    return 1;
  }
  std::printf("drawn %dx%d in %.0f ms\n", width, height, sw.ms());
  for (char* t = std::strtok(writers.data(), ","); t; t = std::strtok(nullptr, ",")) {
    const std::string writer = t;
    const std::string path = out + "/png_bench_" + writer + ".png";
    sw.reset();
    if (!write_with(writer, path, img, &err)) {
      std::fprintf(stderr, "%s: %s\n", writer.c_str(), err.c_str());
      return 1;
    }
    const double ms = sw.ms();
    std::printf("%-6s %9.0f ms %8.1f MB\n", writer.c_str(), ms,
                double(std::filesystem::file_size(path)) / 1e6);
    std::filesystem::remove(path);
  }
  return 0;
}
