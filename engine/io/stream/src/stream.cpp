// StreamingScene: the known hierarchy of every tile (LodTile), the selection (lod.h), the
// workers (stream_workers.h), the host cache of decoded nodes and the pool (stream_pool.h).
// Everything but the workers runs on the caller's thread, in update().
#include "engine/io/stream.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>

#include "engine/io/base/io_common.h"
#include "engine/io/ept.h"
#include "engine/io/formats.h"
#include "engine/io/open_byte_source.h"
#include "engine/io/survey.h"
#include "lod.h"
#include "pool_classes.h"
#include "stream_pool.h"
#include "stream_workers.h"

namespace pr {

namespace {

using Clock = std::chrono::steady_clock;

struct NodeId {
  uint32_t tile = 0;
  CopcKey key;
  bool operator==(const NodeId&) const = default;
};

struct NodeIdHash {
  size_t operator()(const NodeId& n) const {
    return size_t((n.key.hash() * 0x9E3779B97F4A7C15ull) ^ n.tile);
  }
};

/// What the scene knows of a node beyond its hierarchy entry.
struct NodeState {
  std::shared_ptr<const PointCloud> cloud;  ///< decoded, in the host cache
  uint64_t cloud_bytes = 0;
  uint64_t last_selected = 0;  ///< the update() that last selected it
  bool failed = false;
  bool in_pool = false;
  std::vector<uint32_t> granules;                     ///< its room in the pool
  std::vector<std::pair<uint8_t, uint32_t>> classes;  ///< its points per class, while in the pool
};

struct TileSource {
  std::string href;
  uint64_t declared_points = 0;
  std::shared_ptr<TileReader> file;
  std::unordered_set<uint64_t> page_offsets;  ///< pages seen (a repeat is a cycle)
};

/// Whether `key` lies in the subtree of `root`.
bool in_subtree(const CopcKey& key, const CopcKey& root) {
  if (key.level < root.level) return false;
  const int s = key.level - root.level;
  return (key.x >> s) == root.x && (key.y >> s) == root.y && (key.z >> s) == root.z;
}

std::string key_text(const CopcKey& k) {
  return std::to_string(k.level) + "-" + std::to_string(k.x) + "-" + std::to_string(k.y) + "-" +
         std::to_string(k.z);
}

/// The workers: `asked`, else one a core for a survey read from disk (decoding is what they do;
/// more would take the cores from the frames: on 2 cores with the CPU renderer, 4 workers made
/// the longest flight frame 2.2 - 2.6x the median, 2 workers 1.6 - 1.9x), and at least 4 for one
/// read over HTTP(S), whose requests wait on the network.
unsigned worker_count(unsigned asked, bool remote) {
  if (asked) return asked;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return remote ? std::max(4u, cores) : cores;
}

bool any_remote(const std::vector<SurveyTile>& survey) {
  return std::any_of(survey.begin(), survey.end(),
                     [](const SurveyTile& t) { return is_url(t.href); });
}

}  // namespace

struct StreamingScene::Impl {
  StreamOptions opt;
  FileInfo info;
  std::vector<LodTile> tiles;
  std::vector<TileSource> sources;
  glm::dvec3 origin{0.0};
  std::unordered_map<NodeId, NodeState, NodeIdHash> nodes;
  std::unordered_set<NodeId, NodeIdHash> cached, pooled;
  uint64_t cache_bytes = 0, frame = 0, nodes_failed = 0;
  StreamPool pool;
  bool pool_attributes = false, reallocated = false;
  bool points_known = true;  ///< every tile's count is known (open, or declared by the survey)
  bool pool_made = false;    ///< allocate_pool() ran: a tile opening later adds its fields to it
  PoolClassFilter filter;
  StreamClasses classes;
  LodSelection sel;
  // The selection depends only on the known hierarchy, the view and the limits: it is made again
  // when one of them changed (a node's points arriving changes none of them).
  bool select_again = true;
  LodView selected_for;
  std::unique_ptr<StreamWorkers> workers;
  std::vector<std::string> messages;
  StreamStats stats;
  std::deque<std::pair<Clock::time_point, uint64_t>> rate;

  void message(std::string m) { messages.push_back(io::redact_url_queries(std::move(m))); }
  bool open_tiles(const std::vector<SurveyTile>& survey, std::string* error);
  void attach(uint32_t t, std::unique_ptr<TileReader> file);
  void merge_info(const std::vector<std::string>& inputs);
  void allocate_pool();
  void add_fields(const FileInfo& tile);

