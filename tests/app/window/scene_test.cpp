// Scene files and annotations in a real window: the window opened on a scene file draws the
// image headless mode draws for it; Save view writes the live view (headless draws what the
// window showed), Open view brings it back, over the same cloud or another; an annotation added
// at a pick is listed, and clicking it in the list or its label flies the camera to it.
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

#include "headless.h"
#include "scene_file.h"
#include "window_support.h"

namespace fs = std::filesystem;
using namespace pr::test;  // NOLINT: the window tests' helpers

namespace {

/// `args` parsed, with the scene file they name under them (as the program does); no notes.
pr::Options command_line(const std::vector<std::string>& args) {
  pr::Options o;
  std::string why;
  EXPECT_EQ(pr::parse_arguments(args, o, &why), 0) << why;
  if (o.scene_file.empty()) return o;
  std::vector<std::string> notes;
  int rc = 0;
  EXPECT_TRUE(pr::apply_scene_file(args, o, &notes, &why, &rc)) << why;
  EXPECT_TRUE(notes.empty()) << notes.front();
  return o;
}

/// The image headless mode draws for `args` (one frame).
pr::Image headless(std::vector<std::string> args, const fs::path& png) {
  args.insert(args.end(), {"--headless", "--frames", "1", "--screenshot", png.string()});
  EXPECT_EQ(pr::run_headless(command_line(args)), 0);
  pr::Image img;
  std::string err;
  EXPECT_TRUE(pr::read_png(png.string(), img, &err)) << err;
  return img;
}

/// Pixels whose color (alpha aside) differs.
size_t rgb_differing(const std::vector<uint32_t>& a, const std::vector<uint32_t>& b) {
  if (a.size() != b.size()) return std::max(a.size(), b.size());
  size_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += ((a[i] ^ b[i]) & 0x00ffffffu) != 0;
  return n;
}

/// Whether the view has settled: the cloud loaded, its colors on screen, a few frames drawn.
struct Settle {
  int since = -1;
  bool operator()(int frame, pr::ViewerTesting& v) {
    const bool busy = v.cloud_busy() || v.color_busy() || v.cloud_points() == 0;
    if (busy || frame < 5) {
      since = -1;
      return false;
    }
    if (since < 0) since = frame;
    return frame >= since + 4;
  }
};

const std::vector<std::string> kTerrain = {"--scene",
                                           "terrain",
                                           "--points",
                                           "60k",
                                           "--width",
                                           "320",
                                           "--height",
                                           "200",
                                           "--color",
                                           "elevation",
                                           "--colormap",
                                           "turbo",
                                           "--edl",
                                           "--point-size",
                                           "2",
                                           "--clip-box",
                                           "-100,0,0,800,600,900"};

}  // namespace

namespace {

/// The image a window opened on the scene file `json` shows once settled.
std::vector<uint32_t> window_image(const std::string& json, int* w, int* h) {
  pr::ViewerTesting v(command_line({json, "--mode", "cpu", "--vsync", "off", "--ui-scale", "1"}));
  std::string err;
  EXPECT_TRUE(v.open(&err)) << err;
  std::vector<uint32_t> px;
  Settle settled;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 4000 || (settled(frame, t) && t.read_image(px, *w, *h))) t.request_quit();
  };
  EXPECT_EQ(v.run(&hooks), 0);
  EXPECT_FALSE(px.empty()) << v.status();
  return px;
}

/// Adds `key`: `value` to the scene file's "color" section (what only the panel sets).
void set_color_key(const std::string& json, const char* key, const nlohmann::json& value) {
  std::ifstream in(json);
  nlohmann::json j = nlohmann::json::parse(in);
  in.close();
  j["color"][key] = value;
  std::ofstream(json) << j.dump(2);
}

}  // namespace

