// culling_model: how much two ways of skipping hidden points could skip, predicted on the host
// from the final image of a frame (the Morton 1e7 target; docs/GPU.md).
//
// The cube scene (the bench's cloud) is projected once with project_to_pixel(), the renderers'
// own function, giving each pixel's nearest depth. Then, for batches of B consecutive stored
// points (the renderers use 4096) with their bounding boxes and box_footprint():
//
//   Hi-Z table: the share of batches and of points that a Hi-Z of the final image, with tiles of
//   T pixels, hides (the footprint's near depth beyond the largest depth of every tile the
//   footprint meets). This is the most that occlusion culling from the last frame can skip
//   while the camera stays put; the renderers use T = 16 (engine/culling.h).
//
//   ownership table: each screen tile of S x S pixels owned by one block, which takes the batches
//   whose footprint meets the tile, nearest footprint first, and skips a batch when its near depth
//   lies beyond every depth the tile already holds inside the footprint (an exact test, on the
//   tile's own depths). It gives the tiles used, the list entries, the points read in all (a batch
//   meeting several tiles is read by each) and the most points one tile reads: the work of the
//   slowest block, which bounds such a frame.
//
// Both tests are checked against the image: no batch the Hi-Z hides holds a point that gives a
// pixel its depth, and every tile's depths after its list equal the image's. A failure exits 1.
//
//   culling_model [--points 1e7] [--order morton|random] [--camera overview|inside]
//                 [--width 1920 --height 1080] [--batches 4096,1024,256] [--hiz-tiles 16,8,4,2]
//                 [--tiles 32,64,128]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/bench_util.h"
#include "engine/camera.h"
#include "engine/culling.h"
#include "engine/projection.h"
#include "engine/scenes.h"

namespace {

using namespace pr;

constexpr uint32_t kEmpty = 0xffffffffu;  // a pixel without a point (depth bits of no key)

struct Options {
  uint64_t points = 10000000;
  std::string order = "morton", camera = "overview";
  int width = 1920, height = 1080;
  std::vector<uint64_t> batches = {4096, 1024, 256}, hiz_tiles = {16, 8, 4, 2},
                        tiles = {32, 64, 128};
};

bool parse(int argc, char** argv, Options& o) {
  std::string err;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool more = i + 1 < argc;
    std::vector<uint64_t> one;
    if (a == "--points" && more && parse_counts(argv[i + 1], one, &err) && one.size() == 1) {
      o.points = one[0];
      ++i;
    } else if (a == "--order" && more) {
      o.order = argv[++i];
    } else if (a == "--camera" && more) {
      o.camera = argv[++i];
    } else if (a == "--width" && more) {
      o.width = std::atoi(argv[++i]);
    } else if (a == "--height" && more) {
      o.height = std::atoi(argv[++i]);
    } else if (a == "--batches" && more && parse_counts(argv[i + 1], o.batches, &err)) {
      ++i;
    } else if (a == "--hiz-tiles" && more && parse_counts(argv[i + 1], o.hiz_tiles, &err)) {
      ++i;
    } else if (a == "--tiles" && more && parse_counts(argv[i + 1], o.tiles, &err)) {
      ++i;
    } else {
      std::fprintf(stderr,
                   "usage: culling_model [--points N] [--order morton|random] [--camera "
                   "overview|inside] [--width W --height H] [--batches B,...] [--hiz-tiles "
                   "T,...] [--tiles S,...]\n(bad or incomplete argument '%s'%s%s)\n",
                   a.c_str(), err.empty() ? "" : ": ", err.c_str());
      return false;
    }
  }
  auto positive = [](const std::vector<uint64_t>& v) {
    return !v.empty() && std::all_of(v.begin(), v.end(), [](uint64_t x) { return x > 0; });
  };
  if (o.points == 0 || o.width <= 0 || o.height <= 0 || !positive(o.batches) ||
      !positive(o.hiz_tiles) || !positive(o.tiles) ||
      (o.order != "morton" && o.order != "random") ||
      (o.camera != "overview" && o.camera != "inside")) {
    std::fprintf(stderr,
                 "culling_model: need points, a size and sizes above zero, an order "
                 "morton|random and a camera overview|inside\n");
    return false;
  }
  return true;
}

/// A batch's footprint and the depth bits at or below every depth a point of it can draw at.
struct Batch {
  BoxFootprint f;
  uint32_t near_bits = 0;  ///< float_bits of the near depth rounded down
};

