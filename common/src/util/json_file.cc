#include "fleet/util/json_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace fleet::util {

namespace {

[[noreturn]] void fail_read(const std::string& path, const char* what, int err) {
  throw std::runtime_error(path + ": cannot " + what + ": " + std::strerror(err));
}

}  // namespace

nlohmann::json parse_json_bounded(const std::string& text, const std::string& what) {
  // The parser recurses per level: refuse depth before it recurses too far.
  const nlohmann::json::parser_callback_t limit = [&](int depth, nlohmann::json::parse_event_t,
                                                      nlohmann::json&) {
    if (depth > kMaxJsonDepth) {
      throw std::runtime_error(what + ": JSON nested deeper than " + std::to_string(kMaxJsonDepth) +
                               " levels");
    }
    return true;
  };
  try {
    return nlohmann::json::parse(text, limit);
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(what + ": not valid JSON: " + e.what());
  }
}

nlohmann::json read_json_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail_read(path, "open", errno);
  struct FdCloser {
    int fd;
    ~FdCloser() { ::close(fd); }
  } closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) fail_read(path, "read", errno);
  if (!S_ISREG(st.st_mode)) throw std::runtime_error(path + ": cannot read: not a regular file");
  const auto size = static_cast<uint64_t>(st.st_size);
  if (size > kMaxJsonFileBytes) {
    throw std::runtime_error(path + ": " + std::to_string(size) + " bytes, more than the " +
                             std::to_string(kMaxJsonFileBytes) + " a JSON file may have here");
  }
  // One read into a string of the file's size (an ifstream into a stringstream copied it twice
  // and cost more than the parse on small files). A file that grows meanwhile is read to the
  // size it had; one that shrinks ends where it ends.
  std::string text(size, '\0');
  std::size_t got = 0;
  while (got < text.size()) {
    const ssize_t n = ::read(fd, text.data() + got, text.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_read(path, "read", errno);
    if (n == 0) break;
    got += static_cast<std::size_t>(n);
  }
  text.resize(got);
  return parse_json_bounded(text, path);
}

}  // namespace fleet::util
