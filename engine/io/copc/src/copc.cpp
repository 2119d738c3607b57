// COPC read node by node (engine/io/copc.h): the header and VLRs in one or two reads, then
// hierarchy pages and nodes as the caller asks for them, each through the ByteSource on its own.
// A node is one LAZ chunk, decoded by the project's chunk reader and converted by convert_chunk(),
// which the whole-file reader (laz.cpp) uses too: the same record gives the same point.
#include "engine/io/copc.h"

#include <cmath>
#include <cstring>

#include "copc_page.h"
#include "engine/io/copc/laz_file.h"

namespace pr {

namespace {

/// The first read: the LAS 1.4 header (375 bytes) and, in most files, every VLR.
constexpr uint64_t kFirstRead = 64 * 1024;
/// The most header and VLR bytes accepted: a LAS file's VLRs are some kilobytes (a WKT, the
/// LASzip and COPC VLRs, extra-bytes descriptors); a larger offset to the points is damage, not a
/// file to fetch megabytes of before the first node.
constexpr uint64_t kMaxHead = 64ull << 20;

/// `message` without its leading "name: ", for messages that name the source themselves.
std::string without_name(const std::string& message, const std::string& name) {
  const std::string prefix = name + ": ";
  return message.compare(0, prefix.size(), prefix) == 0 ? message.substr(prefix.size()) : message;
}

std::string page_name(const CopcPage& page) {
  return "COPC hierarchy page (offset " + std::to_string(page.offset) + ", " +
         std::to_string(page.size) + " bytes)";
}

}  // namespace

struct CopcFile::Impl {
  std::unique_ptr<ByteSource> src;
  std::string name;        ///< the source's name, for messages
  std::string cloud_name;  ///< the name a node's cloud gets: the file name, as load_point_cloud's
  uint64_t size = 0;
  uint64_t points_begin = 0;  ///< the first chunk's offset (after the chunk table's offset)
  io::LasRecords recs;
  io::laz::Layout layout;
  io::LasHeader header;
  io::Attributes attrs;
  FileInfo info;
  CopcPage root;

  bool fail(std::string* error, const std::string& message) const {
    if (error) *error = name + ": " + message;
    return false;
  }

  /// Reads the header and the VLRs into `head`: the first kFirstRead bytes, then the rest of the
  /// VLRs when the offset to the points lies beyond.
  bool read_head(std::vector<uint8_t>& head, std::string* error) {
    if (size < 4) return fail(error, "not a COPC file: it does not start with 'LASF'");
    std::string err;
    if (!src->read(0, std::min(size, kFirstRead), head, &err))
      return fail(error, without_name(err, name));
    if (head.size() < 4 || std::memcmp(head.data(), "LASF", 4) != 0)
      return fail(error, "not a COPC file: it does not start with 'LASF'");
    if (head.size() >= 26 && (head[24] != 1 || head[25] != 4))
      return fail(error, "not a COPC file: LAS " + std::to_string(head[24]) + "." +
                             std::to_string(head[25]) + " (COPC is LAS 1.4)");
    if (head.size() < 375)
      return fail(error,
                  "truncated LAS 1.4 header (" + std::to_string(head.size()) + " bytes, need 375)");
    const uint64_t offset = io::get_le<uint32_t>(head.data() + 96);
    if (offset > size) return fail(error, "bad LAS offset to point data " + std::to_string(offset));
    if (offset <= head.size()) return true;
    if (offset > kMaxHead)
      return fail(error, "the header and VLRs take " + std::to_string(offset) +
                             " bytes (more than 64 MiB)");
    std::vector<uint8_t> rest;
    if (!src->read(head.size(), offset - head.size(), rest, &err))
      return fail(error, without_name(err, name));
    head.insert(head.end(), rest.begin(), rest.end());
    return true;
  }

  /// The LASzip VLR: LAZ with variable chunks, items this decoder reads.
  bool check_laz(const io::Input& in, const io::LasHeader& h, std::string* error) {
    if (!io::las_is_compressed(in.data, in.size))
      return fail(error, "not a COPC file: its points are not LAZ-compressed");
    if (!io::find_layout(in, h, layout, error)) return false;
    if (layout.record_length != h.record_length)
      return fail(error, "the LASzip items make " + std::to_string(layout.record_length) +
                             "-byte records, the header says " + std::to_string(h.record_length));
    if (layout.compressor == 1 || layout.chunk_size != 0xFFFFFFFFu)
      return fail(error, "not a COPC file: its LAZ chunks are not variable");
    return true;
  }

