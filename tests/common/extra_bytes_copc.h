// A COPC file with extra bytes for the streaming tests: tests/data/las/extrabytes.las (its scalar
// extra bytes "Intensity" and "Time" become named fields) converted to COPC, optionally with
// the "Time" descriptor declaring a range (its min and max bits set) that the points do not
// span, so that a test can tell the declared range from the points' own.
#pragma once

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "engine/io/convert.h"
#include "testdata.h"

namespace pr::test {

/// The range extra_bytes_copc() declares for "Time" (the points hold 245370 .. 249783).
inline constexpr uint64_t kDeclaredTimeLo = 240000, kDeclaredTimeHi = 260000;

/// Writes `dir`/extra.copc.laz (or extra-range.copc.laz with `declare_time_range`); false with
/// `error`.
inline bool extra_bytes_copc(const std::filesystem::path& dir, bool declare_time_range,
                             std::string* out, std::string* error) {
  const std::string las = data_path("las") + "/extrabytes.las";
  std::string input = las;
  if (declare_time_range) {
    std::ifstream in(las, std::ios::binary);
    std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    auto u16 = [&](size_t at) { return uint16_t(b[at] | (b[at + 1] << 8)); };
    size_t vlr = u16(94);  // the header's size: the first VLR follows it
    bool patched = false;
    for (int k = 0; k < 8 && vlr + 54 <= b.size() && !patched; ++k) {
      const size_t length = u16(vlr + 20);
      if (std::memcmp(&b[vlr + 2], "LASF_Spec", 9) == 0 && u16(vlr + 18) == 4) {
        for (size_t d = vlr + 54; d + 192 <= vlr + 54 + length; d += 192)
          if (std::memcmp(&b[d + 4], "Time", 5) == 0) {
            b[d + 3] = uint8_t(b[d + 3] | 0x06);  // min and max given
            std::memcpy(&b[d + 64], &kDeclaredTimeLo, 8);
            std::memcpy(&b[d + 88], &kDeclaredTimeHi, 8);
            patched = true;
          }
      }
      vlr += 54 + length;
    }
    if (!patched) {
      *error = "extrabytes.las: no \"Time\" extra-bytes descriptor";
      return false;
    }
    input = (dir / "extra-range.las").string();
    std::ofstream(input, std::ios::binary)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
  }
  *out = (dir / (declare_time_range ? "extra-range.copc.laz" : "extra.copc.laz")).string();
  return convert_point_clouds({input}, *out, {}, nullptr, nullptr, error);
}

}  // namespace pr::test
