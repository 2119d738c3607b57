// The command line through the real parser (app/options.cpp): values, errors and exit codes.
#include "options.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

namespace {

/// Parses `args` into a fresh Options; the exit code, the message in `error`.
int parse(const std::vector<std::string>& args, pr::Options& o, std::string* error = nullptr) {
  o = pr::Options{};
  std::string e;
  const int rc = pr::parse_arguments(args, o, &e);
  if (error) *error = e;
  return rc;
}

/// `text` split at its spaces.
std::vector<std::string> words(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

/// The message for `args`, which must be a usage error (exit 2, one line).
std::string usage_error(const std::vector<std::string>& args) {
  pr::Options o;
  std::string e;
  EXPECT_EQ(parse(args, o, &e), 2) << args.back();
  EXPECT_FALSE(e.empty()) << args.back();
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  return e;
}

}  // namespace

TEST(Options, DefaultsWithoutArguments) {
  pr::Options o;
  ASSERT_EQ(parse({}, o), 0);
  EXPECT_FALSE(o.headless || o.info || o.json || o.help || o.compact || o.hq);
  EXPECT_FALSE(o.mode || o.width || o.points || o.camera || o.edl || o.pick || o.vsync);
  EXPECT_TRUE(o.culling);
  EXPECT_EQ(o.occlusion, pr::Toggle::kAuto);
  EXPECT_EQ(o.frames, 0);
  EXPECT_EQ(o.point_size, 1);
  EXPECT_FALSE(o.adaptive_size || o.max_point_size);
  EXPECT_EQ(o.max_depth, -1);
  EXPECT_TRUE(o.files.empty());
}

TEST(Options, EveryValueReachesItsField) {
  pr::Options o;
  std::string e;
  ASSERT_EQ(parse(words("--headless --mode gpu --width 320 --height=200 --points 2.5k "
                        "--camera 1,2,-3,4.5,-5 --focus 2 --up Z --frames 3 --screenshot a.png "
                        "--point-size 4 --threads 8 --compact --culling off --occlusion on "
                        "--sort 0 --binning auto --gpu-memory-limit 1.5G --color elevation "
                        "--colormap turbo --hq --pick 3,4 --vsync off --ui-scale 1.5 --scan 1 "
                        "--scan 3 --max-points 10M --max-depth 2 a.las b.ply"),
                  o, &e),
            0)
      << e;
  EXPECT_TRUE(o.headless && o.compact && o.hq);
  EXPECT_EQ(o.mode, "gpu");
  EXPECT_EQ(o.width, 320);
  EXPECT_EQ(o.height, 200);
  EXPECT_EQ(o.points, 2500u);
  ASSERT_TRUE(o.camera);
  EXPECT_EQ(o.camera->z, -3.0);
  EXPECT_EQ(o.camera->yaw_deg, 4.5);
  EXPECT_EQ(o.camera->pitch_deg, -5.0);
  EXPECT_EQ(o.focus, 2.0);
  EXPECT_EQ(o.up, 'z');
  EXPECT_EQ(o.frames, 3);
  EXPECT_EQ(o.screenshot, "a.png");
  EXPECT_EQ(o.point_size, 4);
  EXPECT_EQ(o.threads, 8u);
  EXPECT_FALSE(o.culling);
  EXPECT_EQ(o.occlusion, pr::Toggle::kOn);
  EXPECT_EQ(o.sort, pr::Toggle::kOff);
  EXPECT_EQ(o.binning, pr::Toggle::kAuto);
  EXPECT_EQ(o.gpu_memory_limit, uint64_t(1.5 * 1073741824.0));
  EXPECT_EQ(o.color, "elevation");
  EXPECT_EQ(o.colormap, pr::Colormap::kTurbo);
  EXPECT_EQ(o.pick, std::make_pair(3, 4));
  EXPECT_EQ(o.vsync, false);
  EXPECT_EQ(o.ui_scale, 1.5f);
  EXPECT_EQ(o.scans, (std::vector<uint32_t>{1, 3}));
  EXPECT_EQ(o.max_points, 10'000'000u);
  EXPECT_EQ(o.max_depth, 2);
  EXPECT_EQ(o.files, (std::vector<std::string>{"a.las", "b.ply"}));
}

TEST(Options, ProjectionAndStandardViews) {
  pr::Options o;
  EXPECT_FALSE(o.projection);
  EXPECT_FALSE(o.view);
  ASSERT_EQ(parse(words("--projection ortho --view top"), o), 0);
  EXPECT_EQ(o.projection, pr::Projection::kOrthographic);
  EXPECT_EQ(o.view, pr::StandardView::kTop);
  ASSERT_EQ(parse(words("--projection=perspective --view iso"), o), 0);
  EXPECT_EQ(o.projection, pr::Projection::kPerspective);
  EXPECT_EQ(o.view, pr::StandardView::kIso);
  for (const char* v : {"top", "bottom", "front", "back", "left", "right", "iso"}) {
    pr::Options each;
    ASSERT_EQ(parse({"--view", v}, each), 0) << v;
    EXPECT_STREQ(pr::standard_view_name(*each.view), v);
  }
}

TEST(Options, CountsAndSizes) {
  pr::Options o;
  ASSERT_EQ(parse({"--points", "1G", "--gpu-memory-limit", "1G"}, o), 0);
  EXPECT_EQ(o.points, 1'000'000'000u);      // point counts: powers of 1000
  EXPECT_EQ(o.gpu_memory_limit, 1u << 30);  // bytes: powers of 1024
  ASSERT_EQ(parse({"--points", "1e6", "--gpu-memory-limit=512M", "--max-points", "4000000000"}, o),
            0);
  EXPECT_EQ(o.points, 1'000'000u);
  EXPECT_EQ(o.gpu_memory_limit, 512u << 20);
  EXPECT_EQ(o.max_points, 4'000'000'000u);
}

TEST(Options, EdlStrengthIsOptional) {
  pr::Options o;
  ASSERT_EQ(parse({"--edl"}, o), 0);
  EXPECT_EQ(o.edl, 1.0f);
  ASSERT_EQ(parse({"--edl", "a.las"}, o), 0);  // not a number: a FILE
  EXPECT_EQ(o.edl, 1.0f);
  EXPECT_EQ(o.files, std::vector<std::string>{"a.las"});
  ASSERT_EQ(parse({"--edl", "0"}, o), 0);
  EXPECT_EQ(o.edl, 0.0f);
  ASSERT_EQ(parse({"--edl=2.5", "--headless"}, o), 0);
  EXPECT_EQ(o.edl, 2.5f);
  EXPECT_TRUE(o.headless);
}

TEST(Options, AdaptivePointSize) {
  pr::Options o;
  ASSERT_EQ(parse(words("--headless --point-size 2 --adaptive-size --max-point-size 12"), o), 0);
  EXPECT_TRUE(o.adaptive_size);
  EXPECT_EQ(o.max_point_size, 12);
  EXPECT_EQ(o.point_size, 2);
}

TEST(Options, TilesOfLargeImages) {
  pr::Options o;
  ASSERT_EQ(parse(words("--headless --tile 777x555 --tile-memory 128M"), o), 0);
  EXPECT_EQ(o.tile, std::make_pair(777, 555));
  EXPECT_EQ(o.tile_memory, uint64_t(128) << 20);
  pr::Options d;
  ASSERT_EQ(parse({"--headless"}, d), 0);
  EXPECT_FALSE(d.tile);
  EXPECT_EQ(d.tile_memory, 0u);  // 512 MiB (TileBudget)
  EXPECT_NE(usage_error({"--tile", "777"}).find("expected WxH, got '777'"), std::string::npos);
  EXPECT_NE(usage_error({"--tile", "20000x5"}).find("1 to 16384"), std::string::npos);
  EXPECT_NE(usage_error({"--tile", "5X0"}).find("--tile"), std::string::npos);
  EXPECT_NE(usage_error({"--tile-memory", "0"}).find("--tile-memory"), std::string::npos);
}

TEST(Options, TheLastValueCounts) {
  pr::Options o;
  ASSERT_EQ(parse({"--width", "5", "--width", "6", "--headless", "--headless"}, o), 0);
  EXPECT_EQ(o.width, 6);
  EXPECT_NE(usage_error({"--width", "abc", "--width", "6"}).find("'abc'"), std::string::npos);
}

TEST(Options, BadValuesNameTheOptionAndTheValue) {
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--bogus"}, "unknown option '--bogus' (see --help)"},
      {{"--bogus=3"}, "unknown option '--bogus' (see --help)"},
      {{"--"}, "unknown option '--' (see --help)"},
      {{"--width", "abc"}, "option --width: 'abc' is not a valid number"},
      {{"--width", "0"}, "option --width: must be 1 to 16384"},
      {{"--max-point-size", "33"}, "option --max-point-size: must be 1 to 32"},
      {{"--adaptive-size=1"}, "option --adaptive-size takes no value"},
      {{"--mode", "tpu"}, "option --mode: 'tpu' is not cpu or gpu"},
      {{"--scene", "nowhere"}, "option --scene: unknown scene 'nowhere' (known:"},
      {{"--camera", "1,2,3"}, "option --camera: expected X,Y,Z,YAW,PITCH, got '1,2,3'"},
      {{"--camera", "1,2,3,4,x"}, "option --camera: 'x' is not a valid number"},
      {{"--camera", "1,2,3,4,inf"}, "option --camera: 'inf' is not finite"},
      {{"--points", "-5"}, "option --points: '-5' is not a whole count between 0 and 1e12"},
      {{"--points", "1.5"}, "option --points: '1.5' is not a whole count"},
      {{"--focus", "0"}, "option --focus: must be > 0 and <= 10000"},
      {{"--frames"}, "option --frames needs a value"},
      {{"--frames", "0"}, "option --frames: must be at least 1"},
      {{"--up", "x"}, "option --up: 'x' is not y or z"},
      {{"--projection", "fisheye"}, "option --projection: 'fisheye' is not perspective or ortho"},
      {{"--view", "Top"},
       "option --view: 'Top' is not top, bottom, front, back, left, right or iso"},
      {{"--ui-scale", "9"}, "option --ui-scale: must be 0.5 to 4"},
      {{"--compact=1"}, "option --compact takes no value"},
      {{"--hq=true"}, "option --hq takes no value"},
      {{"--occlusion", "maybe"}, "option --occlusion: 'maybe' is not auto, on or off"},
      {{"--culling", "auto"}, "option --culling: 'auto' is not on or off"},
      {{"--gpu-memory-limit", "10X"}, "option --gpu-memory-limit: '10X' is not a byte count"},
      {{"--gpu-memory-limit", "0"},
       "option --gpu-memory-limit: '0' is not a byte count of at least 1"},
      {{"--colormap", "jet"}, "option --colormap: 'jet' is not viridis, turbo"},
      {{"--color", ""}, "option --color needs a mode"},
      {{"--edl", "-1"}, "option --edl: strength must be 0 to 100"},
      {{"--edl=abc"}, "option --edl: 'abc' is not a valid number"},
      {{"--pick", "3"}, "option --pick: expected X,Y, got '3'"},
      {{"--pick", "-1,2"}, "option --pick: X and Y must be 0 or more"},
      {{"--vsync", "maybe"}, "option --vsync: 'maybe' is not on or off"},
      {{"--max-depth", "65"}, "option --max-depth: must be 0 to 64"},
      {{"--scan", "-1"}, "option --scan: must be 0 or more"},
      {{"--screenshot", ""}, "option --screenshot needs a file name"},
      {{"--point-budget", "0"}, "option --point-budget: must be at least 1"},
      {{"--sse", "-1"}, "option --sse: must be 0 to 10000"},
      {{"--cache-memory", "lots"}, "option --cache-memory: 'lots' is not a byte count"},
      {{"--stream", "auto"}, "option --stream: 'auto' is not on or off"},
      {{"--no-wait=1"}, "option --no-wait takes no value"},
      {{"--json"}, "--json goes with --info"},
      {{"--info"}, "--info needs at least one FILE"},
      {{"--scene", "cube", "a.las"}, "give either --scene or FILEs, not both"},
  };
  for (const auto& [args, message] : cases) {
    const std::string e = usage_error(args);
    EXPECT_EQ(e.rfind(message, 0), 0u) << "got: " << e << "\nwanted: " << message;
  }
}

TEST(Options, MeasureValues) {
  pr::Options o;
  ASSERT_EQ(parse({"--measure", "volume", "-1,-2,-3;4,5,6;7,8.5,9", "--measure-base", "-2",
                   "--measure-cell", "0.5", "--measure-height", "max", "--measure", "angle",
                   "1,0,0;0,0,0;0,1e2,0", "--measure-out", "m.CSV", "a.las"},
                  o),
            0);
  ASSERT_EQ(o.measures.size(), 2u);
  EXPECT_EQ(o.measures[0].kind, pr::MeasureKind::kVolume);
  ASSERT_EQ(o.measures[0].points.size(), 3u);
  EXPECT_EQ(o.measures[0].points[0], glm::dvec3(-1, -2, -3));
  EXPECT_EQ(o.measures[0].points[2], glm::dvec3(7, 8.5, 9));
  EXPECT_EQ(o.measures[1].kind, pr::MeasureKind::kAngle);
  EXPECT_EQ(o.measures[1].points[2], glm::dvec3(0, 100, 0));
  EXPECT_EQ(o.measure_base, -2.0);
  EXPECT_EQ(o.measure_cell, 0.5);
  EXPECT_EQ(o.measure_height, pr::CellHeight::kMax);
  EXPECT_EQ(o.measure_out, "m.CSV");
  EXPECT_EQ(o.files, std::vector<std::string>{"a.las"});
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--measure", "radius", "0,0,0"}, "option --measure: 'radius' is not point, distance"},
      {{"--measure", "area", "0,0,0;1,0,0"},
       "option --measure area: needs at least 3 points, got 2"},
      {{"--measure", "angle", "0,0,0;1,0"}, "option --measure angle: expected X,Y,Z;X,Y,Z;..."},
      {{"--measure", "height", "0,0,0;1,0,inf"}, "option --measure: 'inf' is not finite"},
      {{"--measure", "box", "0,0,0"}, "option --measure box: needs 2 to 3 points, got 1"},
      {{"--measure-base", "1"}, "--measure-base goes with --measure"},
      {{"--measure", "height", "0,0,0;0,0,1", "--measure-out", "m.txt"},
       "option --measure-out: 'm.txt' ends in neither .geojson nor .csv"},
      {{"--measure", "height", "0,0,0;0,0,1", "--headless"},
       "give either --measure or --headless, not both"},
      {{"--measure-height", "median"}, "option --measure-height: 'median' is not min, mean or max"},
  };
  for (const auto& [args, message] : cases) {
    const std::string e = usage_error(args);
    EXPECT_EQ(e.rfind(message, 0), 0u) << "got: " << e << "\nwanted: " << message;
  }
}

TEST(Options, ProfileValues) {
  pr::Options o;
  ASSERT_EQ(parse({"--profile", "-1,-2,-3;4,5,6;7,8.5,9", "--profile-width", "2.5", "--profile-out",
                   "p.LAZ", "--profile-image", "p.png", "a.las"},
                  o),
            0);
  ASSERT_EQ(o.profile_line.size(), 3u);
  EXPECT_EQ(o.profile_line[0], glm::dvec3(-1, -2, -3));
  EXPECT_EQ(o.profile_line[2], glm::dvec3(7, 8.5, 9));
  EXPECT_EQ(o.profile_width, 2.5);
  EXPECT_EQ(o.profile_out, "p.LAZ");
  EXPECT_EQ(o.profile_image, "p.png");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"--profile", "0,0,0", "--profile-width", "1"},
       "option --profile: needs at least 2 points, got 1"},
      {{"--profile", "0,0,0;1,x,0", "--profile-width", "1"},
       "option --profile: 'x' is not a valid number"},
      {{"--profile", "0,0,0;1,0", "--profile-width", "1"},
       "option --profile: expected X,Y,Z;X,Y,Z;..."},
      {{"--profile", "0,0,0;0,0,4", "--profile-width", "1"},
       "option --profile: points 1 and 2 lie at the same place across the ground"},
      {{"--profile", "0,0,0;1,0,0", "--profile-width", "0"},
       "option --profile-width: must be above 0"},
      {{"--profile", "0,0,0;1,0,0", "--profile-width", "nan"},
       "option --profile-width: 'nan' is not finite"},
      {{"--profile", "0,0,0;1,0,0"}, "--profile needs --profile-width"},
      {{"--profile-width", "3"}, "--profile-width goes with --profile"},
      {{"--profile", "0,0,0;1,0,0", "--profile-width", "1", "--profile-out", "p.txt"},
       "option --profile-out: 'p.txt' ends in neither .las, .laz nor .csv"},
      {{"--profile", "0,0,0;1,0,0", "--profile-width", "1", "--headless"},
       "give either --profile or --headless, not both"},
  };
  for (const auto& [args, message] : cases) {
    const std::string e = usage_error(args);
    EXPECT_EQ(e.rfind(message, 0), 0u) << "got: " << e << "\nwanted: " << message;
  }
}