  /// The info VLR: a cube of finite positive size, a finite spacing, the root page in the file.
  /// A file without points may have an empty cube and an empty root page (as copclib writes it).
  bool check_copc(const io::Input& in, const io::LasHeader& h, std::string* error) {
    const bool empty = h.count == 0;
    size_t len = 0;
    const uint8_t* v = io::find_vlr(in, h, "copc", 1, len);
    if (!v) return fail(error, "not a COPC file: no COPC info VLR (user \"copc\", record 1)");
    if (len < 160)
      return fail(error, "the COPC info VLR holds " + std::to_string(len) + " bytes, not 160");
    CopcInfo& c = info.copc;
    io::parse_copc_info(v, c, root.offset, root.size);
    const bool finite = std::isfinite(c.center.x) && std::isfinite(c.center.y) &&
                        std::isfinite(c.center.z) && std::isfinite(c.spacing);
    if (!finite || !((c.halfsize > 0.0 || (empty && c.halfsize == 0.0)) && c.halfsize < INFINITY) ||
        c.spacing < 0.0)
      return fail(error, "the COPC info VLR's cube (half size " + std::to_string(c.halfsize) +
                             ") or spacing (" + std::to_string(c.spacing) + ") does not hold");
    if ((root.size == 0 && !empty) || root.size % io::kCopcEntryBytes)
      return fail(error,
                  "the root " + page_name(root) + " is not a whole number of 32-byte entries");
    if (root.offset < points_begin || root.offset > size || root.size > size - root.offset)
      return fail(error, "the root " + page_name(root) + " lies outside the file (" +
                             std::to_string(size) + " bytes)" +
                             // Past the end: the hierarchy comes last, so the file may be cut.
                             (root.offset >= points_begin
                                  ? "; a file cut short streams nothing, --stream off reads the "
                                    "points before the cut"
                                  : ""));
    return true;
  }

  /// Everything open() checks and keeps of the header and VLRs.
  bool parse_head(const std::vector<uint8_t>& head, std::string* error) {
    const io::Input in{head.data(), head.size(), name, nullptr, nullptr};
    io::LasHeader h;
    if (!io::parse_las_header(in, h, error)) return false;
    if (h.header_size < 375)
      return fail(error, "not a COPC file: a LAS header of " + std::to_string(h.header_size) +
                             " bytes (LAS 1.4's is 375)");
    if (h.format < 6 || h.format > 8)
      return fail(error, "not a COPC file: point format " + std::to_string(h.format) +
                             " (COPC's are 6, 7 and 8)");
    points_begin = uint64_t(h.offset) + 8;
    if (!check_laz(in, h, error) || !check_copc(in, h, error)) return false;
    header = h;
    recs = io::LasRecords(in, h);
    attrs = io::las_attributes(h.format);
    const size_t slash = name.find_last_of('/');
    cloud_name = slash == std::string::npos ? name : name.substr(slash + 1);
    info.file = name;
    info.format = "LAZ";
    info.version = io::laz_version(h, layout, 0, true);
    info.points = h.count;
    info.bounds = io::copc_bounds(io::las_header_bounds(head.data()), info.copc);
    info.origin = io::choose_origin(info.bounds);
    info.has_color = attrs.color;
    info.has_intensity = attrs.intensity;
    info.has_classification = attrs.classification;
    for (const io::LasExtraField& e : recs.extras)
      info.fields.push_back(FieldInfo{e.name, e.has_range, e.lo, e.hi, e.has_no_data, e.no_data});
    return true;
  }

