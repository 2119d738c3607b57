// What saving and opening a scene file costs (app/scene_file.h): a scene with N measurements (a
// mix of the kinds, with their values as measured), a camera, a clip and annotations, written
// with write_scene_file() (a temporary file renamed over the last) and read back with
// read_scene_file(), R times; prints each step's median and minimum and the file's size.
//   scene_bench [--measurements N] [--annotations A] [--runs R] [--dir DIR]
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "scene_file.h"

namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

/// A scene like one a survey session leaves: N measurements of the kinds that need no cloud,
/// each measured from its points, A annotations, a camera and a clip box.
pr::Options bench_scene(int measurements, int annotations) {
  pr::Options o;
  o.files = {"/data/survey/tile_000.copc.laz", "/data/survey/tile_001.copc.laz"};
  pr::Camera cam;
  cam.position = {512345.678, 5401234.567, 312.25};
  cam.yaw = 0.7;
  cam.pitch = -0.4;
  o.scene_extras.camera = cam;
  o.scene_extras.image_width = 1550;
  o.scene_extras.image_height = 1080;
  o.clip.boxes.push_back({{512300.0, 5401200.0, 300.0}, {80.0, 60.0, 40.0}, 15.0, 0.0, 0.0});
  o.clip_box_has_mode = {true};
  const pr::MeasureKind kinds[] = {pr::MeasureKind::kDistance, pr::MeasureKind::kHeight,
                                   pr::MeasureKind::kAngle, pr::MeasureKind::kArea,
                                   pr::MeasureKind::kCircle};
  for (int i = 0; i < measurements; ++i) {
    const pr::MeasureKind k = kinds[i % 5];
    const glm::dvec3 base = cam.position + glm::dvec3(i * 0.37, i * 0.11, i * 0.013);
    std::vector<glm::dvec3> pts = {base, base + glm::dvec3(3.1, 0.2, 1.5),
                                   base + glm::dvec3(0.4, 4.7, -0.8)};
    if (k == pr::MeasureKind::kArea) pts.push_back(base + glm::dvec3(-2.0, 3.0, 0.1));
    if (k == pr::MeasureKind::kDistance || k == pr::MeasureKind::kHeight) pts.resize(2);
    pr::SavedMeasurement m;
    std::string why;
    if (!pr::evaluate_measurement(k, pts, nullptr, pr::MeasureParams{}, &m.m, &why)) {
      std::fprintf(stderr, "scene_bench: %s\n", why.c_str());
      std::exit(1);
    }
    o.scene_extras.measurements.push_back(std::move(m));
  }
  for (int i = 0; i < annotations; ++i)
    o.annotations.push_back({"marker " + std::to_string(i), "placed by the benchmark",
                             cam.position + glm::dvec3(i, -i, 0.5), std::nullopt});
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  int measurements = 1000, annotations = 100, runs = 20;
  std::string dir = std::filesystem::temp_directory_path().string();
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--measurements"))
      measurements = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--annotations"))
      annotations = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--runs"))
      runs = std::max(1, std::atoi(argv[i + 1]));
    else if (!std::strcmp(argv[i], "--dir"))
      dir = argv[i + 1];
    else {
      std::fprintf(stderr, "scene_bench: unknown option %s\n", argv[i]);
      return 2;
    }
  }
  const pr::Options scene = bench_scene(measurements, annotations);
  const std::string path =
      (std::filesystem::path(dir) / ("scene_bench_" + std::to_string(getpid()) + ".json")).string();
  std::vector<double> save_ms, open_ms;
  for (int r = 0; r < runs; ++r) {
    std::string why;
    auto t = Clock::now();
    if (!pr::write_scene_file(path, scene, &why)) {
      std::fprintf(stderr, "scene_bench: %s\n", why.c_str());
      return 1;
    }
    save_ms.push_back(ms_since(t));
    pr::Options back;
    std::vector<std::string> notes;
    t = Clock::now();
    if (!pr::read_scene_file(path, back, &notes, &why)) {
      std::fprintf(stderr, "scene_bench: %s\n", why.c_str());
      return 1;
    }
    open_ms.push_back(ms_since(t));
    // The inputs are not on this machine: their notes are expected, nothing else.
    if (back.scene_extras.measurements.size() != size_t(measurements) ||
        notes.size() != scene.files.size()) {
      std::fprintf(stderr, "scene_bench: read back %zu measurements, %zu notes\n",
                   back.scene_extras.measurements.size(), notes.size());
      return 1;
    }
  }
  std::error_code ec;
  const auto bytes = std::filesystem::file_size(path, ec);
  std::filesystem::remove(path, ec);
  std::vector<double> both(save_ms.size());
  for (size_t i = 0; i < both.size(); ++i) both[i] = save_ms[i] + open_ms[i];
  std::printf("scene_bench: %d measurements, %d annotations, %llu bytes, %d runs\n", measurements,
              annotations, (unsigned long long)bytes, runs);
  std::printf("save  median %.2f ms  min %.2f ms\n", median(save_ms),
              *std::min_element(save_ms.begin(), save_ms.end()));
  std::printf("open  median %.2f ms  min %.2f ms\n", median(open_ms),
              *std::min_element(open_ms.begin(), open_ms.end()));
  std::printf("save+open  median %.2f ms  min %.2f ms\n", median(both),
              *std::min_element(both.begin(), both.end()));
  return 0;
}
