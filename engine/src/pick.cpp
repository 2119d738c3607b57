#include "engine/pick.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <mutex>
#include <vector>

#include "engine/clip.h"
#include "engine/colorize.h"
#include "engine/cpu_renderer.h"
#include "engine/parallel.h"

namespace pr {

namespace {

/// A point with key `k` and index `id` over pixels [ax0, ax1) x [ay0, ay1) (its splat).
void offer(PickWindow& w, int ax0, int ay0, int ax1, int ay1, uint64_t k, uint64_t id) {
  ax0 = std::max(ax0, w.x0), ay0 = std::max(ay0, w.y0);
  ax1 = std::min(ax1, w.x1), ay1 = std::min(ay1, w.y1);
  for (int yy = ay0; yy < ay1; ++yy)
    for (int xx = ax0; xx < ax1; ++xx) {
      const size_t at = size_t(yy - w.y0) * size_t(w.x1 - w.x0) + size_t(xx - w.x0);
      if (k < w.key[at] || (k == w.key[at] && id < w.index[at])) w.key[at] = k, w.index[at] = id;
    }
}

void merge_into(PickWindow& w, const PickWindow& o) {
  for (size_t i = 0; i < w.key.size(); ++i)
    if (o.key[i] < w.key[i] || (o.key[i] == w.key[i] && o.index[i] < w.index[i]))
      w.key[i] = o.key[i], w.index[i] = o.index[i];
}

/// Offers every drawn point whose splat reaches `all`'s pixels to it: the frame's points
/// (`count` of the cloud's, as effective_count() gives them) re-projected in parallel, each
/// thread into its own copy of the window, merged at the end. Units of kPointBatch: stored
/// points (compact, or all points), or a subset's drawn points; a unit whose box cannot put a
/// pixel (splats included) in the window holds no candidate.
void collect_candidates(PickWindow& all, const PointCloud& cloud, const CompactCloud* compact,
                        const ProjParams& p, const ClipParams& clip, const SizeGrid* size,
                        uint64_t count, unsigned threads, const PodVector<PointBox>* boxes,
                        const std::atomic<bool>* cancel) {
  const uint64_t total = cloud.size();
  const uint64_t step = subset_step(total, count);
  const bool subset = step != (uint64_t{1} << 32);
  const uint32_t* colors = cloud.colors.data();
  // The point's splat from its pixel and key.
  auto offer_at = [&](PickWindow& w, float px, float py, float pz, int ix, int iy, uint64_t key,
                      uint64_t id) {
    int sx0, sy0, sx1, sy1;
    splat_rect_sized(p, point_size_of(p, size, px, py, pz, key_depth(key)), ix, iy, sx0, sy0, sx1,
                     sy1);
    if (sx1 <= w.x0 || sx0 >= w.x1 || sy1 <= w.y0 || sy0 >= w.y1) return;
    offer(w, sx0, sy0, sx1, sy1, key, id);
  };
  // A point's key and splat, as the renderers' depth test sees them.
  auto offer_point = [&](PickWindow& w, float px, float py, float pz, uint64_t id) {
    int ix, iy;
    uint64_t key;
    // A point the clip hides draws nothing, so it is not picked (engine/clip_math.h).
    if (clip.active() ? !clip_project_to_pixel(p, clip, px, py, pz, colors[id], ix, iy, key)
                      : !project_to_pixel(p, px, py, pz, colors[id], ix, iy, key))
      return;
    offer_at(w, px, py, pz, ix, iy, key, id);
  };
  // A compact point, projected through its batch's forms as the renderers draw it.
  auto offer_compact = [&](PickWindow& w, const CompactBatch& box, const CompactForms& forms,
                           uint32_t word, uint64_t id) {
    int ix, iy;
    uint32_t dbits;
    if (!compact_to_pixel(p, forms, word, ix, iy, dbits)) return;
    float px, py, pz;
    compact_decode(box, word, px, py, pz);
    uint32_t color = colors[id];
    if (clip.active()) {
      const uint32_t k = clip_point(clip, px, py, pz);
      if (k == kClipHidden) return;
      color = clip_color(clip, k, color);
    }
    offer_at(w, px, py, pz, ix, iy, pack_key(bits_float(dbits), color), id);
  };
  std::mutex merge;
  const uint64_t walked = compact || !subset ? total : count;
  const size_t units = size_t((walked + kPointBatch - 1) / kPointBatch);
  const PixelRect window{all.x0, all.y0, all.x1, all.y1};
  auto reaches = [&](const PixelRect& rect) {
    return !rect.empty() && rect.x0 < window.x1 && rect.x1 > window.x0 && rect.y0 < window.y1 &&
           rect.y1 > window.y0;
  };
  const bool float_boxes = !compact && !subset && boxes && boxes->size() == units;
  auto may_hold = [&](size_t u) {
    if (compact)
      return reaches(compact_box_footprint(p, compact->batches[u]).rect) &&
             (!clip.active() || clip_box_class(clip, compact->batches[u]) != kClipHidden);
    if (float_boxes)
      return reaches(box_footprint(p, (*boxes)[u]).rect) &&
             (!clip.active() || clip_box_class(clip, (*boxes)[u]) != kClipHidden);
    return true;
  };
  parallel_for(
      units,
      [&](size_t u0, size_t u1) {
        PickWindow w = all;
        for (size_t u = u0; u < u1; ++u) {
          if (cancel && cancel->load(std::memory_order_relaxed)) return;
          if (!may_hold(u)) continue;
          const uint64_t b = uint64_t(u) * kPointBatch,
                         e = std::min(walked, uint64_t(u + 1) * kPointBatch);
          const CompactForms forms =
              compact ? compact_forms(p, compact->batches[u]) : CompactForms{};
          for (uint64_t i = b; i < e; ++i) {
            if (compact) {
              const uint64_t id = compact->orig.empty() ? i : compact->orig[i];
              if (subset && !in_subset(uint32_t(id), count, step)) continue;
              offer_compact(w, compact->batches[u], forms, compact->words[i], id);
            } else {
              const uint64_t id = subset ? subset_index(i, step) : i;
              const Float3 v = cloud.positions[id];
              offer_point(w, v.x, v.y, v.z, id);
            }
          }
        }
        std::lock_guard<std::mutex> lock(merge);
        merge_into(all, w);
      },
      threads, 16);
}

/// The window's drawn pixel nearest to (x, y) within `radius` (ties: the upper, then the left
/// one) into r.x, r.y; its offset in the window, or -1 when there is none.
long nearest_drawn(const PickWindow& all, int x, int y, int radius, PickResult& r) {
  long best = -1, best_at = -1;
  for (int yy = all.y0; yy < all.y1; ++yy)
    for (int xx = all.x0; xx < all.x1; ++xx) {
      const size_t at = size_t(yy - all.y0) * size_t(all.x1 - all.x0) + size_t(xx - all.x0);
      if (all.key[at] == kEmptyKey) continue;
      const long d2 = long(xx - x) * (xx - x) + long(yy - y) * (yy - y);
      if (d2 > long(radius) * radius || (best >= 0 && d2 >= best)) continue;
      best = d2;
      best_at = long(at);
      r.x = xx;
      r.y = yy;
    }
  return best_at;
}

/// r's position and attributes from point r.index of the cloud.
void fill_point(const PointCloud& cloud, PickResult& r) {
  const Float3 v = cloud.positions[r.index];
  r.world = cloud.origin + glm::dvec3(double(v.x), double(v.y), double(v.z));
  if (r.index < cloud.intensity.size()) {
    r.has_intensity = true;
    r.intensity = cloud.intensity[r.index];
  }
  if (r.index < cloud.classification.size()) {
    r.has_class = true;
    r.classification = cloud.classification[r.index];
  }
}

}  // namespace

bool pick_window_at(int x, int y, int radius, int width, int height, PickWindow* w) {
  if (width <= 0 || height <= 0 || x < 0 || y < 0 || x >= width || y >= height) return false;
  radius = std::clamp(radius, 0, 64);
  w->x0 = std::max(0, x - radius), w->y0 = std::max(0, y - radius);
  w->x1 = std::min(width, x + radius + 1), w->y1 = std::min(height, y + radius + 1);
  w->key.assign(w->size(), kEmptyKey);
  w->index.assign(w->size(), ~uint64_t{0});
  return true;
}

PickResult pick_from_window(const PointCloud& cloud, const PickWindow& w, int x, int y,
                            int radius) {
  PickResult r;
  const long at = nearest_drawn(w, x, y, std::clamp(radius, 0, 64), r);
  if (at < 0 || w.index[size_t(at)] >= cloud.size()) return PickResult{};
  r.hit = true;
  r.index = w.index[size_t(at)];
  r.depth = key_depth(w.key[size_t(at)]);
  fill_point(cloud, r);
  return r;
}

PickResult pick_point(const PointCloud& cloud, const CompactCloud* compact, const Camera& camera,
                      const RenderSettings& s, int x, int y, int radius, unsigned threads,
                      const PodVector<PointBox>* boxes, const std::atomic<bool>* cancel,
                      const SizeGridTable* sizes) {
  const uint64_t count = effective_count(cloud.size(), s.point_count);
  PickWindow all;
  if (count == 0 || !pick_window_at(x, y, radius, s.width, s.height, &all)) return PickResult{};
  const ProjParams p = camera.params(s.width, s.height, cloud.origin, frame_point_size(s));
  // The frame's adaptive sizes: from the renderer's grid of this cloud, else one made here.
  SizeGridTable own;
  if (adaptive_size_on(s) && (!sizes || sizes->points != cloud.size())) {
    build_size_grid(cloud, &own, threads);
    sizes = &own;
  }
  SizeGrid grid;
  if (adaptive_size_on(s))
    grid = frame_size_grid(*sizes, sizes->spacing.data(), s, cloud.size(), count);
  ClipParams clip;
  // A clip the renderers refuse draws no frame, so nothing can be picked.
  if (!make_clip_params(s.clip, cloud.origin, &clip, nullptr)) return PickResult{};
  collect_candidates(all, cloud, compact, p, clip, grid.active() ? &grid : nullptr, count, threads,
                     boxes, cancel);
  if (cancel && cancel->load()) return PickResult{};
  return pick_from_window(cloud, all, x, y, radius);
}

const PodVector<PointBox>* boxes_for_pick(const PointCloud& cloud, const CpuRenderer* cpu,
                                          PodVector<PointBox>* scratch) {
  const size_t batches = (cloud.size() + kPointBatch - 1) / kPointBatch;
  if (cpu && cpu->boxes().size() == batches) return &cpu->boxes();
  if (!scratch) return nullptr;
  if (scratch->size() != batches)
    compute_point_boxes(cloud.positions.data(), cloud.size(), scratch);
  return scratch;
}

bool pick_in_frame(const Renderer& renderer, const PointCloud& cloud, const Camera& camera,
                   const RenderSettings& settings, int x, int y, int radius, PickResult* out,
                   std::string* error) {
  // The renderer's own pass where it holds the cloud (the GPU).
  PickWindow w;
  if (!pick_window_at(x, y, radius, settings.width, settings.height, &w)) {
    *out = PickResult{};
    return true;
  }
  std::string why;
  if (renderer.pick_window(camera, settings, &w, &why)) {
    *out = pick_from_window(cloud, w, x, y, radius);
    return true;
  }
  if (!why.empty()) {
    if (error) *error = why;
    return false;
  }
  // On the host: the positions the CPU renderer draws from.
  const auto* cpu = dynamic_cast<const CpuRenderer*>(&renderer);
  if (renderer.compact_active() && !cpu) {
    if (error) *error = "the " + renderer.name() + " renderer cannot pick its compact positions";
    return false;
  }
  const CompactCloud* compact = renderer.compact_active() ? &cpu->compact() : nullptr;
  // A single pick gains nothing from boxes made for it (their pass costs what it saves: 1e9
  // points on 16 cores 1035 -> 1132 ms): only the CPU renderer's, when it has them.
  const PodVector<PointBox>* boxes = compact ? nullptr : boxes_for_pick(cloud, cpu, nullptr);
  *out = pick_point(cloud, compact, camera, settings, x, y, radius, 0, boxes, nullptr,
                    cpu ? cpu->size_table() : nullptr);
  return true;
}

Measure measure(const glm::dvec3& a, const glm::dvec3& b, UpAxis up) {
  const glm::dvec3 d = b - a;
  Measure m;
  m.height = up == UpAxis::kZ ? d.z : d.y;
  const double h0 = d.x, h1 = up == UpAxis::kZ ? d.y : d.z;
  m.horizontal = std::sqrt(h0 * h0 + h1 * h1);
  m.distance = std::sqrt(h0 * h0 + h1 * h1 + m.height * m.height);
  return m;
}

std::vector<std::pair<std::string, std::string>> point_attributes(const PointCloud& cloud,
                                                                  uint64_t index,
                                                                  bool file_colors) {
  std::vector<std::pair<std::string, std::string>> out;
  if (index >= cloud.size()) return out;
  const size_t i = size_t(index);
  char b[96];
  const PodVector<uint32_t>& rgb = cloud.source_colors();
  if (!file_colors) {
    out.emplace_back("rgb", "none");
  } else if (i < rgb.size()) {
    const uint32_t c = rgb[i];
    std::snprintf(b, sizeof b, "%u %u %u", c & 255u, (c >> 8) & 255u, (c >> 16) & 255u);
    out.emplace_back("rgb", b);
  }
  if (i < cloud.intensity.size()) {
    std::snprintf(b, sizeof b, "%.9g", double(cloud.intensity[i]));
    out.emplace_back("intensity", b);
  }
  if (i < cloud.classification.size()) {
    const uint8_t c = cloud.classification[i];
    out.emplace_back("class", std::to_string(unsigned(c)) + " " + class_name(c));
  }
  if (i < cloud.returns.size()) {
    std::snprintf(b, sizeof b, "%u of %u", return_number(cloud.returns[i]),
                  return_count(cloud.returns[i]));
    out.emplace_back("return", b);
  }
  if (i < cloud.point_source.size())
    out.emplace_back("point source", std::to_string(unsigned(cloud.point_source[i])));
  if (i < cloud.gps_time.size()) {
    std::snprintf(b, sizeof b, "%.6f", cloud.gps_time[i]);
    out.emplace_back("GPS time", b);
  }
  for (const ScalarField& f : cloud.fields) {
    if (i >= f.values.size()) continue;
    std::snprintf(b, sizeof b, "%.9g", double(f.values[i]));
    out.emplace_back(f.name, b);
  }
  return out;
}

std::string pick_line(const PickResult& r) {
  if (!r.hit) return "pick none";
  char b[256];
  char in[32] = "none", cl[8] = "none";
  if (r.has_intensity) std::snprintf(in, sizeof in, "%.9g", double(r.intensity));
  if (r.has_class) std::snprintf(cl, sizeof cl, "%u", unsigned(r.classification));
  std::snprintf(b, sizeof b, "pick x=%.6f y=%.6f z=%.6f intensity=%s class=%s index=%llu",
                r.world.x, r.world.y, r.world.z, in, cl, (unsigned long long)r.index);
  return b;
}

}  // namespace pr
