// The EPT datasets of the test data (tests/data/ept, PDAL's) and the ones the tests make from
// them: the binary dataset (ellipsoid-zstandard's node decompressed, dataType binary) and copies
// to break; a dataset on disk opened. Tests that include this link libzstd (pr::zstd).
#pragma once

#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "engine/io/ept.h"
#include "testdata.h"

namespace pr::test {

inline std::string ept_path(const std::string& dataset) {
  return data_path("ept") + "/" + dataset;
}

/// The EPT dataset of `input` on disk (its folder or its ept.json); null with the one-line reason
/// in `error`.
inline std::unique_ptr<EptDataset> open_local_ept(const std::string& input, std::string* error) {
  return EptDataset::open(ept_json_of(input), read_local_file, error);
}

inline std::vector<char> read_bytes(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(f), {});
}

inline std::string read_text(const std::filesystem::path& p) {
  const std::vector<char> b = read_bytes(p);
  return std::string(b.begin(), b.end());
}

inline void write_bytes(const std::filesystem::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary | std::ios::trunc).write(bytes.data(), long(bytes.size()));
}

/// A copy of dataset `name` (its ept.json, hierarchy and data) in `to`.
inline void copy_ept(const std::string& name, const std::filesystem::path& to) {
  std::filesystem::remove_all(to);
  std::filesystem::create_directories(to.parent_path());
  std::filesystem::copy(ept_path(name), to, std::filesystem::copy_options::recursive);
}

/// ellipsoid-zstandard as dataType binary in `to`: its one node decompressed (PDAL's
/// ellipsoid-binary without the file its snapshot lacks). False when the node does not
/// decompress.
inline bool make_binary_ept(const std::filesystem::path& to) {
  copy_ept("ellipsoid-zstandard", to);
  std::string json = read_text(to / "ept.json");
  const std::string from = "\"dataType\": \"zstandard\"";
  const size_t at = json.find(from);
  if (at == std::string::npos) return false;
  json.replace(at, from.size(), "\"dataType\": \"binary\"");
  write_bytes(to / "ept.json", json);
  const std::vector<char> z = read_bytes(to / "ept-data" / "0-0-0-0.zst");
  // The frame does not name its size (PDAL writes it as a stream): decompressed as a stream.
  std::string raw;
  ZSTD_DCtx* ctx = ZSTD_createDCtx();
  ZSTD_inBuffer in{z.data(), z.size(), 0};
  std::vector<char> buf(1 << 20);
  size_t r = 1;
  while (r != 0) {
    ZSTD_outBuffer out{buf.data(), buf.size(), 0};
    r = ZSTD_decompressStream(ctx, &out, &in);
    if (ZSTD_isError(r) || (out.pos == 0 && in.pos == in.size && r != 0)) {
      ZSTD_freeDCtx(ctx);
      return false;
    }
    raw.append(buf.data(), out.pos);
  }
  ZSTD_freeDCtx(ctx);
  write_bytes(to / "ept-data" / "0-0-0-0.bin", raw);
  std::filesystem::remove(to / "ept-data" / "0-0-0-0.zst");
  return true;
}

}  // namespace pr::test
