// Scene files (app/scene_file.h): the text read back to the same scene, the headless image of a
// scene saved and opened again byte for byte, broken files (each problem one line, the rest
// read), paths relative to the scene after its folder moved, and a save over a file that fails.
#include "scene_file.h"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "engine/image_testing.h"
#include "headless.h"
#include "kernels/gpu_renderer.h"
#include "testdata.h"

namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name) {
  const fs::path d =
      fs::temp_directory_path() / ("pr_scene_test_" + std::to_string(getpid())) / name;
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

/// The command line `args` parsed, with the scene file it names under it (as parse_options()
/// does); the scene's notes in `notes`.
pr::Options command_line(const std::vector<std::string>& args,
                         std::vector<std::string>* notes = nullptr) {
  pr::Options o;
  std::string why;
  EXPECT_EQ(pr::parse_arguments(args, o, &why), 0) << why;
  if (o.scene_file.empty()) return o;
  int rc = 0;
  std::vector<std::string> n;
  EXPECT_TRUE(pr::apply_scene_file(args, o, &n, &why, &rc)) << why;
  if (notes) *notes = n;
  return o;
}

pr::Image headless_png(const std::vector<std::string>& args, const fs::path& png) {
  std::vector<std::string> a = args;
  a.insert(a.end(), {"--headless", "--frames", "1", "--screenshot", png.string()});
  EXPECT_EQ(pr::run_headless(command_line(a)), 0);
  pr::Image img;
  std::string err;
  EXPECT_TRUE(pr::read_png(png.string(), img, &err)) << err;
  return img;
}

/// A scene with something in every section.
pr::Options full_options() {
  pr::Options o;
  std::string why;
  EXPECT_EQ(pr::parse_arguments({"--scene",
                                 "cube",
                                 "--points",
                                 "5k",
                                 "--up",
                                 "z",
                                 "--point-size",
                                 "3",
                                 "--adaptive-size",
                                 "--max-point-size",
                                 "9",
                                 "--edl",
                                 "0.5",
                                 "--hq",
                                 "--compact",
                                 "--occlusion",
                                 "off",
                                 "--color",
                                 "elevation",
                                 "--colormap",
                                 "turbo",
                                 "--point-budget",
                                 "2M",
                                 "--sse",
                                 "1.5",
                                 "--clip-box",
                                 "1,2,3,4,5,6,10,0,0,outside",
                                 "--section",
                                 "z=1.5,0.25",
                                 "--annotation",
                                 "Tower;the tall one;1,2,3",
                                 "--annotation",
                                 "Gate;;4,5,6;7,8,9,30,-10"},
                                o, &why),
            0)
      << why;
  pr::SceneExtras& x = o.scene_extras;
  pr::Camera cam;
  cam.position = {1.25, -2.5, 1e6 + 0.001};
  cam.yaw = 0.1;
  cam.pitch = -1.5707963267948966;  // straight down, as the top view sets it
  cam.focus = 1.7;
  cam.projection = pr::Projection::kOrthographic;
  cam.ortho_height = 123.456;
  x.camera = cam;
  x.image_width = 640;
  x.image_height = 360;
  x.background = std::array<float, 3>{0.1f, 0.2f, 0.3f};
  x.edl_radius = 2.0f;
  x.gamma = 1.5;
  x.color_range = std::make_pair(-3.0, 7.5);
  x.hidden_classes = {2, 7};
  pr::Measurement m;
  std::string err;
  EXPECT_TRUE(pr::evaluate_measurement(pr::MeasureKind::kDistance, {{0, 0, 0}, {3, 4, 0}}, nullptr,
                                       pr::MeasureParams{}, &m, &err));
  m.attributes = {{"note", "a"}};
  x.measurements.push_back({m, false});
  o.camera_path.keys = {{{glm::dvec3(1, 2, 3), 10, -5}, 0.0}, {{glm::dvec3(4, 5, 6), 20, 5}, 2.0}};
  o.camera_path.loop = true;
  o.duration = 4.0;
  return o;
}

}  // namespace