  void apply(RequestResult& r);
  void apply_page(RequestResult& r);
  void apply_node(RequestResult& r);
  void schedule();
  bool parent_in_pool(const NodeId& id);
  bool make_room(uint64_t granules, std::vector<NodeId>& victims, size_t& next, bool& listed);
  void evict(const NodeId& id, NodeState& st);
  void insert(const NodeId& id, NodeState& st);
  void fill_pool();
  void trim_cache();
  void prune_states();
  void update_stats();
};

// ---- opening

void StreamingScene::Impl::attach(uint32_t t, std::unique_ptr<TileReader> file) {
  LodTile& tile = tiles[t];
  const FileInfo& fi = file->info();
  tile.open = true;
  tile.center = fi.copc.center;
  tile.halfsize = fi.copc.halfsize;
  tile.spacing = fi.copc.spacing;
  if (!fi.bounds.empty) tile.bounds = fi.bounds;
  const CopcEntry root = file->root_page();
  LodEntry page;
  page.offset = root.offset;
  page.byte_size = root.byte_size;
  page.point_count = kLodUnreadPage;
  tile.add(CopcKey{}, page);
  sources[t].page_offsets.insert(root.offset);
  sources[t].file = std::move(file);
}

/// Opens (reads the header of) every tile whose bounds the survey does not declare, and the
/// first tile that opens, on up to `threads` threads. False, with the first tile's reason, when
/// none opens.
bool StreamingScene::Impl::open_tiles(const std::vector<SurveyTile>& survey, std::string* error) {
  std::vector<uint32_t> now;
  for (uint32_t t = 0; t < survey.size(); ++t)
    if (t == 0 || survey[t].bounds.empty) now.push_back(t);
  std::vector<RequestResult> results(now.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next.fetch_add(1)) < now.size();) {
      Request r;
      r.id = {RequestKind::kOpen, now[i], {}};
      r.href = survey[now[i]].href;
      r.http = opt.http;
      results[i] = run_request(r);
    }
  };
  std::vector<std::thread> threads;
  const size_t n = std::min<size_t>(worker_count(opt.threads, any_remote(survey)), now.size());
  for (size_t i = 1; i < n; ++i) threads.emplace_back(work);
  work();
  for (std::thread& th : threads) th.join();
  std::string first_error;
  for (RequestResult& r : results) apply(r);
  for (size_t i = 0; i < results.size(); ++i)
    if (!results[i].ok && first_error.empty()) first_error = results[i].error;
  // The format and the cube are the first tile's that opens; declared tiles are opened in order
  // until one does.
  for (uint32_t t = 0; t < tiles.size(); ++t) {
    if (tiles[t].open) return true;
    if (tiles[t].failed) continue;
    Request r;
    r.id = {RequestKind::kOpen, t, {}};
    r.href = survey[t].href;
    r.http = opt.http;
    RequestResult res = run_request(r);
    if (!res.ok && first_error.empty()) first_error = res.error;
    apply(res);
  }
  if (error) *error = first_error;
  return false;
}

namespace {

/// The fields of every tile by name (a field some tile lacks is zeros there, as the pool keeps
/// it), their declared ranges joined while every tile holding the field declares one.
void merge_fields(std::vector<FieldInfo>& all, const std::vector<FieldInfo>& tile) {
  for (const FieldInfo& f : tile) {
    auto it =
        std::find_if(all.begin(), all.end(), [&](const FieldInfo& a) { return a.name == f.name; });
    if (it == all.end()) {
      all.push_back(f);
    } else if (it->has_range && f.has_range) {
      it->lo = std::min(it->lo, f.lo);
      it->hi = std::max(it->hi, f.hi);
    } else {
      it->has_range = false;
    }
  }
}

}  // namespace