TEST(Options, StreamingValues) {
  pr::Options o;
  ASSERT_EQ(
      parse(words("--point-budget 50M --sse 2.5 --cache-memory 512M --stream off --no-wait"), o),
      0);
  EXPECT_EQ(o.point_budget, 50'000'000u);
  EXPECT_EQ(o.sse, 2.5);
  EXPECT_EQ(o.cache_memory, uint64_t{512} << 20);
  EXPECT_FALSE(o.stream);
  EXPECT_TRUE(o.no_wait);
  ASSERT_EQ(parse({}, o), 0);
  EXPECT_FALSE(o.point_budget.has_value());
  EXPECT_FALSE(o.sse.has_value());
  EXPECT_TRUE(o.stream);
}

TEST(Options, ExitCodes) {
  auto run = [](std::vector<std::string> args) {
    std::vector<char*> argv{const_cast<char*>("pointraster")};
    for (auto& a : args) argv.push_back(a.data());
    pr::Options o;
    return pr::parse_options(int(argv.size()), argv.data(), o);
  };
  EXPECT_EQ(run({"--headless", "--frames", "2"}), 0);
  EXPECT_EQ(run({"--headless", "--width", "0"}), 2);
  EXPECT_EQ(run({"--help"}), -1);        // printed; main() exits 0
  EXPECT_EQ(run({"-h", "--bogus"}), 2);  // a bad option before the help
}

