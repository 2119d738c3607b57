// LoadOptions::max_points for every format but COPC: an even stride through the records (LAS and
// LAZ points, PLY vertices, PCD points, E57 records across the scans read, non-blank text lines).
// Scanners and writers store neighbouring points near each other in the file, so keeping record
// floor(k * n / keep) for k < keep leaves every part of the survey its share of points, at any
// budget, with no extra pass over the points.
#pragma once

#include <cstdint>

#include "engine/io/file_info.h"

namespace pr::io {

struct Stride {
  uint64_t n = 0;     ///< records in the file
  uint64_t keep = 0;  ///< records kept (n when every record is)

  /// Every record, or LoadOptions::max_points of them when that is fewer.
  static Stride of(uint64_t records, const LoadOptions& o) {
    return {records, o.max_points && o.max_points < records ? o.max_points : records};
  }
  bool all() const { return keep == n; }
  /// Kept records with index < i: ceil(i * keep / n).
  uint64_t before(uint64_t i) const {
    if (all()) return i;
    return uint64_t((U128(i) * keep + n - 1) / n);
  }
  /// The record kept k-th: floor(k * n / keep).
  uint64_t record(uint64_t k) const {
    if (all()) return k;
    return uint64_t(U128(k) * n / keep);
  }

 private:
  __extension__ using U128 = unsigned __int128;
};

}  // namespace pr::io