void StreamingScene::Impl::merge_info(const std::vector<std::string>& inputs) {
  info = FileInfo();
  points_known = true;
  info.file = inputs.size() == 1 ? inputs[0] : std::to_string(inputs.size()) + " inputs";
  bool first = true;
  for (uint32_t t = 0; t < tiles.size(); ++t) {
    const TileSource& s = sources[t];
    if (s.file) {
      const FileInfo& fi = s.file->info();
      if (first) {
        info.format = fi.format;
        info.version = fi.version;
        info.copc = fi.copc;
        first = false;
      }
      info.has_color |= fi.has_color;
      info.has_intensity |= fi.has_intensity;
      info.has_classification |= fi.has_classification;
      merge_fields(info.fields, fi.fields);
      info.points += s.declared_points ? s.declared_points : fi.points;
      info.bounds.extend(fi.bounds);
    } else if (!tiles[t].failed) {
      points_known &= s.declared_points > 0;
      info.points += s.declared_points;
      info.bounds.extend(tiles[t].bounds);
    }
  }
  // One origin for the survey, chosen from its bounds as a file's is from its own: tiles cut from
  // one file (sharing its scale and offset, their headers' bounds its points' own) cover that
  // file's bounds, so they get its origin, and a node's positions (its integers scaled in double
  // precision, the origin subtracted, then rounded to float) are the floats the whole file gives
  // the same points. A single file keeps its own origin (CopcFile::origin()).
  info.origin = io::choose_origin(info.bounds);
  origin = info.origin;
}

/// What a tile opened after the pool was made (a .vpc's tile once in view) brings: the survey's
/// info lists its named fields, intensity and classification, and the pool carries those it
/// lacked, so that they can be colored.
void StreamingScene::Impl::add_fields(const FileInfo& tile) {
  merge_fields(info.fields, tile.fields);
  for (const FieldInfo& f : info.fields) pool.add_field(f);
  info.has_intensity |= tile.has_intensity;
  info.has_classification |= tile.has_classification;
  if (!pool_attributes && (info.has_intensity || info.has_classification))
    pool_attributes = pool.add_attributes();
}

void StreamingScene::Impl::allocate_pool() {
  for (const NodeId& id : pooled) {
    NodeState& st = nodes[id];
    st.in_pool = false;
    st.granules.clear();
    st.classes.clear();
  }
  pooled.clear();
  filter.clear();
  classes.points = {};
  pool_attributes = info.has_intensity || info.has_classification;
  // A budget above the survey's points needs no room beyond them (and a frame then does not
  // walk empty batches); a tile not open yet that declares no count may hold any number.
  const uint64_t room =
      info.points && points_known ? std::min(opt.point_budget, info.points) : opt.point_budget;
  pool.allocate(room, opt.slot_align, origin, pool_attributes, info.fields, info.file);
  pool_made = true;
  reallocated = true;
}

// ---- results of the workers

void StreamingScene::Impl::apply(RequestResult& r) {
  const uint32_t t = r.id.tile;
  // A tile opened, a page read, a node failed (its count becomes 0) or a request cancelled
  // (asked for again if still wanted): the hierarchy or the queue changed.
  if (r.id.kind != RequestKind::kNode || !r.ok) select_again = true;
  switch (r.id.kind) {
    case RequestKind::kOpen:
      if (r.ok) {
        attach(t, std::move(r.file));
        if (pool_made) add_fields(sources[t].file->info());
      } else if (!r.cancelled) {
        tiles[t].failed = true;
        message(r.error);
      }
      break;
    case RequestKind::kPage:
      apply_page(r);
      break;
    case RequestKind::kNode:
      apply_node(r);
      break;
  }
}

void StreamingScene::Impl::apply_page(RequestResult& r) {
  LodTile& tile = tiles[r.id.tile];
  TileSource& src = sources[r.id.tile];
  const CopcKey root = r.id.key;
  if (!r.ok) {
    if (r.cancelled) return;
    tile.entries[root].point_count = kLodFailedPage;
    message(r.error);
    return;
  }
  for (std::string& w : r.warnings) message(std::move(w));
  size_t outside = 0;
  for (const CopcEntry& e : r.entries) {
    if (!in_subtree(e.key, root)) {
      ++outside;
      continue;
    }
    if (e.is_page() && !src.page_offsets.insert(e.offset).second) {
      message(src.href + ": hierarchy page at offset " + std::to_string(e.offset) + " (node " +
              key_text(e.key) + ") is listed twice (a cycle or a repeat); ignored");
      continue;
    }
    tile.add(e.key, LodEntry{e.offset, e.byte_size, e.point_count, 0});
  }
  if (outside)
    message(src.href + ": " + std::to_string(outside) + " entries of the hierarchy page of node " +
            key_text(root) + " lie outside its subtree; ignored");
  // A page without its own node: the node holds no points, its children are known.
  LodEntry& self = tile.entries[root];
  if (self.point_count < 0) self.point_count = 0, self.byte_size = 0;
}