TEST(SceneFile, TheTextReadsBackToTheSameScene) {
  const fs::path d = scratch("roundtrip");
  const std::string path = (d / "v.json").string();
  const pr::Options o = full_options();
  const std::string text = pr::scene_text(o, path);
  pr::Options back;
  std::vector<std::string> notes;
  pr::read_scene_text(text, path, back, &notes);
  EXPECT_TRUE(notes.empty()) << notes.front();
  // Every value came back: written again, the same text.
  EXPECT_EQ(pr::scene_text(back, path), text);
  ASSERT_TRUE(back.scene_extras.camera);
  const pr::Camera& c = *back.scene_extras.camera;
  EXPECT_EQ(c.position, o.scene_extras.camera->position);  // the same bits
  EXPECT_EQ(c.pitch, o.scene_extras.camera->pitch);
  EXPECT_EQ(c.ortho_height, 123.456);
  EXPECT_EQ(back.scene, "cube");
  EXPECT_EQ(back.clip, o.clip);
  ASSERT_EQ(back.annotations.size(), 2u);
  EXPECT_EQ(back.annotations[0].title, "Tower");
  EXPECT_EQ(back.annotations[0].text, "the tall one");
  EXPECT_FALSE(back.annotations[0].camera);
  ASSERT_TRUE(back.annotations[1].camera);
  EXPECT_EQ(back.annotations[1].camera->pitch_deg, -10.0);
  ASSERT_EQ(back.scene_extras.measurements.size(), 1u);
  EXPECT_FALSE(back.scene_extras.measurements[0].visible);
  EXPECT_EQ(back.scene_extras.measurements[0].m.value("3d"), 5.0);
  EXPECT_EQ(back.scene_extras.hidden_classes, (std::vector<uint8_t>{2, 7}));
  EXPECT_EQ(back.camera_path.keys.size(), 2u);
  EXPECT_TRUE(back.camera_path.loop);
  EXPECT_EQ(back.duration, 4.0);
}

// The headless image of a scene saved (--save-view) and opened again is the same, byte for byte,
// for a perspective camera and an orthographic top view, with colors, EDL and a clip.
TEST(SceneFile, SavedAndOpenedAgainDrawsTheSameImage) {
  const fs::path d = scratch("same_image");
  const std::vector<std::vector<std::string>> views = {
      {"--camera", "10,80,-150,15,-20", "--focus", "2.2", "--color", "elevation", "--colormap",
       "plasma", "--edl", "--point-size", "2", "--clip-box", "0,0,0,200,300,200"},
      {"--view", "top", "--projection", "ortho", "--hq", "--up", "z"}};
  for (size_t k = 0; k < views.size(); ++k) {
    // Names built by appending (GCC 12 warns, wrongly, on "a" + std::string here).
    const auto file = [&](const char* stem, const char* ext) {
      std::string n = stem;
      n += std::to_string(k);
      n += ext;
      return d / n;
    };
    const std::string json = file("v", ".json").string();
    std::vector<std::string> args = {"--scene", "terrain",  "--points", "40k",         "--width",
                                     "160",     "--height", "96",       "--save-view", json};
    args.insert(args.end(), views[k].begin(), views[k].end());
    const pr::Image a = headless_png(args, file("a", ".png"));
    const pr::Image b = headless_png({json}, file("b", ".png"));
    ASSERT_EQ(a.width, 160);
    ASSERT_EQ(b.height, 96);
    EXPECT_EQ(a.rgba, b.rgba) << "view " << k;
    EXPECT_EQ(slurp(file("a", ".png")), slurp(file("b", ".png")));
    // Saved again from the scene: the same file.
    const std::string again = file("again", ".json").string();
    EXPECT_EQ(pr::run_headless(command_line({json, "--save-view", again})), 0);
    EXPECT_EQ(slurp(again), slurp(json));
  }
}

// The GPU draws the scene's image as the CPU does (where there is a GPU).
TEST(SceneFile, TheGpuDrawsTheSceneAsTheCpuDoes) {
  std::string why;
  if (!pr::gpu_renderer_available(&why)) GTEST_SKIP() << "no GPU mode here: " << why;
  const fs::path d = scratch("gpu");
  const std::string json = (d / "v.json").string();
  headless_png({"--scene", "galaxy", "--points", "50k", "--width", "200", "--height", "120",
                "--edl", "--save-view", json},
               d / "cpu0.png");
  const pr::Image cpu = headless_png({json, "--mode", "cpu"}, d / "cpu.png");
  const pr::Image gpu = headless_png({json, "--mode", "gpu"}, d / "gpu.png");
  EXPECT_EQ(cpu.rgba, gpu.rgba);
}