TEST(Options, HelpListsEveryOptionWithItsDescription) {
  const std::string help = pr::usage_text();
  std::vector<std::string> lines;
  std::istringstream in(help);
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  for (const std::string opt : {"--headless",
                                "--mode",
                                "--width",
                                "--height",
                                "--scene",
                                "--points",
                                "--camera",
                                "--focus",
                                "--up",
                                "--frames",
                                "--screenshot",
                                "--point-size",
                                "--threads",
                                "--compact",
                                "--culling",
                                "--occlusion",
                                "--sort",
                                "--binning",
                                "--tile",
                                "--tile-memory",
                                "--gpu-memory-limit",
                                "--color",
                                "--colormap",
                                "--edl",
                                "--hq",
                                "--pick",
                                "--vsync",
                                "--ui-scale",
                                "--scan",
                                "--max-points",
                                "--max-depth",
                                "--point-budget",
                                "--sse",
                                "--cache-memory",
                                "--stream",
                                "--no-wait",
                                "--info",
                                "--json",
                                "--annotation",
                                "--save-view",
                                "--help"}) {
    size_t k = 0;
    for (; k < lines.size(); ++k) {
      std::istringstream words(lines[k]);
      std::string name;
      words >> name;
      if (name == opt || name == "-h," + opt) break;
    }
    ASSERT_LT(k, lines.size()) << opt;
    // The description starts in column 24, on the option's line or, after a long name and
    // value, on the next.
    const bool same_line = lines[k].size() > 24 && lines[k][23] == ' ';
    const std::string& text = same_line || k + 1 == lines.size() ? lines[k] : lines[k + 1];
    EXPECT_GT(text.size(), 24u) << opt;
    EXPECT_NE(text[24], ' ') << opt << ": " << text;
  }
  EXPECT_NE(help.find("pointraster --info [--json] FILE..."), std::string::npos);
}

