#include "fleet/trace/trace_writer.h"

#include <errno.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <cstring>
#include <exception>

#include "fleet/trace/errors.h"
#include "fleet/util/big_endian.h"

namespace fleet::trace {

std::string frame_bytes(std::string_view body) {
  std::string out;
  out.reserve(body.size() + 4);
  char prefix[4];
  util::store_be32(prefix, static_cast<uint32_t>(body.size()));
  out.append(prefix, 4);
  out.append(body);
  return out;
}

TraceWriter::TraceWriter(const std::string& path, const Header& header)
    : path_(path), schema_(header.trace_schema_version) {
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0) throw TraceError(path + ": cannot create: " + std::strerror(errno));
  write_frame(encode_header(header));
}

TraceWriter::~TraceWriter() {
  // Destructors must not throw; callers that care call close() themselves. close() throws
  // TraceError (or std::bad_alloc while building one): say what was lost instead of hiding it,
  // as a warning when the exception that ended the writer's scope is already on its way.
  try {
    close();
  } catch (const std::exception& e) {
    auto level = std::uncaught_exceptions() > 0 ? spdlog::level::warn : spdlog::level::err;
    spdlog::log(level, "{} (closing the trace writer on scope exit; the file may be incomplete)",
                e.what());
  }
}

void TraceWriter::write_frame(std::string_view body) {
  if (fd_ < 0) throw TraceError(path_ + ": write after close");
  char prefix[4];
  util::store_be32(prefix, static_cast<uint32_t>(body.size()));
  pending_.append(prefix, 4);
  pending_.append(body);
  if (pending_.size() >= (1u << 20)) flush();
}

void TraceWriter::write_op(const Op& op, Era era) {
  write_frame(encode_record_body(op, era, schema_));
}

void TraceWriter::flush() {
  size_t off = 0;
  while (off < pending_.size()) {
    ssize_t n = ::write(fd_, pending_.data() + off, pending_.size() - off);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw TraceError(path_ + ": write failed: " + std::strerror(errno));
    }
    off += static_cast<size_t>(n);
  }
  bytes_ += pending_.size();
  pending_.clear();
}

void TraceWriter::close() {
  if (fd_ < 0) return;
  flush();
  int fd = fd_;
  fd_ = -1;
  if (::fsync(fd) != 0 && errno != EINVAL) {
    int e = errno;
    ::close(fd);
    throw TraceError(path_ + ": fsync failed: " + std::strerror(e));
  }
  if (::close(fd) != 0) throw TraceError(path_ + ": close failed: " + std::strerror(errno));
}

}  // namespace fleet::trace
