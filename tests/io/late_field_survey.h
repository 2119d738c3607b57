// A survey of two COPC tiles written by copclib (make_copc.py) where only the second has an
// extra-bytes field (FIELD_0), as a .vpc that declares the second tile's box (so that streaming
// opens it only once in view); a point's field value compared bit for bit (NaN as itself).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <tuple>
#include <vector>

#include <unistd.h>

#include "engine/point_cloud.h"
#include "run_command.h"

namespace pr::test {

/// Writes `dir`/a.copc.laz (no extra bytes), `dir`/b.copc.laz (FIELD_0) and `dir`/survey.vpc with
/// `python` (copclib's). False with make_copc.py's output in `out`.
inline bool late_field_survey(const std::string& python, const std::filesystem::path& dir,
                              std::string* out) {
  std::filesystem::create_directories(dir);
  const std::string script =
      (std::filesystem::path(__FILE__).parent_path() / "make_copc.py").string();
  if (!run_command(
          python + " " + script + " " + (dir / "a.copc.laz").string() + " --seed 5 --depth 2",
          *out) ||
      !run_command(python + " " + script + " " + (dir / "b.copc.laz").string() +
                       " --seed 6 --depth 2 --extra-bytes",
                   *out))
    return false;
  // make_copc.py's box: its ORIGIN and SPAN (both tiles cover it).
  std::ofstream(dir / "survey.vpc")
      << R"({"type": "FeatureCollection", "features": [)"
      << R"({"type": "Feature", "id": "a", "assets": {"data": {"href": "a.copc.laz"}}},)"
      << R"({"type": "Feature", "id": "b", "assets": {"data": {"href": "b.copc.laz"}},)"
      << R"( "properties": {"proj:bbox": [636000, 849000, 400, 636512, 849512, 912]}}]})";
  return true;
}

/// In a test body: skips without a Python with copclib (PR_TEST_PYTHON), else declares `dir`, a
/// fresh folder named `name` and the process id under the temporary folder, and writes the survey
/// of late_field_survey() there.
#define PR_LATE_FIELD_SURVEY(dir, name)                                                        \
  const std::string pr_python_ = PR_TEST_PYTHON;                                               \
  if (pr_python_.empty())                                                                      \
    GTEST_SKIP() << "no Python with copclib (configure with -DPR_TEST_PYTHON=...)";            \
  const std::filesystem::path dir =                                                            \
      std::filesystem::temp_directory_path() / (std::string(name) + std::to_string(getpid())); \
  {                                                                                            \
    std::string pr_out_;                                                                       \
    ASSERT_TRUE(pr::test::late_field_survey(pr_python_, dir, &pr_out_)) << pr_out_;            \
  }

/// A point's position and the bits of one field's value (NaN compares as itself), sorted.
using FieldPoint = std::tuple<float, float, float, uint32_t>;
inline std::vector<FieldPoint> field_points(const PointCloud& c, const std::string& field,
                                            float missing) {
  const ScalarField* f = c.field(field);
  std::vector<FieldPoint> out;
  for (size_t i = 0; i < c.size(); ++i) {
    const Float3 p = c.positions[i];
    if (std::isnan(p.x)) continue;
    const float v = f ? f->values[i] : missing;
    uint32_t bits = 0;
    std::memcpy(&bits, &v, 4);
    out.emplace_back(p.x, p.y, p.z, bits);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Declares `value` as "no data" (options bit 0, bytes 40 - 47 as the uint8 field's uint64) in the
/// extra-bytes VLR of the COPC file at `path` (its VLRs are uncompressed, after the header).
inline bool declare_no_data(const std::filesystem::path& path, uint8_t value) {
  std::fstream f(path, std::ios::binary | std::ios::in | std::ios::out);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  auto u16 = [&](size_t at) { return size_t(b[at] | (b[at + 1] << 8)); };
  size_t vlr = u16(94);
  for (int k = 0; k < 8 && vlr + 54 + 192 <= b.size(); ++k) {
    if (std::memcmp(&b[vlr + 2], "LASF_Spec", 9) == 0 && u16(vlr + 18) == 4) {
      const size_t d = vlr + 54;
      b[d + 3] = uint8_t(b[d + 3] | 0x01);
      std::memset(&b[d + 40], 0, 24);
      b[d + 40] = value;
      f.seekp(0);
      f.write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
      return bool(f);
    }
    vlr += 54 + u16(vlr + 20);
  }
  return false;
}

}  // namespace pr::test