TEST(Options, ConvertTakesOutTempMemoryAndThreads) {
  pr::Options o;
  std::string e;
  ASSERT_EQ(parse(words("--convert out.copc.laz --temp /tmp/b --memory 1.5G --threads 3 a.las "
                        "b.e57"),
                  o, &e),
            0)
      << e;
  EXPECT_EQ(o.convert, "out.copc.laz");
  EXPECT_EQ(o.temp_dir, "/tmp/b");
  EXPECT_EQ(o.memory, uint64_t(1.5 * 1073741824.0));
  EXPECT_EQ(o.threads, 3u);
  EXPECT_EQ(o.files, (std::vector<std::string>{"a.las", "b.e57"}));
  EXPECT_FALSE(o.timings);
  pr::Options timed;
  ASSERT_EQ(parse(words("--convert out.copc.laz --timings a.las"), timed, &e), 0) << e;
  EXPECT_TRUE(timed.timings);
  EXPECT_EQ(pr::convert_format("x/y.copc.laz"), "COPC");
  EXPECT_EQ(pr::convert_format("Y.COPC.LAZ"), "COPC");
  EXPECT_EQ(pr::convert_format("y.laz"), "LAZ");
  EXPECT_EQ(pr::convert_format("y.Las"), "LAS");
  EXPECT_EQ(pr::convert_format("y.copc"), "");
  EXPECT_EQ(pr::convert_format(".las"), "");
  EXPECT_NE(pr::usage_text().find("--convert OUT"), std::string::npos);
}

