// Switching a renderer option live and comparing the images before and after: one table of
// cases, each registered as the test Window.<name> and run by run_switch_case().
#include <cstdio>

#include "window_support.h"

namespace {

using pr::ViewerTesting;
using pr::test::kBackground;
using pr::test::pixels_differing;
using pr::test::scripted;
using pr::test::SwitchCase;
using pr::test::SwitchRun;

SDL_Event g_key() {
  return pr::test::key_event(SDLK_g, SDL_SCANCODE_G, true);
}

// The cube seen from its own camera inside it (the scene's default view): the loader reorders the
// random cube along a Morton curve, so most batches lie outside the view and are skipped;
// switching the culling off mid-run must not change a pixel.
SwitchCase culling_switch() {
  SwitchCase c{"CullingSwitchKeepsTheImage", false, scripted(0, 480, 300, 300'000), {}, {}, {}};
  c.options.scene = "cube";
  c.steps = {[](ViewerTesting& v, SwitchRun& r) {
               r.counts.push_back(v.cpu_culled_batches());
               v.set_culling(false);
             },
             [](ViewerTesting& v, SwitchRun& r) { r.counts.push_back(v.cpu_culled_batches()); }};
  c.expect = [](ViewerTesting&, const SwitchRun& r) {
    EXPECT_GT(r.counts[0], 30u) << "the cube's own camera should skip most of its 74 batches";
    EXPECT_EQ(r.counts[1], 0u);
    ASSERT_EQ(r.images[0].size(), r.images[1].size());
    ASSERT_FALSE(r.images[0].empty());
    EXPECT_EQ(pixels_differing(r.images[0], r.images[1]), 0u);
    EXPECT_GT(pr::test::count_not(r.images[0], r.w, 0, 0, r.w, r.h, kBackground), size_t(100));
  };
  return c;
}

// The cube seen whole from outside, dense in a small window: with occlusion culling on, the CPU
// renderer skips the batches hidden behind the nearer ones; turning it off mid-run must not
// change a pixel. The first step comes frames after the cloud's first, which has no Hi-Z of a
// last frame yet.
SwitchCase occlusion_switch() {
  SwitchCase c{
      "OcclusionCullingSwitchKeepsTheImage", false, scripted(0, 320, 200, 600'000), {}, {}, {}};
  c.options.scene = "cube";
  c.options.camera = pr::CameraArg{0.0, 0.0, -400.0, 0.0, 0.0};  // the whole cube, along +z
  c.before = [](ViewerTesting& v) { v.set_occlusion(pr::Toggle::kOn); };
  c.steps = {[](ViewerTesting& v, SwitchRun& r) {
               r.counts.push_back(v.cpu_occluded_batches());
               v.set_occlusion(pr::Toggle::kOff);
             },
             [](ViewerTesting& v, SwitchRun& r) { r.counts.push_back(v.cpu_occluded_batches()); }};
  c.expect = [](ViewerTesting&, const SwitchRun& r) {
    EXPECT_GT(r.counts[0], 20u) << "most of the cube's 147 batches lie behind its front";
    EXPECT_EQ(r.counts[1], 0u);
    ASSERT_EQ(r.images[0].size(), r.images[1].size());
    ASSERT_FALSE(r.images[0].empty());
    EXPECT_EQ(pixels_differing(r.images[0], r.images[1]), 0u);
    EXPECT_GT(pr::test::count_not(r.images[0], r.w, 0, 0, r.w, r.h, kBackground), size_t(1000));
  };
  return c;
}

// CPU mode: the panel's "compact positions" re-encodes the cloud quantized (an image close to the
// full-precision one, not the same), and switching it off draws the full-precision image again.
SwitchCase cpu_compact_switch() {
  SwitchCase c{"CompactPositionsOnTheCpuSwitchLiveAndBack",
               false,
               scripted(0, 480, 300, 300'000),
               {},
               {},
               {}};
  c.steps = {[](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_compact(true)); },
             [](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_compact(false)); },
             {}};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    EXPECT_EQ(v.mode(), "cpu");
    EXPECT_TRUE(r.results[0]) << v.status();
    EXPECT_FALSE(r.results[1]) << v.status();
    const auto &full = r.images[0], &compact = r.images[1];
    ASSERT_EQ(full.size(), compact.size());
    ASSERT_FALSE(full.empty());
    const size_t diff = pixels_differing(full, compact);
    EXPECT_GT(diff, 0u) << "compact positions drew the full-precision image";
    EXPECT_LT(diff, full.size() / 4) << "compact positions drew another picture";
    EXPECT_EQ(r.images[2], full) << "full precision again is not the first image";
  };
  return c;
}

// Compact positions (--compact) draw the same image on both renderers: the CPU's, then the GPU's
// after a live switch, and again with the cloud stored in Morton order (the panel's spatial
// sort), which both renderers encode in the same order.
SwitchCase compact_parity() {
  SwitchCase c{
      "CompactImageIsTheSameOnCpuAndGpu", true, scripted(0, 800, 500, 1'000'000), {}, {}, {}};
  c.options.compact = true;
  c.steps = {[](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_mode("gpu")); },
             [](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_gpu_sort(true)); },
             [](ViewerTesting& v, SwitchRun&) { v.set_mode("cpu"); },
             {}};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    ASSERT_TRUE(r.results[0]) << v.status();
    EXPECT_TRUE(r.results[1]) << v.status();
    EXPECT_TRUE(v.render_options().compact);
    ASSERT_FALSE(r.images[0].empty());
    EXPECT_EQ(r.images[1], r.images[0]) << "the GPU's compact image is not the CPU's";
    EXPECT_EQ(r.images[2], r.images[3]) << "sorted compact images differ";
  };
  return c;
}