void StreamingScene::Impl::apply_node(RequestResult& r) {
  const NodeId id{r.id.tile, r.id.key};
  NodeState& st = nodes[id];
  if (r.ok) {
    if (st.cloud) return;
    st.cloud_bytes = r.cloud->memory_bytes();
    st.cloud = std::move(r.cloud);
    cached.insert(id);
    cache_bytes += st.cloud_bytes;
    return;
  }
  if (r.cancelled || st.failed) return;
  // Skipped for good: it counts as an empty node, so its children still draw.
  st.failed = true;
  ++nodes_failed;
  tiles[id.tile].entries[id.key].point_count = 0;
  const std::string& href = sources[id.tile].href;
  message((r.error.find(href) == std::string::npos ? href + ": " : std::string()) + r.error +
          " (node skipped)");
}

// ---- requests

void StreamingScene::Impl::schedule() {
  // Every request in order of its item's projected size, so that the root node (which the first
  // image needs) is not queued behind the pages of a deep hierarchy; a page's or a tile's
  // subtree can only be selected once it is read, so nothing waits on what comes after it.
  std::vector<std::pair<double, Request>> wanted;
  for (const LodItem& it : sel.tiles) {
    Request r;
    r.id = {RequestKind::kOpen, it.tile, {}};
    r.href = sources[it.tile].href;
    r.http = opt.http;
    wanted.emplace_back(it.priority, std::move(r));
  }
  for (const LodItem& it : sel.pages) {
    const LodEntry& e = tiles[it.tile].entries.at(it.key);
    Request r;
    r.id = {RequestKind::kPage, it.tile, it.key};
    r.file = sources[it.tile].file;
    r.entry = CopcEntry{it.key, e.offset, e.byte_size, -1};
    wanted.emplace_back(it.priority, std::move(r));
  }
  for (const LodItem& it : sel.nodes) {
    const LodEntry& e = tiles[it.tile].entries.at(it.key);
    if (e.point_count <= 0) continue;
    const NodeState& st = nodes[NodeId{it.tile, it.key}];
    if (st.in_pool || st.cloud || st.failed) continue;
    Request r;
    r.id = {RequestKind::kNode, it.tile, it.key};
    r.file = sources[it.tile].file;
    r.entry = CopcEntry{it.key, e.offset, e.byte_size, e.point_count};
    r.origin = origin;
    wanted.emplace_back(it.priority, std::move(r));
  }
  std::stable_sort(wanted.begin(), wanted.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<Request> ordered;
  ordered.reserve(wanted.size());
  for (auto& w : wanted) ordered.push_back(std::move(w.second));
  workers->schedule(std::move(ordered));
}

// ---- pool and cache

bool StreamingScene::Impl::parent_in_pool(const NodeId& id) {
  if (id.key.level == 0) return true;
  const auto it = nodes.find(NodeId{id.tile, id.key.parent()});
  return it != nodes.end() && it->second.in_pool;
}

void StreamingScene::Impl::evict(const NodeId& id, NodeState& st) {
  filter.forget(st.granules);
  for (const auto& [c, n] : st.classes) classes.points[c] -= n;
  st.classes.clear();
  pool.remove(st.granules);
  st.granules.clear();
  st.in_pool = false;
  pooled.erase(id);
}

/// Evicts pool nodes that this update did not select, least recently selected first (children
/// before parents: a child is never selected later than its parent), until `granules` are free:
/// first those unselected for pool_keep_updates, until the node fits inside the cloud (no
/// growth, no fresh memory), then, once the pool's capacity is used, any. `victims` is filled on
/// the first call of an update.
bool StreamingScene::Impl::make_room(uint64_t granules, std::vector<NodeId>& victims, size_t& next,
                                     bool& listed) {
  const auto list = [&] {
    if (listed) return;
    listed = true;
    for (const NodeId& id : pooled)
      if (nodes[id].last_selected != frame) victims.push_back(id);
    std::sort(victims.begin(), victims.end(), [&](const NodeId& a, const NodeId& b) {
      const uint64_t la = nodes[a].last_selected, lb = nodes[b].last_selected;
      if (la != lb) return la < lb;
      return a.key.level > b.key.level;
    });
  };
  if (!pool.fits_in_extent(granules)) {
    list();
    while (!pool.fits_in_extent(granules) && next < victims.size() &&
           nodes[victims[next]].last_selected + opt.pool_keep_updates <= frame) {
      const NodeId id = victims[next++];
      evict(id, nodes[id]);
    }
  }
  if (pool.free_granules() >= granules) return true;
  list();
  while (pool.free_granules() < granules && next < victims.size()) {
    const NodeId id = victims[next++];
    evict(id, nodes[id]);
  }
  return pool.free_granules() >= granules;
}

/// Copies a node into the pool (room made), hides its points of hidden classes and counts its
/// classes.
void StreamingScene::Impl::insert(const NodeId& id, NodeState& st) {
  pool.insert(*st.cloud, st.granules);  // copied by fill_pool()'s flush(), then filtered
  if (!pool.cloud().classification.empty()) {
    st.classes = node_classes(*st.cloud);
    for (const auto& [c, n] : st.classes) {
      classes.points[c] += n;
      classes.seen[c] = true;
    }
  }
  st.in_pool = true;
  pooled.insert(id);
}

/// Copies the selected nodes that arrived into the pool, most important first, each only once
/// its parent is in (the picture refines without holes), at most pool_points_per_update points.
void StreamingScene::Impl::fill_pool() {
  std::vector<NodeId> victims;
  size_t next_victim = 0;
  bool listed = false;
  uint64_t copied = 0;
  std::vector<const std::vector<uint32_t>*> inserted;  // the granules of the nodes copied in
  for (const LodItem& it : sel.nodes) {
    const NodeId id{it.tile, it.key};
    NodeState& st = nodes[id];
    if (st.in_pool || !parent_in_pool(id)) continue;
    if (tiles[id.tile].entries.at(id.key).point_count == 0) {
      st.in_pool = true;  // nothing to copy: an empty or skipped node
      pooled.insert(id);
      continue;
    }
    if (!st.cloud) continue;
    const uint64_t n = st.cloud->size();
    if (copied > 0 && copied + n > opt.pool_points_per_update) break;
    if (!make_room(lod_slots(n, pool.granule_size()), victims, next_victim, listed)) break;
    insert(id, st);
    inserted.push_back(&st.granules);
    copied += n;
  }
  pool.flush();  // the nodes' copies, every core at once (before the cache may drop a node)
  for (const std::vector<uint32_t>* granules : inserted)
    filter.hide(pool.cloud(), *granules, pool.granule_size());
}

/// Drops decoded nodes beyond cache_bytes, least recently selected first; the ones selected and
/// not yet in the pool go last.
void StreamingScene::Impl::trim_cache() {
  if (cache_bytes <= opt.cache_bytes) return;
  struct Item {
    bool wanted;
    uint64_t last;
    NodeId id;
  };
  std::vector<Item> items;
  items.reserve(cached.size());
  for (const NodeId& id : cached) {
    const NodeState& st = nodes[id];
    items.push_back({st.last_selected == frame && !st.in_pool, st.last_selected, id});
  }
  std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.wanted != b.wanted) return !a.wanted;
    return a.last < b.last;
  });
  for (const Item& item : items) {
    if (cache_bytes <= opt.cache_bytes) break;
    NodeState& st = nodes[item.id];
    if (item.wanted) select_again = true;  // it is asked for again
    cache_bytes -= st.cloud_bytes;
    st.cloud.reset();
    st.cloud_bytes = 0;
    cached.erase(item.id);
  }
}