TEST(Options, ConvertRefusesBadValuesAndCombinations) {
  // A suffix that picks no format: the message lists the ones that do.
  const std::string suffix = usage_error(words("--convert out.ply a.las"));
  EXPECT_NE(suffix.find("'out.ply'"), std::string::npos) << suffix;
  EXPECT_NE(suffix.find(".copc.laz (COPC), .laz, .las"), std::string::npos) << suffix;
  EXPECT_NE(usage_error(words("--convert out.las")).find("at least one FILE"), std::string::npos);
  EXPECT_NE(usage_error(words("--convert out.las --info a.las")).find("--info"), std::string::npos);
  EXPECT_NE(usage_error(words("--convert out.las --headless a.las")).find("--headless"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--temp /tmp a.las")).find("--temp goes with --convert"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--memory 1G a.las")).find("--memory goes with --convert"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--timings a.las")).find("--timings goes with --convert"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--convert o.las --memory 12X a.las")).find("'12X'"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--convert o.las --memory 0 a.las")).find("--memory"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--convert o.las --threads 0 a.las")).find("--threads"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--convert o.las --max-points 10 a.las")).find("--max-points"),
            std::string::npos);
  EXPECT_NE(usage_error(words("--convert o.las --scan 1 a.e57")).find("--scan"), std::string::npos);
}

