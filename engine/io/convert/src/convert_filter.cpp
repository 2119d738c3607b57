// The records a clip keeps (ConvertOptions::keep): a source over another that drops, block by
// block, the records whose world position the predicate refuses.
#include <cstring>
#include <functional>
#include <utility>

#include "convert_records.h"

namespace pr::io {

namespace {

class FilteredRecordSource final : public RecordSource {
 public:
  FilteredRecordSource(RecordSource& source, std::function<bool(const glm::dvec3&)> keep)
      : source_(source), keep_(std::move(keep)) {}

  const RecordSpec& spec() const override { return source_.spec(); }

  /// The next block of the source with the refused records taken out (moved down in place); on
  /// to the next block when none is left. Safe from several threads as the source is: it keeps
  /// no state of its own.
  bool next(std::vector<uint8_t>& out) override {
    const RecordSpec& s = source_.spec();
    const size_t rec = s.record_length;
    while (source_.next(out)) {
      const size_t n = out.size() / rec;
      size_t kept = 0;
      for (size_t k = 0; k < n; ++k) {
        const uint8_t* r = out.data() + k * rec;
        int32_t xyz[3];
        std::memcpy(xyz, r, 12);
        glm::dvec3 w;
        for (int a = 0; a < 3; ++a) w[a] = double(xyz[a]) * s.scale[a] + s.offset[a];
        if (!keep_(w)) continue;
        if (kept != k) std::memmove(out.data() + kept * rec, r, rec);
        ++kept;
      }
      out.resize(kept * rec);
      if (kept > 0) return true;
    }
    return false;
  }

  std::string error() const override { return source_.error(); }

 private:
  RecordSource& source_;
  std::function<bool(const glm::dvec3&)> keep_;
};

}  // namespace

std::unique_ptr<RecordSource> filtered_record_source(RecordSource& source,
                                                     std::function<bool(const glm::dvec3&)> keep) {
  return std::make_unique<FilteredRecordSource>(source, std::move(keep));
}

}  // namespace pr::io
