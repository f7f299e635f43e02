// What a path names when it is not a regular file, and a file's mode, for the messages that
// refuse it.
#pragma once

#include <sys/stat.h>

#include <cstdio>
#include <string>

namespace fleet::util {

inline const char* file_type_name(mode_t mode) {
  if (S_ISREG(mode)) return "regular file";
  if (S_ISFIFO(mode)) return "FIFO";
  if (S_ISCHR(mode)) return "character device";
  if (S_ISBLK(mode)) return "block device";
  if (S_ISDIR(mode)) return "directory";
  if (S_ISSOCK(mode)) return "socket";
  return "not a file";
}

// The permission bits as `chmod` takes them: "0644".
inline std::string mode_text(mode_t mode) {
  char buf[8];
  std::snprintf(buf, sizeof buf, "%04o", static_cast<unsigned>(mode & 07777));
  return buf;
}

}  // namespace fleet::util