TEST(Options, ClipBoxesModesAndSections) {
  pr::Options o;
  ASSERT_EQ(parse(words("--headless --clip-box 1,2,3,4,5,6 --clip-box 0,0,0,1,1,1,30,0,-10,outside "
                        "--clip-mode highlight --section z=12.5,0.5"),
                  o),
            0);
  ASSERT_EQ(o.clip.boxes.size(), 2u);
  // The arguments' order is not kept between boxes: find each by its centre.
  const pr::ClipBox& a = o.clip.boxes[0].centre.x == 1.0 ? o.clip.boxes[0] : o.clip.boxes[1];
  const pr::ClipBox& b = o.clip.boxes[0].centre.x == 1.0 ? o.clip.boxes[1] : o.clip.boxes[0];
  EXPECT_EQ(a.centre, glm::dvec3(1, 2, 3));
  EXPECT_EQ(a.size, glm::dvec3(4, 5, 6));
  EXPECT_EQ(a.mode, pr::ClipMode::kHighlight);  // --clip-mode
  EXPECT_EQ(b.mode, pr::ClipMode::kOutside);    // its own
  EXPECT_EQ(b.yaw, 30.0);
  EXPECT_EQ(b.roll, -10.0);
  EXPECT_TRUE(o.clip.section.enabled);
  EXPECT_EQ(o.clip.section.normal, glm::dvec3(0, 0, 1));
  EXPECT_EQ(o.clip.section.point.z, 12.5);
  EXPECT_EQ(o.clip.section.thickness, 0.5);
  ASSERT_EQ(parse(words("--section 1,2,3,0,1,0,2"), o), 0);
  EXPECT_EQ(o.clip.section.normal, glm::dvec3(0, 1, 0));
  EXPECT_FALSE(o.clip.active() && !o.clip.section.enabled);
}