/// Forgets the nodes that are neither cached, drawn, failed nor selected, once they outnumber the
/// others (so that a long flight over a large survey keeps no state for every node it passed).
void StreamingScene::Impl::prune_states() {
  if (nodes.size() < 4096 + 2 * (cached.size() + pooled.size() + sel.nodes.size())) return;
  std::erase_if(nodes, [&](const auto& kv) {
    const NodeState& st = kv.second;
    return !st.cloud && !st.in_pool && !st.failed && st.last_selected != frame;
  });
}

void StreamingScene::Impl::update_stats() {
  StreamStats s;
  s.tiles = tiles.size();
  for (const LodTile& t : tiles) s.tiles_open += t.open ? 1 : 0;
  s.nodes_selected = sel.nodes.size();
  s.points_selected = sel.points;
  bool all_in = true;
  for (const LodItem& it : sel.nodes) all_in = all_in && nodes[NodeId{it.tile, it.key}].in_pool;
  for (const NodeId& id : pooled) {
    const NodeState& st = nodes[id];
    s.nodes_drawn += 1;
    if (!st.granules.empty())
      s.points_drawn += uint64_t(std::max(tiles[id.tile].entries.at(id.key).point_count, 0));
  }
  s.nodes_cached = cached.size();
  s.cache_bytes = cache_bytes;
  s.nodes_in_flight = workers->in_flight();
  s.nodes_failed = nodes_failed;
  for (const TileSource& src : sources)
    if (src.file) s.bytes_read += src.file->bytes_read();
  const Clock::time_point now = Clock::now();
  rate.emplace_back(now, s.bytes_read);
  while (rate.size() > 2 && now - rate[1].first >= std::chrono::seconds(1)) rate.pop_front();
  const double dt = std::chrono::duration<double>(now - rate.front().first).count();
  s.mb_per_s = dt > 0 ? double(s.bytes_read - rate.front().second) / dt / 1e6 : 0.0;
  s.converged = all_in && sel.pages.empty() && sel.tiles.empty() && s.nodes_in_flight == 0;
  stats = s;
}