// The window opened on a scene file draws the image headless mode draws for it: a scene with
// colors, EDL, a point size and a clip; a LAS file seen from the top, orthographic, its ground
// class hidden; its intensity with a range and gamma set by hand.
TEST(Window, OpeningASceneFileDrawsTheHeadlessImage) {
  REQUIRE_DISPLAY();
  REQUIRE_TESTDATA("las");
  const fs::path d = fresh_config("scene_open");
  const std::string las = pr::test::data_path("las") + "/autzen_trim.las";
  const std::vector<std::string> top = {las,      "--width", "320",          "--height", "200",
                                        "--view", "top",     "--projection", "ortho"};
  struct Case {
    std::vector<std::string> args;
    std::function<void(const std::string&)> edit;  // what the panel would set
  };
  std::vector<Case> cases = {{kTerrain, {}}, {top, {}}, {top, {}}};
  cases[1].args.insert(cases[1].args.end(), {"--color", "classification"});
  cases[1].edit = [](const std::string& j) { set_color_key(j, "hidden_classes", {2}); };
  cases[2].args.insert(cases[2].args.end(), {"--color", "intensity", "--colormap", "inferno"});
  cases[2].edit = [](const std::string& j) {
    set_color_key(j, "range", {20.0, 90.0});
    set_color_key(j, "gamma", 2.0);
  };
  for (size_t k = 0; k < cases.size(); ++k) {
    const std::string json = (d / ("v" + std::to_string(k) + ".json")).string();
    std::vector<std::string> save = cases[k].args;
    save.insert(save.end(), {"--save-view", json});
    const pr::Image plain = headless(save, d / "plain.png");
    if (cases[k].edit) cases[k].edit(json);
    const pr::Image want = headless({json}, d / "scene.png");
    // What the panel set changes the image (the comparison below is not of two plain ones).
    if (cases[k].edit) {
      EXPECT_NE(rgb_differing(plain.rgba, want.rgba), 0u) << k;
    }
    int w = 0, h = 0;
    const std::vector<uint32_t> px = window_image(json, &w, &h);
    // The window was sized so that the image beside the panel is the scene's.
    ASSERT_EQ(w, 320) << k;
    ASSERT_EQ(h, 200) << k;
    EXPECT_EQ(rgb_differing(px, want.rgba), 0u) << k;
    EXPECT_GT(count_not(px, w, 0, 0, w, h, kBackground), size_t(w * h / 10)) << k;
  }
}

// Save view writes the live view: the camera moved by hand, the color mode, a clip box and
// compact positions chosen in the window; headless mode draws what the window showed. Open view
// then brings the view back over the same cloud after the camera moved, and a second window on
// another scene opens it (its inputs loaded).
TEST(Window, SaveViewWritesTheLiveViewAndOpenViewBringsItBack) {
  REQUIRE_DISPLAY();
  const fs::path d = fresh_config("scene_save");
  const std::string json = (d / "live.json").string();
  std::vector<uint32_t> shown, reopened;
  int w = 0, h = 0, stage = 0;
  pr::Camera saved, after;
  std::string err;
  pr::ViewerHooks hooks;
  {  // one viewer at a time: each has its ImGui context
    pr::Options o = scripted(0, 690, 240, 50'000);
    o.scene = "terrain";
    o.ui_scale = 1.0f;
    pr::ViewerTesting v(o);
    ASSERT_TRUE(v.open(&err)) << err;
    Settle settled;
    hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
      if (frame > 6000) stage = 9;
      if (stage < 9 && !settled(frame, t)) return;
      switch (stage) {
        case 0:  // the view changed by hand
          t.camera().position += glm::dvec3(3.0, -2.0, 5.0);
          t.camera().turn(0.2, -0.1);
          t.set_color("elevation");
          t.add_clip_box();
          t.set_compact(true);
          stage = 1;
          settled.since = -1;
          break;
        case 1:
          if (!t.read_image(shown, w, h)) break;
          saved = t.camera();
          EXPECT_TRUE(t.save_view(json)) << t.status();
          t.camera().position += glm::dvec3(20.0, 0.0, 0.0);  // away again
          t.camera().turn(-0.5, 0.0);
          EXPECT_TRUE(t.open_view(json)) << t.status();
          stage = 2;
          settled.since = -1;
          break;
        case 2:
          if (t.read_image(reopened, w, h)) stage = 9;
          break;
        default:
          t.request_quit();
      }
    };
    EXPECT_EQ(v.run(&hooks), 0);
    ASSERT_FALSE(shown.empty()) << v.status();
    after = v.camera();
  }
  EXPECT_EQ(after.position, saved.position);
  EXPECT_EQ(after.yaw, saved.yaw);
  EXPECT_EQ(rgb_differing(reopened, shown), 0u);
  const pr::Image want = headless({json}, d / "live.png");
  ASSERT_EQ(want.width, w);
  ASSERT_EQ(want.height, h);
  EXPECT_EQ(rgb_differing(shown, want.rgba), 0u);
  // The file holds the live state.
  pr::Options back = command_line({json});
  ASSERT_TRUE(back.scene_extras.camera);
  EXPECT_EQ(back.scene_extras.camera->position, saved.position);
  EXPECT_EQ(back.color, "elevation");
  EXPECT_EQ(back.clip.boxes.size(), 1u);
  EXPECT_TRUE(back.compact);

  // Another window, on another scene: Open view loads the scene's inputs and shows its view.
  pr::Options cube = scripted(0, 690, 240, 20'000);
  cube.scene = "cube";
  cube.ui_scale = 1.0f;
  pr::ViewerTesting other(cube);
  ASSERT_TRUE(other.open(&err)) << err;
  std::vector<uint32_t> opened;
  stage = 0;
  Settle again;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 6000) stage = 9;
    if (stage < 9 && !again(frame, t)) return;
    if (stage == 0) {
      EXPECT_TRUE(t.open_view(json)) << t.status();
      stage = 1;
      again.since = -1;
    } else if (stage == 1 && t.read_image(opened, w, h)) {
      stage = 9;
    } else if (stage == 9) {
      t.request_quit();
    }
  };
  EXPECT_EQ(other.run(&hooks), 0);
  EXPECT_EQ(rgb_differing(opened, want.rgba), 0u) << other.status();
}

