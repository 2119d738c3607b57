// The streaming scene's background I/O and decode: a fixed set of threads taking requests (tile
// headers, hierarchy pages, nodes) from one queue, most important first. The frame's thread
// replaces the queue every update(); requests that left it are dropped, running ones that left
// it are cancelled through the flag their read watches.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engine/io/copc.h"
#include "engine/io/stream_types.h"
#include "tile_reader.h"

namespace pr {

enum class RequestKind : uint8_t { kOpen, kPage, kNode };

/// What a request is about: a tile (kOpen), the page or node at `key` of tile `tile`.
struct RequestId {
  RequestKind kind = RequestKind::kNode;
  uint32_t tile = 0;
  CopcKey key;
  bool operator==(const RequestId&) const = default;
};

struct RequestIdHash {
  size_t operator()(const RequestId& r) const {
    return size_t((r.key.hash() * 0x9E3779B97F4A7C15ull) ^ (uint64_t(r.tile) << 2) ^
                  uint64_t(r.kind));
  }
};

struct Request {
  RequestId id;
  std::string href;                  ///< kOpen: the tile's path or URL
  HttpOptions http;                  ///< kOpen
  std::shared_ptr<TileReader> file;  ///< kPage, kNode
  CopcEntry entry;                   ///< kPage (key, offset, byte size), kNode
  glm::dvec3 origin{0.0};            ///< kNode: the scene's origin
  std::shared_ptr<std::atomic<bool>> cancel;
  bool taken = false;  ///< in the queue: taken by a worker along with the node before it
};

struct RequestResult {
  RequestId id;
  bool ok = false, cancelled = false;
  std::string error;
  std::unique_ptr<TileReader> file;   ///< kOpen
  std::vector<CopcEntry> entries;     ///< kPage
  std::vector<std::string> warnings;  ///< kPage
  std::shared_ptr<PointCloud> cloud;  ///< kNode
};

/// Runs one request (on a worker thread; no shared state). A tile is opened by open_tile(): a
/// COPC file on a source wrapped by prefetching_source(), so that run_batch() can read adjacent
/// nodes at once, or an EPT dataset.
RequestResult run_request(Request& request);

/// Runs node requests whose bytes follow each other in one file with one read of the source
/// (one HTTP request instead of several), each decoded on its own; `done` takes each result as
/// soon as it is there (the first node of a batch is drawn before the others are decoded).
void run_batch(std::vector<Request>& batch, const std::function<void(RequestResult&&)>& done);

/// `inner` as a source whose reads a worker thread can serve from a range it read ahead.
std::unique_ptr<ByteSource> prefetching_source(std::unique_ptr<ByteSource> inner);

/// Reads [offset, offset + size) of `source`, when prefetching_source() made it, for this
/// thread's next reads; false otherwise or when the read fails.
bool prefetch_range(ByteSource& source, uint64_t offset, uint64_t size,
                    const std::atomic<bool>* cancel);

class StreamWorkers {
 public:
  explicit StreamWorkers(unsigned threads);
  /// Cancels the running requests, drops the queue and joins the threads.
  ~StreamWorkers();
  StreamWorkers(const StreamWorkers&) = delete;
  StreamWorkers& operator=(const StreamWorkers&) = delete;

  /// The queue becomes `wanted` (most important first) less what is running; running requests
  /// not in `wanted` are cancelled.
  void schedule(std::vector<Request> wanted);
  /// Results finished since the last call.
  std::vector<RequestResult> take_results();
  /// Requests queued or running.
  size_t in_flight() const;

 private:
  void loop();
  /// The next live request and the queued nodes that follow it in its file (under the lock).
  std::vector<Request> take_batch();

  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::vector<Request> queue_;  ///< least important first (taken from the back)
  size_t queued_ = 0;           ///< requests in queue_ not taken
  struct OffsetKey {
    const TileReader* file;
    uint64_t offset;
    bool operator==(const OffsetKey&) const = default;
  };
  struct OffsetHash {
    size_t operator()(const OffsetKey& k) const {
      return std::hash<const void*>()(k.file) ^ size_t(k.offset * 0x9E3779B97F4A7C15ull);
    }
  };
  std::unordered_map<OffsetKey, size_t, OffsetHash> by_offset_;  ///< queued nodes by offset
  std::unordered_map<RequestId, std::shared_ptr<std::atomic<bool>>, RequestIdHash> running_;
  std::vector<RequestResult> results_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace pr
