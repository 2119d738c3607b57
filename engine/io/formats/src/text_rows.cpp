#include "text_rows.h"

namespace pr::io {

std::vector<std::pair<size_t, size_t>> split_lines(const char* base, size_t b, size_t e,
                                                   size_t parts) {
  std::vector<std::pair<size_t, size_t>> r;
  if (b >= e) return r;
  parts = std::max<size_t>(1, std::min(parts, (e - b) / 4096 + 1));
  const size_t step = (e - b) / parts;
  size_t s = b;
  for (size_t k = 1; k <= parts && s < e; ++k) {
    size_t t = k == parts ? e : std::max(s, b + k * step);
    if (t < e) {
      const void* nl = std::memchr(base + t, '\n', e - t);
      t = nl ? size_t(static_cast<const char*>(nl) - base) + 1 : e;
    }
    if (t > s) r.emplace_back(s, t);
    s = t;
  }
  return r;
}

size_t count_lines(const char* p, const char* e) {
  size_t n = 0;
  while (p < e) {
    const void* nl = std::memchr(p, '\n', size_t(e - p));
    ++n;
    if (!nl) break;
    p = static_cast<const char*>(nl) + 1;
  }
  return n;
}

size_t count_records(const char* p, const char* e) {
  size_t n = 0;
  while (p < e) {
    const char* nl = static_cast<const char*>(std::memchr(p, '\n', size_t(e - p)));
    const char* le = nl ? nl : e;
    n += !is_blank(p, le);
    p = nl ? nl + 1 : e;
  }
  return n;
}

std::vector<std::string> tokens(const std::string& line) {
  std::vector<std::string> tok;
  for (size_t i = 0; i < line.size();) {
    while (i < line.size() && is_space(line[i])) ++i;
    size_t j = i;
    while (j < line.size() && !is_space(line[j])) ++j;
    if (j > i) tok.push_back(line.substr(i, j - i));
    i = j;
  }
  return tok;
}

}  // namespace pr::io
