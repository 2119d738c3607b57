// The file assembly of a conversion (convert_write.cpp: LAS, LAZ and the entry points;
// convert_write_copc.cpp: COPC): the output written under a temporary name, LAS 1.4 headers and
// VLRs, what the header counts of the records, the LAZ chunk table.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "convert_records.h"

namespace pr::io {

/// What a LAS 1.4 header says of the records written: their integer bounds, the points by return
/// number, the GPS time range.
struct RecordStats {
  uint64_t points = 0;
  int32_t lo[3] = {INT32_MAX, INT32_MAX, INT32_MAX}, hi[3] = {INT32_MIN, INT32_MIN, INT32_MIN};
  uint64_t by_return[15] = {};
  double gps_min = INFINITY, gps_max = -INFINITY;

  /// Counts `count` records of `record_length` bytes (point formats 6-8).
  void add(const uint8_t* records, uint64_t count, size_t record_length);
  void merge(const RecordStats& o);
};

/// A file written at offsets under a temporary name next to its final one: commit() renames it
/// into place; destroyed uncommitted, it is removed.
class OutFile {
 public:
  explicit OutFile(std::string path) : path_(std::move(path)) {}
  ~OutFile();
  OutFile(const OutFile&) = delete;
  OutFile& operator=(const OutFile&) = delete;

  bool open(std::string* error);
  /// Thread-safe: writes at `offset`. False with a one-line message (disk full ...).
  bool write(uint64_t offset, const void* data, size_t size, std::string* error);
  /// Closes and renames the file into place.
  bool commit(std::string* error);
  const std::string& path() const { return path_; }

 private:
  std::string path_, temp_;
  int fd_ = -1;
};

/// A VLR (54-byte header and payload) appended to `out`.
void append_vlr(std::vector<uint8_t>& out, const char* user, uint16_t record,
                const std::vector<uint8_t>& payload, const char* description);
/// An extended VLR (60-byte header and payload) appended to `out`.
void append_evlr(std::vector<uint8_t>& out, const char* user, uint16_t record,
                 const std::vector<uint8_t>& payload, const char* description);

/// The VLRs every output carries after its own (LASzip, COPC info): the WKT (LASF_Projection
/// 2112, when it fits in a VLR) and the extra bytes' description (LASF_Spec 4). `count` gets how
/// many VLRs were appended.
void append_spec_vlrs(std::vector<uint8_t>& out, const RecordSpec& spec, uint32_t& count);
/// The WKT as an EVLR when it is too long for a VLR (65535 bytes); false when none is needed.
bool append_wkt_evlr(std::vector<uint8_t>& out, const RecordSpec& spec);

/// Where the header's offsets point.
struct HeaderLayout {
  uint32_t point_offset = 375;
  uint32_t vlrs = 0;
  uint64_t evlr_start = 0;
  uint32_t evlrs = 0;
  bool compressed = false;
  /// The bounds the header states when not the records' own (COPC: those of its cube).
  const Bounds* bounds = nullptr;
};

/// A LAS 1.4 header (375 bytes) for records of `spec` counted by `stats`.
std::vector<uint8_t> las_header(const RecordSpec& spec, const RecordStats& stats,
                                const HeaderLayout& layout);

/// The LAZ chunk table: version 0, the chunk count, then per chunk its point count (variable
/// chunks only) and byte size, arithmetic-coded as LASzip writes and laz.cpp reads them.
std::vector<uint8_t> laz_chunk_table(const std::vector<uint64_t>& points,
                                     const std::vector<uint64_t>& bytes, bool variable);

/// Writes the COPC file of `source` into `out`: the nodes that build_copc_nodes() hands over,
/// each one LAZ chunk, then the chunk table, the hierarchy EVLR, the header and VLRs.
bool write_copc(RecordSource& source, OutFile& out, const BuildOptions& build,
                ConvertResult& result, std::string* error);

}  // namespace pr::io
