#include "fleet/util/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <vector>

namespace fleet::util {

namespace {

Status failure(const std::string& path, const char* what, int err) {
  return Status::error("cannot " + std::string(what) + " " + path + ": " + std::strerror(err));
}

Status write_all(int fd, const std::string& path, const std::vector<std::string_view>& pieces) {
  std::vector<iovec> iov;
  iov.reserve(pieces.size());
  for (std::string_view p : pieces) {
    if (!p.empty()) iov.push_back({const_cast<char*>(p.data()), p.size()});
  }
  size_t first = 0;
  while (first < iov.size()) {
    const int count = static_cast<int>(std::min<size_t>(iov.size() - first, IOV_MAX));
    ssize_t n = ::writev(fd, iov.data() + first, count);
    if (n < 0) {
      if (errno == EINTR) continue;
      return failure(path, "write", errno);
    }
    // Skip what was written; a short write resumes inside the current piece.
    auto done = static_cast<size_t>(n);
    while (first < iov.size() && done >= iov[first].iov_len) done -= iov[first++].iov_len;
    if (first < iov.size()) {
      iov[first].iov_base = static_cast<char*>(iov[first].iov_base) + done;
      iov[first].iov_len -= done;
    }
  }
  return Status();
}

Status write_to(const std::string& path, const std::vector<std::string_view>& pieces) {
  unlink_for_rewrite(path);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) return failure(path, "create", errno);
  Status written = write_all(fd, path, pieces);
  const int err = ::close(fd) != 0 ? errno : 0;  // closed whether or not the write failed
  if (!written) return written;
  if (err != 0) return failure(path, "write", err);
  return Status();
}

}  // namespace

void unlink_for_rewrite(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) {
    ::unlink(path.c_str());  // failing that, open's O_TRUNC still gives an empty file
  }
}

Status write_whole_file(const std::string& path, const std::vector<std::string_view>& pieces) {
  return write_to(path, pieces);
}

Status write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces) {
  const std::string tmp = path + ".tmp";
  if (Status s = write_to(tmp, pieces); !s) return s;
  // Renaming over the old page would make ext4 flush the new one: the old goes first, so a
  // reader sees the old page, then no page for a moment, then the whole new one.
  unlink_for_rewrite(path);
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    return failure(path, "write", err);
  }
  return Status();
}

std::FILE* open_for_rewrite(const std::string& path) {
  unlink_for_rewrite(path);
  return std::fopen(path.c_str(), "wb");
}

}  // namespace fleet::util