// ---- the public class

StreamingScene::StreamingScene(const StreamOptions& options) : impl_(std::make_unique<Impl>()) {
  impl_->opt = options;
}

StreamingScene::~StreamingScene() {
  impl_->workers.reset();  // cancels and joins before the files go
}

namespace {

/// What a survey that does not open says: one file or URL given as it is says which and why
/// ("cannot open URL: not found (HTTP 404)"); a folder, a .vpc or several inputs, which are
/// surveys of tiles, say that no tile opens, with the first tile's reason.
std::string open_failure(const std::vector<std::string>& inputs,
                         const std::vector<SurveyTile>& survey, std::string reason) {
  if (inputs.size() != 1 || survey.size() != 1 || survey[0].href != inputs[0])
    return "no tile opens: " + reason;
  const std::string lead = inputs[0] + ": ";
  if (reason.rfind(lead, 0) == 0) reason.erase(0, lead.size());
  return "cannot open " + inputs[0] + ": " + (reason.empty() ? "it does not open" : reason);
}

}  // namespace

bool StreamingScene::open(const std::vector<std::string>& inputs, std::string* error) {
  const StreamOptions opt = impl_->opt;
  const std::array<bool, 256> hidden = impl_->filter.hidden();
  impl_ = std::make_unique<Impl>();
  Impl& s = *impl_;
  s.opt = opt;
  s.filter.set(hidden);
  std::vector<SurveyTile> survey;
  if (!list_survey(inputs, survey, error, &opt.http)) {
    if (error) *error = io::redact_url_queries(*error);
    return false;
  }
  if (survey.empty()) {
    if (error) *error = "no tile in the inputs";
    return false;
  }
  s.tiles.resize(survey.size());
  s.sources.resize(survey.size());
  for (size_t t = 0; t < survey.size(); ++t) {
    s.tiles[t].bounds = survey[t].bounds;
    s.sources[t].href = survey[t].href;
    s.sources[t].declared_points = survey[t].points;
  }
  if (std::string why; !s.open_tiles(survey, &why)) {
    if (error) *error = io::redact_url_queries(open_failure(inputs, survey, why));
    return false;
  }
  s.merge_info(inputs);
  s.allocate_pool();
  s.workers = std::make_unique<StreamWorkers>(worker_count(opt.threads, any_remote(survey)));
  s.update_stats();  // tiles and tiles open before the first update()
  s.stats.converged = false;
  return true;
}

const FileInfo& StreamingScene::info() const {
  return impl_->info;
}

void StreamingScene::set_options(const StreamOptions& options) {
  Impl& s = *impl_;
  s.select_again = true;
  const bool realloc =
      options.point_budget != s.opt.point_budget || options.slot_align != s.opt.slot_align;
  s.opt = options;
  if (realloc && s.workers) s.allocate_pool();
}

const StreamOptions& StreamingScene::options() const {
  return impl_->opt;
}