TEST(Options, BadClipValuesAreUsageErrors) {
  EXPECT_EQ(usage_error({"--clip-box", "0,0,0,1,0,1"}),
            "option --clip-box: every size must be above zero, got '0,0,0,1,0,1'");
  EXPECT_EQ(usage_error({"--clip-box", "0,0,0,1,1"}),
            "option --clip-box: expected CX,CY,CZ,SX,SY,SZ[,YAW,PITCH,ROLL][,MODE], got "
            "'0,0,0,1,1'");
  EXPECT_EQ(usage_error({"--clip-box", "0,0,nan,1,1,1"}),
            "option --clip-box: 'nan' is not a finite number");
  EXPECT_EQ(usage_error({"--clip-box", "0,0,0,1,1,1,5"}).rfind("option --clip-box: expected", 0),
            0u);
  EXPECT_EQ(usage_error({"--clip-mode", "around"}),
            "option --clip-mode: 'around' is not inside, outside or highlight");
  EXPECT_EQ(usage_error({"--section", "w=1,2"}).rfind("option --section: expected", 0), 0u);
  EXPECT_EQ(usage_error({"--section", "z=1,0"}),
            "option --section: the thickness must be above zero, got 'z=1,0'");
  EXPECT_EQ(usage_error({"--section", "0,0,0,0,0,0,1"}),
            "option --section: the normal is zero, got '0,0,0,0,0,0,1'");
  std::vector<std::string> many;
  for (int i = 0; i <= pr::kMaxClipBoxes; ++i) {
    many.push_back("--clip-box");
    many.push_back("0,0,0,1,1,1");
  }
  EXPECT_EQ(usage_error(many), "option --clip-box: 9 clip boxes, at most 8");
}