std::vector<Batch> batch_footprints(const PointCloud& cloud, const ProjParams& p, uint64_t size) {
  const uint64_t n = cloud.size(), nb = (n + size - 1) / size;
  std::vector<Batch> out(nb);
  for (uint64_t b = 0; b < nb; ++b) {
    PointBox box = empty_point_box();
    for (uint64_t i = b * size; i < std::min(n, (b + 1) * size); ++i)
      box_grow(box, cloud.positions[i].x, cloud.positions[i].y, cloud.positions[i].z);
    out[b].f = box_footprint(p, box);
    // The float below the double near depth: a point's float depth is at least the double.
    const float nf = float(out[b].f.near_depth);
    const uint32_t bits = float_bits(nf);
    out[b].near_bits = double(nf) > out[b].f.near_depth && bits > 0 ? bits - 1 : bits;
  }
  return out;
}

/// The frame projected once: each point's pixel (or -1) and depth bits, each pixel's nearest
/// depth bits.
struct Frame {
  int W = 0, H = 0;
  uint64_t n = 0, in_view = 0;
  std::vector<int32_t> pix;
  std::vector<uint32_t> depth, image;
};

Frame project(const PointCloud& cloud, const ProjParams& p, int W, int H) {
  Frame fr;
  fr.W = W;
  fr.H = H;
  fr.n = cloud.size();
  fr.pix.assign(fr.n, -1);
  fr.depth.assign(fr.n, kEmpty);
  fr.image.assign(size_t(W) * H, kEmpty);
  for (uint64_t i = 0; i < fr.n; ++i) {
    int ix = 0, iy = 0;
    uint64_t key = 0;
    const Float3& v = cloud.positions[i];
    if (!project_to_pixel(p, v.x, v.y, v.z, 0, ix, iy, key)) continue;
    fr.pix[i] = iy * W + ix;
    fr.depth[i] = uint32_t(key >> 32);
    fr.image[size_t(fr.pix[i])] = std::min(fr.image[size_t(fr.pix[i])], fr.depth[i]);
    ++fr.in_view;
  }
  return fr;
}

/// One row of the Hi-Z table (batches of `size` points, Hi-Z tiles of T pixels); false after a
/// FAIL line when a hidden batch gives a pixel its depth.
bool hiz_row(const Frame& fr, const std::vector<Batch>& batches, uint64_t size, int T) {
  const int W = fr.W, H = fr.H, tx = (W + T - 1) / T, ty = (H + T - 1) / T;
  std::vector<uint32_t> hiz(size_t(tx) * ty, 0);
  for (int y = 0; y < H; ++y)
    for (int x = 0; x < W; ++x) {
      uint32_t& w = hiz[size_t(y / T) * tx + size_t(x / T)];
      w = std::max(w, fr.image[size_t(y) * W + x]);
    }
  uint64_t hidden = 0, hidden_points = 0, wrong = 0;
  for (size_t b = 0; b < batches.size(); ++b) {
    const Batch& bt = batches[b];
    if (bt.f.rect.empty()) continue;  // culled: not counted as hidden
    uint32_t most = 0;
    for (int y = bt.f.rect.y0 / T; y <= (bt.f.rect.y1 - 1) / T; ++y)
      for (int x = bt.f.rect.x0 / T; x <= (bt.f.rect.x1 - 1) / T; ++x)
        most = std::max(most, hiz[size_t(y) * tx + size_t(x)]);
    if (bt.near_bits <= most) continue;
    ++hidden;
    for (uint64_t i = b * size; i < std::min(fr.n, (b + 1) * size); ++i) {
      ++hidden_points;
      wrong += fr.pix[i] >= 0 && fr.depth[i] <= fr.image[size_t(fr.pix[i])];
    }
  }
  std::printf("| %llu | %d | %zu | %.1f%% | %.1f%% |\n", (unsigned long long)size, T,
              batches.size(), 100.0 * double(hidden) / double(batches.size()),
              100.0 * double(hidden_points) / double(fr.n));
  if (wrong) {
    std::printf("FAIL: %llu points of hidden batches give a pixel its depth\n",
                (unsigned long long)wrong);
    return false;
  }
  return true;
}

using TileList = std::vector<std::pair<uint32_t, uint32_t>>;  // (near bits, batch), per tile

