// What a path names when it is not a regular file, for the message that refuses it.
#pragma once

#include <sys/stat.h>

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

}  // namespace fleet::util
