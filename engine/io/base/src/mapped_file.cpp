#include "engine/io/base/mapped_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace pr::io {

namespace {

/// A file descriptor closed when it goes out of scope (the mapping outlives it).
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

bool MappedFile::open(const std::string& path, std::string* error) {
  close();
  auto fail = [&](const std::string& what) {
    if (error) *error = path + ": " + what;
    return false;
  };
  auto sys_fail = [&](const char* what) {
    return fail(std::string(what) + ": " + std::strerror(errno));
  };
  Fd f;
  f.fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (f.fd < 0) return sys_fail("cannot open");
  struct stat st {};
  if (fstat(f.fd, &st) != 0) return sys_fail("cannot stat");
  if (S_ISDIR(st.st_mode)) return fail("is a directory, not a point-cloud file");
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  if (st.st_size == 0) return true;  // nothing to map: data() stays null, size() 0
  void* addr = mmap(nullptr, size_t(st.st_size), PROT_READ, MAP_PRIVATE, f.fd, 0);
  if (addr == MAP_FAILED) return sys_fail("cannot map");
  data_ = static_cast<const uint8_t*>(addr);
  size_ = size_t(st.st_size);
  return true;
}

void MappedFile::close() {
  if (data_) munmap(const_cast<uint8_t*>(data_), size_);
  data_ = nullptr;
  size_ = 0;
}

void MappedFile::will_need() const {
  if (data_) madvise(const_cast<uint8_t*>(data_), size_, MADV_WILLNEED);
}

void MappedFile::release(const uint8_t* p, size_t n) const {
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t a = (uintptr_t(p) + page - 1) / page * page, b = (uintptr_t(p) + n) / page * page;
  if (b > a) madvise(reinterpret_cast<void*>(a), b - a, MADV_DONTNEED);
}

}  // namespace pr::io
