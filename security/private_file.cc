#include "fleet/security/private_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "fleet/util/file_type.h"

namespace fleet::security {

namespace {

// Opened without following a FIFO's writer (O_NONBLOCK) and checked on the open descriptor, so
// what is checked is what is read.
Result<std::string> read_checked(const std::string& path, const std::string& what, size_t max_bytes,
                                 bool must_be_private) {
  const std::string where = what + " " + path;
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
  if (fd < 0) return Status::error(where + ": cannot open: " + std::strerror(errno));
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (fstat(fd, &st) != 0) return Status::error(where + ": cannot stat: " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) return Status::error(where + ": not a regular file");
  if (must_be_private && (st.st_mode & 077) != 0) {
    return Status::error(where + ": the file holds a secret but its mode is " +
                         util::mode_text(st.st_mode) +
                         " (group or others may access it); run: chmod 600 " + path);
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    return Status::error(where + ": " + std::to_string(st.st_size) + " bytes, more than the " +
                         std::to_string(max_bytes) + " such a file may hold");
  }
  std::string out(static_cast<size_t>(st.st_size), '\0');
  size_t got = 0;
  while (got < out.size()) {
    const ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Status::error(where + ": cannot read: " + std::strerror(errno));
    if (n == 0) break;
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  return out;
}

}  // namespace

Result<std::string> read_private_file(const std::string& path, const std::string& what,
                                      size_t max_bytes) {
  return read_checked(path, what, max_bytes, /*must_be_private=*/true);
}

Result<std::string> read_small_file(const std::string& path, const std::string& what,
                                    size_t max_bytes) {
  return read_checked(path, what, max_bytes, /*must_be_private=*/false);
}

}  // namespace fleet::security