// --save-view alone writes the scene and exits; options beside a scene file override it, FILEs
// replace its inputs, --annotation adds to its annotations.
TEST(SceneFile, SaveViewAloneAndOptionsBesideTheScene) {
  const fs::path d = scratch("beside");
  const std::string json = (d / "v.json").string();
  EXPECT_EQ(pr::run_headless(command_line({"--save-view", json, "--scene", "cube", "--points", "2k",
                                           "--point-size", "4", "--annotation", "A;;1,2,3"})),
            0);
  ASSERT_TRUE(fs::exists(json));
  pr::Options o = command_line({json});
  EXPECT_EQ(o.scene, "cube");
  EXPECT_EQ(o.point_size, 4);
  EXPECT_TRUE(o.scene_extras.camera.has_value());
  EXPECT_EQ(o.annotations.size(), 1u);
  o = command_line({json, "--point-size", "2", "--annotation", "B;;4,5,6", "--scene", "galaxy"});
  EXPECT_EQ(o.point_size, 2);
  EXPECT_EQ(o.scene, "galaxy");
  ASSERT_EQ(o.annotations.size(), 2u);
  EXPECT_EQ(o.annotations[1].title, "B");
  const std::string las = pr::test::data_path("las") + "/simple.las";
  o = command_line({json, las});
  EXPECT_EQ(o.files, std::vector<std::string>{las});
  EXPECT_TRUE(o.scene.empty());
  EXPECT_FALSE(o.points || o.up);  // the scene's inputs went whole: its points and up axis too
  // A scene file that is not there: exit 1 with one line.
  pr::Options missing;
  std::string why;
  ASSERT_EQ(pr::parse_arguments({(d / "none.json").string()}, missing, &why), 0);
  int rc = 0;
  EXPECT_FALSE(pr::apply_scene_file({(d / "none.json").string()}, missing, nullptr, &why, &rc));
  EXPECT_EQ(rc, 1);
  EXPECT_NE(why.find("none.json"), std::string::npos) << why;
}

// A scene's camera path: kept with its times, rendered by --video beside the scene file without
// --camera-path, and beside the scene's camera (which a command-line path would refuse).
TEST(SceneFile, TheScenesCameraPathRendersWithVideo) {
  const fs::path d = scratch("path");
  const std::string json = (d / "v.json").string();
  EXPECT_EQ(pr::run_headless(command_line({"--save-view", json, "--scene", "cube", "--points",
                                           "2k", "--camera-path", "0,0,-80,0,0;10,5,-60,20,-5",
                                           "--duration", "3"})),
            0);
  pr::Options o = command_line({json, "--headless", "--video", (d / "f/").string(), "--fps", "2",
                                "--width", "64", "--height", "48"});
  ASSERT_EQ(o.camera_path.keys.size(), 2u);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].time, 3.0);
  EXPECT_DOUBLE_EQ(o.camera_path.keys[1].pose.position.x, 10.0);
  EXPECT_EQ(pr::run_headless(o), 0);
  size_t frames = 0;
  for (const auto& e : fs::directory_iterator(d / "f")) frames += e.path().extension() == ".png";
  EXPECT_EQ(frames, 6u);  // 3 s at 2 fps
  // Without --video the scene draws its own camera.
  o = command_line({json, "--headless", "--frames", "1"});
  EXPECT_TRUE(o.scene_extras.camera.has_value());
  EXPECT_EQ(pr::run_headless(o), 0);
}

// Broken scene files: each problem gets its one line, and the rest of the scene opens.
TEST(SceneFile, BrokenFilesNameTheProblemAndTheRestOpens) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("broken");
  const std::string las = pr::test::data_path("las") + "/simple.las";
  struct Case {
    const char* name;
    std::string text;
    const char* note;  // in the one line
  };
  const std::string rest = R"("render": {"point_size": 3})";
  const std::vector<Case> cases = {
      {"newer version", R"({"version": 99, )" + rest + "}", "version 99 is newer"},
      {"unknown key", R"({"version": 1, "render": {"point_size": 3, "sparkle": 1}})",
       "unknown key 'render.sparkle'"},
      {"unknown section", R"({"version": 1, "lights": [], )" + rest + "}", "unknown key 'lights'"},
      {"missing input",
       R"({"version": 1, "inputs": {"files": ["gone.las", ")" + las + R"("]}, )" + rest + "}",
       "gone.las' is not there"},
      {"wrong type", R"({"version": 1, "render": {"point_size": 3, "hq": "yes"}})",
       "render.hq: expected true or false, got string"},
      {"out of range", R"({"version": 1, "render": {"point_size": 3, "max_point_size": 99}})",
       "render.max_point_size: 99 is not a whole number from 1 to 32"},
      {"section of the wrong type", R"({"version": 1, "camera": 5, )" + rest + "}",
       "camera: expected an object, got number"},
      {"camera without position", R"({"version": 1, "camera": {"yaw_rad": 1}, )" + rest + "}",
       "camera.position: missing"},
      {"bad clip box",
       R"({"version": 1, "clip": {"boxes": [{"centre": [0,0,0], "size": [1,-1,1]}]}, )" + rest +
           "}",
       "clip.boxes[0]: needs a centre"},
      {"bad measurement",
       R"({"version": 1, "measurements": [{"kind": "distance", "points": [[0,0,0]]}], )" + rest +
           "}",
       "measurements[0]: a distance of 1 points"},
      {"annotation without a title",
       R"({"version": 1, "annotations": [{"text": "x", "position": [0,0,0]}], )" + rest + "}",
       "annotations[0].title: missing or empty"},
      {"no version", "{" + rest + "}", "no version"},
      {"not an object", "[1, 2]", "not a scene: expected a JSON object, got array"},
      {"invalid JSON", R"({"version": 1, "render": {"point_size": 3,})", "not valid JSON"},
  };
  for (const Case& c : cases) {
    const fs::path p = d / "broken.json";
    write(p, c.text);
    std::vector<std::string> notes;
    // The rest opens: the scene's values and the command line's beside it.
    const pr::Options o = command_line({p.string(), "--hq"}, &notes);
    ASSERT_EQ(notes.size(), 1u) << c.name << ": " << (notes.empty() ? "" : notes[1]);
    EXPECT_NE(notes[0].find(c.note), std::string::npos) << c.name << ": " << notes[0];
    EXPECT_EQ(notes[0].rfind("broken.json: ", 0), 0u) << notes[0];
    EXPECT_TRUE(o.hq) << c.name;
    const bool read = c.text[0] == '{' && std::string(c.name) != "invalid JSON";
    EXPECT_EQ(o.point_size, read ? 3 : 1) << c.name;
    if (std::string(c.name) == "missing input") {
      EXPECT_EQ(o.files, std::vector<std::string>{las});
    }
  }
}