// An annotation added at a pick is listed; clicking it in the list flies the camera to a view of
// its point, clicking one with a saved camera flies to that camera, and clicking a label on the
// image flies too.
TEST(Window, AnnotationsAreListedAndClickingOneFliesTheCamera) {
  REQUIRE_DISPLAY();
  fresh_config("annotations");
  pr::ViewerTesting v(scripted(0, 900, 520, 200'000));
  std::string err;
  ASSERT_TRUE(v.open(&err)) << err;
  REQUIRE_PANEL_INPUT();
  PanelClick header("annotation.header"), peak_item("annotation.item.1"),
      gate_item("annotation.item.0");
  pr::Camera start;
  glm::dvec3 peak(0.0);
  float lx = 0, ly = 0;
  int stage = 0, at = 0;
  bool looked_at_peak = false, back_at_start = false, label_flew = false;
  auto looks_at = [](const pr::Camera& c, const glm::dvec3& p) {
    return glm::dot(c.forward(), glm::normalize(p - c.position)) > 0.9999;
  };
  Settle settled;
  pr::ViewerHooks hooks;
  hooks.on_frame = [&](int frame, pr::ViewerTesting& t) {
    if (frame > 6000) stage = 99;
    if (stage == 0 && !settled(frame, t)) return;
    const pr::ImageRect a = t.image_area();
    const int cx = int(a.ux + a.uw / 2), cy = int(a.uy + a.uh / 2);
    SDL_Event e{};
    switch (stage) {
      case 0:  // the start view kept as an annotation's camera; a click picks the middle
        start = t.camera();
        t.annotations().push_back(
            {"Gate", "", start.position + start.forward(),
             pr::CameraPose{start.position, start.yaw * 180 / M_PI, start.pitch * 180 / M_PI}});
        SDL_WarpMouseInWindow(t.window(), cx, cy);
        at = frame;
        stage = 1;
        break;
      case 1:
        if (frame == at + 2 || frame == at + 3) {
          e = mouse_button_event(SDL_BUTTON_LEFT, frame == at + 2, cx, cy);
          SDL_PushEvent(&e);
        }
        if (frame > at + 4 && !t.pick_pending() && t.pick_count() > 0) {
          peak = t.pick(t.pick_count() - 1).world;
          EXPECT_TRUE(t.add_annotation("Peak", "the top")) << t.status();
          stage = 2;
        }
        break;
      case 2:
        if (header.step(t)) stage = 3;
        if (header.failed()) stage = 99;
        break;
      case 3:
        if (peak_item.step(t)) stage = 4;
        if (peak_item.failed()) stage = 99;
        break;
      case 4:
        if (t.annotation_flying()) break;
        looked_at_peak = looks_at(t.camera(), peak) && t.camera().position != start.position;
        stage = 5;
        break;
      case 5:
        if (gate_item.step(t)) stage = 6;
        if (gate_item.failed()) stage = 99;
        break;
      case 6:
        if (t.annotation_flying()) break;
        back_at_start = glm::length(t.camera().position - start.position) < 1e-9 &&
                        std::fabs(t.camera().yaw - start.yaw) < 1e-12 &&
                        std::fabs(t.camera().pitch - start.pitch) < 1e-12;
        at = frame;
        stage = 7;
        break;
      case 7:  // the Peak label on the image, clicked
        if (frame == at + 2 && t.annotation_label(1, &lx, &ly))
          SDL_WarpMouseInWindow(t.window(), int(lx), int(ly));
        if (frame == at + 4 || frame == at + 5) {
          e = mouse_button_event(SDL_BUTTON_LEFT, frame == at + 4, int(lx), int(ly));
          SDL_PushEvent(&e);
        }
        if (frame > at + 6 && !t.annotation_flying()) {
          label_flew =
              lx > 0 && looks_at(t.camera(), peak) && t.camera().position != start.position;
          stage = 99;
        }
        break;
      default:
        t.request_quit();
    }
  };
  EXPECT_EQ(v.run(&hooks), 0);
  ASSERT_EQ(v.annotations().size(), 2u) << v.status();
  EXPECT_EQ(v.annotations()[1].title, "Peak");
  EXPECT_EQ(v.annotations()[1].text, "the top");
  EXPECT_EQ(v.annotations()[1].position, peak);
  EXPECT_TRUE(looked_at_peak);
  EXPECT_TRUE(back_at_start);
  EXPECT_TRUE(label_flew);
  EXPECT_EQ(stage, 99);
}
