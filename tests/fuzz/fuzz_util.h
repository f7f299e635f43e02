// Helpers shared by the fuzz targets: inputs that production reads from a path (a trace, a hosts
// file) are written to one memfd per process and opened through /proc/self/fd, so an iteration
// costs no disk I/O.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

namespace fleet::fuzz {

// The path of a file holding exactly `data`; valid until the next call.
inline const std::string& input_file(const uint8_t* data, size_t size) {
  static const int fd = [] {
    int f = memfd_create("fleet-fuzz-input", MFD_CLOEXEC);
    if (f < 0) std::abort();
    return f;
  }();
  static const std::string path = "/proc/self/fd/" + std::to_string(fd);
  if (ftruncate(fd, 0) != 0) std::abort();
  size_t done = 0;
  while (done < size) {
    ssize_t n = pwrite(fd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) std::abort();
    done += static_cast<size_t>(n);
  }
  return path;
}

}  // namespace fleet::fuzz