// Inputs under the scene's folder are stored relative to it: the folder moved, they still open;
// an input elsewhere is stored absolute.
TEST(SceneFile, RelativePathsResolveAfterTheFolderMoved) {
  REQUIRE_TESTDATA("las");
  const fs::path d = scratch("moved");
  fs::create_directories(d / "a" / "data");
  const std::string src = pr::test::data_path("las") + "/1.2-with-color.las";
  fs::copy_file(src, d / "a" / "data" / "cloud.las");
  const std::string json = (d / "a" / "v.json").string();
  const pr::Image before = headless_png({(d / "a" / "data" / "cloud.las").string(), "--width",
                                         "120", "--height", "80", "--save-view", json},
                                        d / "before.png");
  const std::string text = slurp(json);
  EXPECT_NE(text.find("\"data/cloud.las\""), std::string::npos) << text;
  fs::rename(d / "a", d / "b");
  const pr::Options o = command_line({(d / "b" / "v.json").string()});
  ASSERT_EQ(o.files.size(), 1u);
  EXPECT_EQ(fs::path(o.files[0]), (d / "b" / "data" / "cloud.las").lexically_normal());
  const pr::Image after = headless_png({(d / "b" / "v.json").string()}, d / "after.png");
  EXPECT_EQ(before.rgba, after.rgba);
  // Elsewhere: absolute.
  pr::Options other;
  other.files = {src};
  const std::string elsewhere = pr::scene_text(other, (d / "b" / "w.json").string());
  EXPECT_NE(elsewhere.find(fs::path(src).lexically_normal().string()), std::string::npos);
}

// A save over an existing file that fails leaves the old file whole; one that succeeds replaces
// it and leaves no temporary file beside it.
TEST(SceneFile, SavingOverAFileKeepsTheOldOneWhenWritingFails) {
  const fs::path d = scratch("save_over");
  const fs::path p = d / "v.json";
  pr::Options o = full_options();
  std::string why;
  ASSERT_TRUE(pr::write_scene_file(p.string(), o, &why)) << why;
  const std::string old = slurp(p);
  o.point_size = 7;
  // A folder the program may not write into (root may: the test runs as root in containers).
  if (::geteuid() != 0) {
    ::chmod(d.c_str(), 0555);
    EXPECT_FALSE(pr::write_scene_file(p.string(), o, &why));
    EXPECT_NE(why.find(p.string()), std::string::npos) << why;
    ::chmod(d.c_str(), 0755);
    EXPECT_EQ(slurp(p), old);
  }
  // A write that fails half way (the file size limit, as a full disk would): the old file stays.
  {
    rlimit was{};
    ASSERT_EQ(::getrlimit(RLIMIT_FSIZE, &was), 0);
    const auto old_handler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = was;
    small.rlim_cur = 256;
    ASSERT_EQ(::setrlimit(RLIMIT_FSIZE, &small), 0);
    const bool written = pr::write_scene_file(p.string(), o, &why);
    ::setrlimit(RLIMIT_FSIZE, &was);
    std::signal(SIGXFSZ, old_handler);
    EXPECT_FALSE(written);
    EXPECT_NE(why.find("cannot write"), std::string::npos) << why;
    EXPECT_EQ(slurp(p), old);
  }
  // A folder that is not there: refused, nothing written.
  EXPECT_FALSE(pr::write_scene_file((d / "no" / "v.json").string(), o, &why));
  EXPECT_EQ(slurp(p), old);
  ASSERT_TRUE(pr::write_scene_file(p.string(), o, &why)) << why;
  EXPECT_NE(slurp(p), old);
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(d)) files += e.is_regular_file() ? 1 : 0;
  EXPECT_EQ(files, 1u);
}
