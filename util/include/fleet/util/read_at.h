// Reading a known range of a file by offset, for readers that check a file before trusting it
// (a trace each worker shares, a saved routing plan).
#pragma once

#include <sys/types.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdint>

namespace fleet::util {

// pread until all `n` bytes are in, retrying interrupted calls. False at the end of the file or
// on an error (errno says which; 0 at the end of the file).
inline bool pread_exact(int fd, void* out, std::size_t n, uint64_t offset) noexcept {
  auto* p = static_cast<char*>(out);
  while (n > 0) {
    const ssize_t got = ::pread(fd, p, n, static_cast<off_t>(offset));
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) {
      if (got == 0) errno = 0;
      return false;
    }
    p += got;
    n -= static_cast<std::size_t>(got);
    offset += static_cast<uint64_t>(got);
  }
  return true;
}

}  // namespace fleet::util