namespace {

bool same_view(const LodView& a, const LodView& b) {
  return a.eye == b.eye && a.right == b.right && a.up == b.up && a.forward == b.forward &&
         a.focus == b.focus && a.width == b.width && a.height == b.height && a.near_z == b.near_z &&
         bool(a.hidden) == bool(b.hidden) && a.hidden_key == b.hidden_key && a.ortho == b.ortho;
}

}  // namespace

std::vector<PoolRange> StreamingScene::update(const LodView& view) {
  Impl& s = *impl_;
  if (!s.workers) return {};
  ++s.frame;
  using Ms = std::chrono::duration<double, std::milli>;
  const Clock::time_point t0 = Clock::now();
  for (RequestResult& r : s.workers->take_results()) s.apply(r);
  const Clock::time_point t1 = Clock::now();
  LodLimits limits;
  limits.point_budget = s.opt.point_budget;
  limits.sse_px = s.opt.sse_px;
  limits.slot_align = s.pool.granule_size();
  limits.max_slots = s.pool.granules();
  if (s.select_again || !same_view(view, s.selected_for)) {
    select_lod(s.tiles, view, limits, s.sel);
    s.schedule();
    s.select_again = false;
    s.selected_for = view;
  }
  for (const LodItem& it : s.sel.nodes) s.nodes[NodeId{it.tile, it.key}].last_selected = s.frame;
  const Clock::time_point t2 = Clock::now();
  s.fill_pool();
  const Clock::time_point t3 = Clock::now();
  s.trim_cache();
  s.prune_states();
  s.update_stats();
  s.stats.results_ms = Ms(t1 - t0).count();
  s.stats.select_ms = Ms(t2 - t1).count();
  s.stats.copy_ms = Ms(t3 - t2).count();
  return s.pool.take_changes();
}

PointCloud& StreamingScene::pool() {
  return impl_->pool.cloud();
}

bool StreamingScene::pool_reallocated() {
  const bool r = impl_->reallocated;
  impl_->reallocated = false;
  return r;
}

void StreamingScene::set_hidden_classes(const std::array<bool, 256>& hidden) {
  Impl& s = *impl_;
  if (!s.filter.set(hidden)) return;
  // Every node in the pool shown, then filtered again: its points are rewritten in place.
  for (const NodeId& id : s.pooled) {
    const std::vector<uint32_t>& granules = s.nodes[id].granules;
    if (granules.empty()) continue;
    s.filter.show(s.pool.cloud(), granules, s.pool.granule_size());
    s.filter.hide(s.pool.cloud(), granules, s.pool.granule_size());
    s.pool.touch(granules);
  }
}

const StreamClasses& StreamingScene::classes() const {
  return impl_->classes;
}

StreamStats StreamingScene::stats() const {
  return impl_->stats;
}

std::vector<std::string> StreamingScene::take_messages() {
  std::vector<std::string> out;
  out.swap(impl_->messages);
  return out;
}

bool StreamingScene::wait_converged(const LodView& view, double timeout_s, int poll_ms) {
  const Clock::time_point end = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                                   std::chrono::duration<double>(timeout_s));
  for (;;) {
    update(view);
    if (impl_->stats.converged) return true;
    if (!impl_->workers || Clock::now() >= end) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(std::max(poll_ms, 0)));
  }
}

// ---- what streams

namespace {

/// A LAS 1.4 file whose first VLR, right after the header, is the `copc` info VLR.
bool is_copc_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  uint8_t h[400] = {};
  if (!f.read(reinterpret_cast<char*>(h), 96)) return false;
  if (std::memcmp(h, "LASF", 4) != 0 || h[24] != 1 || h[25] < 4) return false;
  uint16_t header_size = 0;
  std::memcpy(&header_size, h + 94, 2);
  uint8_t vlr[20] = {};
  f.seekg(header_size);
  if (!f.read(reinterpret_cast<char*>(vlr), 20)) return false;
  uint16_t record = 0;
  std::memcpy(&record, vlr + 18, 2);
  return std::memcmp(vlr + 2, "copc\0", 5) == 0 && record == 1;
}

}  // namespace

bool is_streamed_input(const std::string& input) {
  const FormatEntry* format = find_format_by_path(input);
  if (is_url(input) || (format && format->survey()) || !ept_json_of(input).empty()) return true;
  std::error_code ec;
  if (std::filesystem::is_directory(input, ec)) return true;
  return is_copc_file(input);
}

}  // namespace pr