// On a machine with a CUDA device (the device recipe runs this binary with
// SDL_VIDEODRIVER=offscreen): the live switch shows the same image on both renderers, through
// interop when the GL context is on the CUDA device; the panel's spatial sort re-uploads the
// cloud in Morton order (same image); G toggles back to the CPU, live.
SwitchCase live_switch() {
  SwitchCase c{
      "LiveSwitchToGpuShowsTheSameImage", true, scripted(0, 800, 500, 1'000'000), {}, {}, {}};
  c.steps = {[](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_mode("gpu")); },
             [](ViewerTesting& v, SwitchRun& r) {
               r.notes.push_back(v.display_path());
               r.results.push_back(v.set_gpu_sort(true));
             },
             [](ViewerTesting& v, SwitchRun&) {
               v.set_gpu_sort(false);
               SDL_Event e = g_key();
               SDL_PushEvent(&e);
             },
             {}};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    ASSERT_TRUE(r.results[0]) << v.status();
    std::printf("display path in GPU mode: %s\n", r.notes[0].c_str());
    EXPECT_EQ(v.mode(), "cpu");
    const auto &cpu_img = r.images[0], &gpu_img = r.images[1];
    ASSERT_EQ(cpu_img.size(), gpu_img.size());
    const size_t diff = pixels_differing(cpu_img, gpu_img);
    EXPECT_EQ(diff, 0u) << "CPU and GPU images differ in " << diff << " pixels";
    EXPECT_TRUE(r.results[1]) << v.status();
    EXPECT_EQ(r.images[2], cpu_img) << "the spatially sorted GPU cloud draws another image";
    EXPECT_EQ(r.images[3], cpu_img);
  };
  return c;
}

// GPU mode: the panel's "compact positions" re-uploads the cloud quantized (an image within a
// few percent of the full-precision one, not the same), and switching it off again draws the
// CPU's image pixel for pixel.
SwitchCase gpu_compact_switch() {
  SwitchCase c{
      "GpuCompactPositionsSwitchLiveAndBack", true, scripted(0, 800, 500, 1'000'000), {}, {}, {}};
  c.steps = {[](ViewerTesting& v, SwitchRun& r) {
               r.results.push_back(v.set_mode("gpu"));
               r.results.push_back(v.set_compact(true));
             },
             [](ViewerTesting& v, SwitchRun& r) { r.results.push_back(v.set_compact(false)); },
             {}};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    ASSERT_TRUE(r.results[0]) << v.status();
    EXPECT_TRUE(r.results[1]) << v.status();
    EXPECT_FALSE(r.results[2]) << v.status();
    const auto &cpu_img = r.images[0], &compact_img = r.images[1];
    ASSERT_EQ(cpu_img.size(), compact_img.size());
    const size_t diff = pixels_differing(cpu_img, compact_img);
    EXPECT_GT(diff, 0u) << "compact positions drew the full-precision image";
    EXPECT_LT(diff, cpu_img.size() / 4) << "compact positions drew another picture";
    EXPECT_EQ(r.images[2], cpu_img) << "full precision again is not the CPU's image";
  };
  return c;
}

// A cloud whose full-precision positions do not fit on the GPU (a device memory limit of 10 MiB
// for 1M points: 15 MB at full precision, 7 MB compact) is drawn from compact positions, and the
// status line says so; asking for full precision again ends in compact positions too, with the
// limit named, and the GPU keeps drawing.
SwitchCase too_large_for_full_precision() {
  SwitchCase c{"CloudTooLargeForTheGpuFallsBackToCompactPositions",
               true,
               scripted(0, 800, 500, 1'000'000),
               {},
               {},
               {}};
  c.options.gpu_memory_limit = 10u << 20;  // --gpu-memory-limit 10M
  c.steps = {[](ViewerTesting& v, SwitchRun& r) {
               r.results.push_back(v.set_mode("gpu"));
               r.notes.push_back(v.status());
               r.results.push_back(v.set_compact(false));
               r.notes.push_back(v.status());
             },
             [](ViewerTesting& v, SwitchRun& r) { r.notes.push_back(v.mode()); }};
  c.expect = [](ViewerTesting& v, const SwitchRun& r) {
    ASSERT_TRUE(r.results[0]) << v.status();
    const std::string &status_switch = r.notes[0], &status_again = r.notes[1];
    EXPECT_NE(status_switch.find("compact ones (7 bytes a point)"), std::string::npos)
        << status_switch;
    EXPECT_TRUE(r.results[1]) << status_again;
    EXPECT_NE(status_again.find("did not fit"), std::string::npos) << status_again;
    EXPECT_NE(status_again.find("over the limit"), std::string::npos) << status_again;
    EXPECT_EQ(r.notes[2], "gpu");
    ASSERT_EQ(r.images[0].size(), r.images[1].size());
    EXPECT_LT(pixels_differing(r.images[0], r.images[1]), r.images[0].size() / 4)
        << "the compact cloud is not the same picture";
  };
  return c;
}

const bool kRegistered = pr::test::register_switch_cases(
    {culling_switch(), occlusion_switch(), cpu_compact_switch(), compact_parity(), live_switch(),
     gpu_compact_switch(), too_large_for_full_precision()},
    __FILE__, __LINE__);

}  // namespace