/// Tile t (S x S pixels) owned by one block: its list's batches drawn nearest first into `own`,
/// each skipped when it cannot reach a pixel nearer than the tile holds. Returns the points read;
/// `wrong` counts the tile's pixels that end up other than the image's.
uint64_t own_tile(const Frame& fr, const std::vector<Batch>& batches, uint64_t size, int S,
                  size_t t, int tx, TileList& list, std::vector<uint32_t>& own, uint64_t& wrong) {
  const int W = fr.W, H = fr.H;
  std::sort(list.begin(), list.end());
  std::fill(own.begin(), own.end(), kEmpty);
  const int X0 = int(t % size_t(tx)) * S, Y0 = int(t / size_t(tx)) * S;
  const int X1 = std::min(W, X0 + S), Y1 = std::min(H, Y0 + S);
  uint64_t r = 0;
  for (const auto& [near_bits, b] : list) {
    const PixelRect& f = batches[b].f.rect;
    uint32_t far = 0;
    for (int y = std::max(f.y0, Y0); y < std::min(f.y1, Y1); ++y)
      for (int x = std::max(f.x0, X0); x < std::min(f.x1, X1); ++x)
        far = std::max(far, own[size_t(y - Y0) * S + size_t(x - X0)]);
    if (near_bits > far) continue;  // everything it can reach already holds a nearer depth
    for (uint64_t i = b * size; i < std::min(fr.n, (b + 1) * size); ++i) {
      ++r;
      if (fr.pix[i] < 0) continue;
      const int x = fr.pix[i] % W, y = fr.pix[i] / W;
      if (x < X0 || x >= X1 || y < Y0 || y >= Y1) continue;
      uint32_t& d = own[size_t(y - Y0) * S + size_t(x - X0)];
      d = std::min(d, fr.depth[i]);
    }
  }
  for (int y = Y0; y < Y1; ++y)
    for (int x = X0; x < X1; ++x)
      wrong += own[size_t(y - Y0) * S + size_t(x - X0)] != fr.image[size_t(y) * W + x];
  return r;
}

/// One row of the ownership table (batches of `size` points, tiles of S pixels); false after a
/// FAIL line when an owned tile's depths differ from the image's.
bool tile_row(const Frame& fr, const std::vector<Batch>& batches, uint64_t size, int S) {
  const int tx = (fr.W + S - 1) / S, ty = (fr.H + S - 1) / S;
  std::vector<TileList> lists(size_t(tx) * ty);
  for (size_t b = 0; b < batches.size(); ++b) {
    const PixelRect& r = batches[b].f.rect;
    if (r.empty()) continue;
    for (int y = r.y0 / S; y <= (r.y1 - 1) / S; ++y)
      for (int x = r.x0 / S; x <= (r.x1 - 1) / S; ++x)
        lists[size_t(y) * tx + size_t(x)].push_back({batches[b].near_bits, uint32_t(b)});
  }
  uint64_t used = 0, entries = 0, read = 0, most = 0, wrong = 0;
  std::vector<uint32_t> own(size_t(S) * S);
  for (size_t t = 0; t < lists.size(); ++t) {
    if (lists[t].empty()) continue;
    ++used;
    entries += lists[t].size();
    const uint64_t r = own_tile(fr, batches, size, S, t, tx, lists[t], own, wrong);
    read += r;
    most = std::max(most, r);
  }
  std::printf("| %llu | %d | %llu | %llu | %.2f M | %.0f k |\n", (unsigned long long)size, S,
              (unsigned long long)used, (unsigned long long)entries, double(read) / 1e6,
              double(most) / 1e3);
  if (wrong) {
    std::printf("FAIL: %llu pixels of the owned tiles differ from the image\n",
                (unsigned long long)wrong);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, o)) return 2;
  PointCloud cloud = make_scene("cube", o.points, 1);
  if (o.order == "morton") morton_sort(cloud);
  Camera cam = scene_camera("cube", cloud);
  if (o.camera == "overview") cam.frame(cloud.world_bounds(), double(o.width) / o.height);
  const ProjParams p = cam.params(o.width, o.height, cloud.origin, 1);
  const Frame fr = project(cloud, p, o.width, o.height);
  uint64_t hit = 0;
  for (uint32_t d : fr.image) hit += d != kEmpty;
  std::printf(
      "culling_model: cube, %llu points (%s order), %s camera, %dx%d: %llu in view on "
      "%llu pixels\n\n",
      (unsigned long long)fr.n, o.order.c_str(), o.camera.c_str(), fr.W, fr.H,
      (unsigned long long)fr.in_view, (unsigned long long)hit);
  int failures = 0;
  // Each batch size's footprints, for both tables.
  std::vector<std::vector<Batch>> footprints;
  for (uint64_t size : o.batches) footprints.push_back(batch_footprints(cloud, p, size));

  std::printf(
      "| batch | Hi-Z tile | batches | hidden batches | hidden points |\n"
      "| ---: | ---: | ---: | ---: | ---: |\n");
  for (size_t k = 0; k < o.batches.size(); ++k)
    for (uint64_t t64 : o.hiz_tiles)
      failures += !hiz_row(fr, footprints[k], o.batches[k], int(t64));

  std::printf(
      "\n| batch | tile | tiles used | list entries | points read | most a tile reads |\n"
      "| ---: | ---: | ---: | ---: | ---: | ---: |\n");
  for (size_t k = 0; k < o.batches.size(); ++k)
    for (uint64_t s64 : o.tiles) failures += !tile_row(fr, footprints[k], o.batches[k], int(s64));
  return failures ? 1 : 0;
}
