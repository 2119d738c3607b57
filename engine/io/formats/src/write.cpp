// Writers for PLY, LAS, PCD and XYZ: used by the tests (files in every variant the readers
// accept), the IO benchmark (large generated files) and for exporting.
#include <charconv>
#include <cstdio>
#include <cstring>
#include <memory>

#include "engine/io/base/io_common.h"
#include "engine/io/write.h"

namespace pr {

namespace {

using io::put_le;

struct File {
  std::FILE* f = nullptr;
  std::vector<char> buf;
  ~File() {
    if (f) std::fclose(f);
  }
};

bool open_out(File& o, const std::string& path, std::string* error) {
  o.f = std::fopen(path.c_str(), "wb");
  if (!o.f) {
    if (error) *error = path + ": cannot create: " + std::strerror(errno);
    return false;
  }
  o.buf.resize(1 << 20);
  std::setvbuf(o.f, o.buf.data(), _IOFBF, o.buf.size());
  return true;
}

bool close_out(File& o, const std::string& path, std::string* error) {
  const bool ok = !std::ferror(o.f) && std::fclose(o.f) == 0;
  o.f = nullptr;
  if (!ok && error) *error = path + ": write failed: " + std::strerror(errno);
  return ok;
}

template <class T>
void put(std::vector<uint8_t>& b, T v, bool swap = false) {
  uint8_t t[sizeof(T)];
  std::memcpy(t, &v, sizeof(T));
  if (swap) std::reverse(t, t + sizeof(T));
  b.insert(b.end(), t, t + sizeof(T));
}

glm::dvec3 world(const PointCloud& c, size_t i) {
  const Float3 p = c.positions[i];
  return c.origin + glm::dvec3(p.x, p.y, p.z);
}

uint8_t ch(uint32_t c, int k) {
  return uint8_t(c >> (8 * k));
}

}  // namespace

bool save_ply(const std::string& path, const PointCloud& c, PlyEncoding enc, std::string* error) {
  File o;
  if (!open_out(o, path, error)) return false;
  const bool dbl = c.origin != glm::dvec3(0.0);
  const char* t = dbl ? "double" : "float";
  static const char* kEnc[] = {"ascii", "binary_little_endian", "binary_big_endian"};
  std::fprintf(o.f,
               "ply\nformat %s 1.0\ncomment written by pointraster\nelement vertex %zu\n"
               "property %s x\nproperty %s y\nproperty %s z\nproperty uchar red\n"
               "property uchar green\nproperty uchar blue\n",
               kEnc[int(enc)], c.size(), t, t, t);
  if (c.has_intensity()) std::fprintf(o.f, "property float intensity\n");
  std::fprintf(o.f, "end_header\n");
  const bool swap = enc == PlyEncoding::kBinaryBigEndian;
  std::vector<uint8_t> b;
  for (size_t i0 = 0; i0 < c.size(); i0 += 1 << 16) {
    const size_t i1 = std::min(c.size(), i0 + (size_t(1) << 16));
    b.clear();
    for (size_t i = i0; i < i1; ++i) {
      const glm::dvec3 w = world(c, i);
      const uint32_t col = c.colors[i];
      if (enc == PlyEncoding::kAscii) {
        char line[160];
        const int n =
            c.has_intensity()
                ? std::snprintf(line, sizeof line, "%.17g %.17g %.17g %d %d %d %.9g\n", w.x, w.y,
                                w.z, ch(col, 0), ch(col, 1), ch(col, 2), double(c.intensity[i]))
                : std::snprintf(line, sizeof line, "%.17g %.17g %.17g %d %d %d\n", w.x, w.y, w.z,
                                ch(col, 0), ch(col, 1), ch(col, 2));
        b.insert(b.end(), line, line + n);
        continue;
      }
      if (dbl) {
        put(b, w.x, swap), put(b, w.y, swap), put(b, w.z, swap);
      } else {
        put(b, c.positions[i].x, swap), put(b, c.positions[i].y, swap),
            put(b, c.positions[i].z, swap);
      }
      b.push_back(ch(col, 0)), b.push_back(ch(col, 1)), b.push_back(ch(col, 2));
      if (c.has_intensity()) put(b, c.intensity[i], swap);
    }
    std::fwrite(b.data(), 1, b.size(), o.f);
  }
  return close_out(o, path, error);
}

bool save_las(const std::string& path, const PointCloud& c, int fmt, std::string* error,
              int extra_bytes) {
  static const uint16_t kSize[11] = {20, 28, 26, 34, 57, 63, 30, 36, 38, 59, 67};
  static const uint16_t kRgb[11] = {0, 0, 20, 28, 0, 28, 0, 30, 30, 0, 30};
  if (fmt < 0 || fmt > 10 || extra_bytes < 0 || extra_bytes > 1000) {
    if (error) *error = path + ": bad LAS point format or extra bytes";
    return false;
  }
  File o;
  if (!open_out(o, path, error)) return false;
  const bool v14 = fmt >= 6;
  const uint16_t header = v14 ? 375 : 227;
  const uint16_t rec = uint16_t(kSize[fmt] + extra_bytes);
  const Bounds wb = c.world_bounds();
  const glm::dvec3 off = glm::round(c.origin);
  const double scale = 0.001;
  std::vector<uint8_t> h(header, 0);
  std::memcpy(h.data(), "LASF", 4);
  h[24] = 1, h[25] = v14 ? 4 : 2;
  std::memcpy(h.data() + 26, "pointraster", 11);
  std::memcpy(h.data() + 58, "pointraster", 11);
  put_le<uint16_t>(&h[94], header);
  put_le<uint32_t>(&h[96], header);
  put_le<uint32_t>(&h[100], 0);
  h[104] = uint8_t(fmt);
  put_le<uint16_t>(&h[105], rec);
  const uint64_t n = c.size();
  put_le<uint32_t>(&h[107], v14 || n > 0xFFFFFFFFu ? 0u : uint32_t(n));
  for (int k = 0; k < 3; ++k) {
    put_le<double>(&h[131 + 8 * k], scale);
    put_le<double>(&h[155 + 8 * k], off[k]);
    put_le<double>(&h[179 + 16 * k], wb.empty ? 0.0 : wb.max[k]);
    put_le<double>(&h[187 + 16 * k], wb.empty ? 0.0 : wb.min[k]);
  }
  if (v14) put_le<uint64_t>(&h[247], n);
  std::fwrite(h.data(), 1, h.size(), o.f);
  std::vector<uint8_t> b;
  for (size_t i0 = 0; i0 < c.size(); i0 += 1 << 16) {
    const size_t i1 = std::min(c.size(), i0 + (size_t(1) << 16));
    b.assign((i1 - i0) * rec, 0);
    for (size_t i = i0; i < i1; ++i) {
      uint8_t* r = &b[(i - i0) * rec];
      const Float3 p = c.positions[i];
      // Positions relative to the rounded origin keep full precision in the integer grid.
      const glm::dvec3 d = (c.origin - off) + glm::dvec3(p.x, p.y, p.z);
      for (int k = 0; k < 3; ++k) put_le<int32_t>(r + 4 * k, int32_t(std::llround(d[k] / scale)));
      const float it = c.has_intensity() ? c.intensity[i] : 0.0f;
      put_le<uint16_t>(r + 12, uint16_t(std::clamp(it, 0.0f, 65535.0f)));
      const uint8_t cls = c.classification.empty() ? 0 : c.classification[i];
      if (fmt >= 6) {
        r[14] = 0x11;  // return 1 of 1
        r[16] = cls;
      } else {
        r[14] = 0x09;  // return 1 of 1
        r[15] = uint8_t(cls & 0x1F);
      }
      if (kRgb[fmt]) {
        const uint32_t col = c.colors[i];
        for (int k = 0; k < 3; ++k)
          put_le<uint16_t>(r + kRgb[fmt] + 2 * k, uint16_t(ch(col, k) * 257));
      }
    }
    std::fwrite(b.data(), 1, b.size(), o.f);
  }
  return close_out(o, path, error);
}

bool save_pcd(const std::string& path, const PointCloud& c, bool binary, std::string* error) {
  File o;
  if (!open_out(o, path, error)) return false;
  const bool dbl = c.origin != glm::dvec3(0.0);
  std::fprintf(o.f,
               "# .PCD v0.7 - Point Cloud Data file format\nVERSION 0.7\nFIELDS x y z rgb\n"
               "SIZE %d %d %d 4\nTYPE F F F U\nCOUNT 1 1 1 1\nWIDTH %zu\nHEIGHT 1\n"
               "VIEWPOINT 0 0 0 1 0 0 0\nPOINTS %zu\nDATA %s\n",
               dbl ? 8 : 4, dbl ? 8 : 4, dbl ? 8 : 4, c.size(), c.size(),
               binary ? "binary" : "ascii");
  std::vector<uint8_t> b;
  for (size_t i = 0; i < c.size(); ++i) {
    const glm::dvec3 w = world(c, i);
    const uint32_t col = c.colors[i];
    const uint32_t packed = (uint32_t(ch(col, 0)) << 16) | (uint32_t(ch(col, 1)) << 8) | ch(col, 2);
    if (!binary) {
      std::fprintf(o.f, "%.17g %.17g %.17g %u\n", w.x, w.y, w.z, packed);
      continue;
    }
    b.clear();
    if (dbl)
      put(b, w.x), put(b, w.y), put(b, w.z);
    else
      put(b, c.positions[i].x), put(b, c.positions[i].y), put(b, c.positions[i].z);
    put(b, packed);
    std::fwrite(b.data(), 1, b.size(), o.f);
  }
  return close_out(o, path, error);
}

bool save_xyz(const std::string& path, const PointCloud& c, char sep, std::string* error) {
  File o;
  if (!open_out(o, path, error)) return false;
  std::string s;
  for (size_t i0 = 0; i0 < c.size(); i0 += 1 << 16) {
    const size_t i1 = std::min(c.size(), i0 + (size_t(1) << 16));
    s.clear();
    for (size_t i = i0; i < i1; ++i) {
      const glm::dvec3 w = world(c, i);
      char line[1024];  // fixed notation of a double is at most 309 digits + 4
      size_t n = 0;
      for (int k = 0; k < 3; ++k) {
        n = size_t(std::to_chars(line + n, line + 1000, w[k], std::chars_format::fixed, 3).ptr -
                   line);
        line[n++] = sep;
      }
      for (int k = 0; k < 3; ++k) {
        n = size_t(std::to_chars(line + n, line + 1000, int(ch(c.colors[i], k))).ptr - line);
        line[n++] = k == 2 ? '\n' : sep;
      }
      s.append(line, n);
    }
    std::fwrite(s.data(), 1, s.size(), o.f);
  }
  return close_out(o, path, error);
}

}  // namespace pr