  /// `out` sized for `n` points of this file's attributes and extra-bytes fields; `w` writes them.
  io::BlockWriter allocate(PointCloud& out, size_t n, const glm::dvec3& origin,
                           std::vector<float*>& extras) const {
    out.name = cloud_name;
    out.origin = origin;
    io::resize_points(out, attrs, n);
    for (const io::LasExtraField& e : recs.extras) {
      out.fields.push_back(ScalarField{e.name, {}});
      out.fields.back().values.resize(n);
    }
    for (ScalarField& f : out.fields) extras.push_back(f.values.data());
    return io::block_writer(out, attrs, 0, n, origin);
  }
};

CopcFile::CopcFile() : impl_(std::make_unique<Impl>()) {}
CopcFile::~CopcFile() = default;

std::unique_ptr<CopcFile> CopcFile::open(std::unique_ptr<ByteSource> source, std::string* error) {
  if (!source) {
    if (error) *error = "COPC: no byte source";
    return nullptr;
  }
  std::unique_ptr<CopcFile> f(new CopcFile());
  Impl& m = *f->impl_;
  m.name = source->name();
  m.size = source->size();
  m.src = std::move(source);
  std::vector<uint8_t> head;
  if (!m.read_head(head, error) || !m.parse_head(head, error)) return nullptr;
  return f;
}

const FileInfo& CopcFile::info() const {
  return impl_->info;
}

glm::dvec3 CopcFile::origin() const {
  return impl_->info.origin;
}

CopcPage CopcFile::root_page() const {
  return impl_->root;
}

ByteSource& CopcFile::source() const {
  return *impl_->src;
}

Bounds copc_node_bounds(const CopcInfo& c, const CopcKey& key) {
  const double cell = std::ldexp(2.0 * c.halfsize, -key.level);
  const glm::dvec3 lo = c.center - glm::dvec3(c.halfsize) +
                        glm::dvec3(double(key.x), double(key.y), double(key.z)) * cell;
  Bounds b;
  b.extend(lo);
  b.extend(lo + glm::dvec3(cell));
  return b;
}

Bounds CopcFile::node_bounds(const CopcKey& key) const {
  return copc_node_bounds(impl_->info.copc, key);
}

double CopcFile::node_spacing(int level) const {
  return std::ldexp(impl_->info.copc.spacing, -level);
}

bool CopcFile::read_page(const CopcPage& page, std::vector<CopcEntry>& entries,
                         std::vector<std::string>* warnings, std::string* error,
                         const std::atomic<bool>* cancel) const {
  const Impl& m = *impl_;
  entries.clear();
  if (page.offset > m.size || page.size > m.size - page.offset)
    return m.fail(
        error, page_name(page) + " lies outside the file (" + std::to_string(m.size) + " bytes)");
  if (page.size % io::kCopcEntryBytes)
    return m.fail(error, page_name(page) + " is not a whole number of 32-byte entries");
  if (page.size == 0) return true;
  std::vector<uint8_t> bytes;
  std::string err;
  if (!m.src->read(page.offset, page.size, bytes, &err, cancel) || bytes.size() != page.size)
    return m.fail(error, "reading the " + page_name(page) + ": " + without_name(err, m.name));
  std::vector<std::string> dropped;
  parse_copc_page(bytes.data(), bytes.size(), m.points_begin, m.size, entries,
                  warnings ? &dropped : nullptr, error);
  if (warnings)
    for (const std::string& w : dropped) warnings->push_back(m.name + ": " + w);
  return true;
}

bool CopcFile::read_node(const CopcEntry& node, const glm::dvec3& origin, PointCloud& out,
                         std::string* error, const std::atomic<bool>* cancel) const {
  const Impl& m = *impl_;
  out = PointCloud{};
  auto fail_node = [&](const std::string& why) {
    out = PointCloud{};
    return m.fail(error, "COPC node " + io::copc_key_name(node.key) + " (offset " +
                             std::to_string(node.offset) + ", " + std::to_string(node.byte_size) +
                             " bytes, " + std::to_string(node.point_count) + " points): " + why);
  };
  if (node.is_page()) return fail_node("a child page, not a node");
  if (const char* why = io::copc_entry_problem(node, m.points_begin, m.size)) return fail_node(why);
  std::vector<float*> extras;
  if (node.point_count == 0) {
    m.allocate(out, 0, origin, extras);
    return true;
  }
  std::vector<uint8_t> bytes;
  std::string err;
  if (!m.src->read(node.offset, uint64_t(node.byte_size), bytes, &err, cancel) ||
      bytes.size() != uint64_t(node.byte_size))
    return fail_node(without_name(err, m.name));
  io::laz::ChunkReader reader(m.layout, io::kLazNotKept);
  const uint64_t count = uint64_t(node.point_count);
  if (!reader.start(bytes.data(), bytes.size(), count, &err)) return fail_node(err);
  // A point-wise chunk has no count of its own to check: refuse a count no memory holds before
  // allocating it.
  const io::Input in{nullptr, 0, m.name, nullptr, nullptr};
  if (!io::fits_in_memory(in, count, 32 + 4 * m.recs.extras.size(), &err))
    return fail_node(without_name(err, m.name));
  io::BlockWriter w = m.allocate(out, size_t(count), origin, extras);
  uint32_t max_channel = 0;
  const bool ok = io::convert_chunk(reader, count, m.recs, false, w, extras.data(), max_channel,
                                    err, [&](uint64_t i, const uint8_t*) {
                                      if ((i & 0xFFFF) == 0 && cancel && cancel->load()) {
                                        err = "cancelled";
                                        return io::RecordUse::kStop;
                                      }
                                      return io::RecordUse::kKeep;
                                    });
  if (!ok) return fail_node(err);
  if (w.n != count) {
    // Points whose scaled coordinates overflow to infinity are dropped, as load_point_cloud drops
    // them.
    out.positions.resize(w.n);
    out.colors.resize(w.n);
    if (m.attrs.intensity) out.intensity.resize(w.n);
    if (m.attrs.classification) out.classification.resize(w.n);
    if (m.attrs.returns) out.returns.resize(w.n);
    if (m.attrs.point_source) out.point_source.resize(w.n);
    if (m.attrs.gps_time) out.gps_time.resize(w.n);
    for (ScalarField& f : out.fields) f.values.resize(w.n);
  }
  return true;
}

namespace {

/// The hierarchy's nodes counted by level into `c`: the root page, then (`all_pages`) every child
/// page it leads to. Pages never overlap, so the bytes of the pages visited stay within the
/// file's size: the bound that stops a cycle of pages.
bool count_levels(const CopcFile& file, bool all_pages, CopcInfo& c,
                  std::vector<std::string>& warnings, std::string* error) {
  std::vector<CopcPage> pages{file.root_page()};
  uint64_t visited = 0;
  std::vector<CopcEntry> entries;
  while (!pages.empty()) {
    const CopcPage page = pages.back();
    pages.pop_back();
    visited += page.size;
    if (visited > file.source().size()) {
      if (error) *error = file.source().name() + ": the COPC hierarchy's pages repeat";
      return false;
    }
    if (!file.read_page(page, entries, &warnings, error)) return false;
    for (const CopcEntry& e : entries) {
      if (e.is_page()) {
        if (all_pages)
          pages.push_back(CopcPage{e.offset, uint64_t(e.byte_size)});
        else
          c.unread_pages++;
        continue;
      }
      if (e.point_count == 0) continue;  // a node that only leads to its children: no chunk
      const size_t level = size_t(e.key.level);
      if (c.levels.size() <= level) c.levels.resize(level + 1);
      c.levels[level].nodes++;
      c.levels[level].points += uint64_t(e.point_count);
    }
  }
  return true;
}

}  // namespace

bool CopcFile::describe(const LoadOptions& options, bool all_pages, FileInfo& info,
                        std::string* error) const {
  const std::string& name = impl_->name;
  std::vector<std::string> warnings;
  CopcInfo levels;
  if (!count_levels(*this, all_pages, levels, warnings, error)) return false;
  info = impl_->info;
  info.file = name;
  info.warnings = std::move(warnings);
  info.copc.levels = std::move(levels.levels);
  info.copc.unread_pages = levels.unread_pages;
  if (!all_pages) return true;
  // Every node with points is a chunk of the file: the number the chunk table would give.
  uint64_t total = 0, chunks = 0;
  for (const CopcLevel& l : info.copc.levels) total += l.points, chunks += l.nodes;
  info.version = io::laz_version(impl_->header, impl_->layout, size_t(chunks), true);
  if (total != info.points)
    info.warnings.push_back(name + ": the COPC hierarchy holds " + std::to_string(total) +
                            " points, the header " + std::to_string(info.points));
  if (info.copc.levels.empty()) return true;
  const size_t depth = copc_depth(info.copc, options);
  uint64_t read = 0;
  for (size_t l = 0; l <= depth; ++l) {
    info.copc.levels[l].read = true;
    read += info.copc.levels[l].points;
  }
  if (depth + 1 < info.copc.levels.size()) info.points = read;
  return true;
}

}  // namespace pr