TEST(Options, ClipPolygonGoesWithConvertAndTheViewer) {
  pr::Options o;
  ASSERT_EQ(parse(words("--convert o.las a.las --clip-polygon 0,0;10,0;10,5;0,5"), o), 0);
  ASSERT_TRUE(o.clip_polygon);
  EXPECT_FALSE(o.clip_polygon->on_image);
  EXPECT_EQ(o.clip_polygon->vertices.size(), 4u);
  EXPECT_EQ(o.clip_polygon->vertices[2], glm::dvec2(10, 5));
  pr::Options viewer;
  ASSERT_EQ(parse(words("a.las --clip-polygon 0,0;1,0;0,1"), viewer), 0);
  EXPECT_TRUE(viewer.clip_polygon);
  EXPECT_EQ(usage_error({"--clip-polygon", "0,0;1,1"}),
            "option --clip-polygon: polygon: 2 vertices, at least 3 needed");
  EXPECT_EQ(usage_error({"--clip-polygon", "0,0;1,1;2,2"}),
            "option --clip-polygon: polygon: its vertices lie on one line: it encloses nothing");
  EXPECT_EQ(usage_error(words("--headless --clip-polygon 0,0;1,0;0,1")),
            "--clip-polygon selects what --convert and the viewer's Save write: --headless frames "
            "do not draw it");
}

TEST(Options, AnnotationsTakeATitleTextPointAndCamera) {
  pr::Options o;
  std::string e;
  ASSERT_EQ(parse({"--annotation", "Tower;the tall one;1,-2.5,3e2",
                   "--annotation=Gate;;4,5,6;7,8,9,30,-10"},
                  o, &e),
            0)
      << e;
  ASSERT_EQ(o.annotations.size(), 2u);
  EXPECT_EQ(o.annotations[0].title, "Tower");
  EXPECT_EQ(o.annotations[0].text, "the tall one");
  EXPECT_EQ(o.annotations[0].position, glm::dvec3(1, -2.5, 300));
  EXPECT_FALSE(o.annotations[0].camera);
  EXPECT_EQ(o.annotations[1].text, "");
  ASSERT_TRUE(o.annotations[1].camera);
  EXPECT_EQ(o.annotations[1].camera->position, glm::dvec3(7, 8, 9));
  EXPECT_EQ(o.annotations[1].camera->yaw_deg, 30.0);
  EXPECT_EQ(o.annotations[1].camera->pitch_deg, -10.0);
  // Bad values: one line naming the option and what is wrong.
  const std::pair<const char*, const char*> bad[] = {
      {"Tower;1,2,3", "expected TITLE;TEXT;X,Y,Z"},
      {";text;1,2,3", "the title is empty"},
      {"T;x;1,2", "'1,2' is not X,Y,Z"},
      {"T;x;1,2,nan", "'1,2,nan' is not X,Y,Z"},
      {"T;x;1,2,3;1,2,3,4", "is not X,Y,Z,YAW,PITCH"},
      {"T;x;1,2,3;4;5", "expected TITLE;TEXT;X,Y,Z"},
  };
  for (const auto& [value, why] : bad) {
    const std::string msg = usage_error({"--annotation", value});
    EXPECT_NE(msg.find("option --annotation"), std::string::npos) << msg;
    EXPECT_NE(msg.find(why), std::string::npos) << value << ": " << msg;
  }
}

TEST(Options, SceneFilesAndSaveView) {
  pr::Options o;
  std::string e;
  ASSERT_EQ(parse({"view.JSON", "--headless", "--save-view", "out.json"}, o, &e), 0) << e;
  EXPECT_EQ(o.scene_file, "view.JSON");
  EXPECT_TRUE(o.files.empty());
  EXPECT_EQ(o.save_view, "out.json");
  ASSERT_EQ(parse({"a.las", "view.json", "b.laz"}, o, &e), 0) << e;
  EXPECT_EQ(o.files, (std::vector<std::string>{"a.las", "b.laz"}));
  EXPECT_EQ(o.scene_file, "view.json");
  EXPECT_NE(usage_error({"--save-view", "out.png"}).find("does not end in .json"),
            std::string::npos);
  EXPECT_NE(usage_error({"a.json", "b.json"}).find("give one scene file"), std::string::npos);
  EXPECT_NE(usage_error({"--info", "a.json"}).find("--info describes point-cloud files"),
            std::string::npos);
  EXPECT_NE(usage_error({"--save-view", "v.json", "--convert", "o.laz", "a.las"})
                .find("give either --save-view or --convert"),
            std::string::npos);
}
