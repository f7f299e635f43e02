#include "fleet/trace/shared_trace.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <utility>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/util/big_endian.h"
#include "fleet/util/file_type.h"
#include "fleet/util/read_at.h"

namespace fleet::trace {

namespace {

constexpr uint64_t kFingerprintSpan = 64u << 10;

std::string errno_text() { return std::strerror(errno); }

// Opened without waiting for a FIFO's writer (O_NONBLOCK) and never as a controlling terminal
// (O_NOCTTY): a path from the coordinator can name anything, and the open must return so the
// fstat can refuse what is not a regular file before anything is read.
class Fd {
 public:
  explicit Fd(const std::string& path)
      : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)) {
    if (fd_ < 0) throw TraceError(path + ": cannot open: " + errno_text());
  }
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  // Hands the descriptor over (this no longer closes it).
  int release() { return std::exchange(fd_, -1); }

 private:
  int fd_;
};

uint64_t regular_file_size(int fd, const std::string& path) {
  struct stat st {};
  if (fstat(fd, &st) != 0) throw TraceError(path + ": cannot stat: " + errno_text());
  if (!S_ISREG(st.st_mode))
    throw TraceError(path + ": not a regular file (" + util::file_type_name(st.st_mode) + ")");
  // A regular file: back to blocking reads (O_NONBLOCK only guarded the open).
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  return static_cast<uint64_t>(st.st_size);
}

// FNV-1a 64 over the size, the first and the last kFingerprintSpan bytes (overlapping for
// small files, which is fine: both sides hash the same way).
std::string fingerprint(uint64_t size, const uint8_t* head, size_t head_n, const uint8_t* tail,
                        size_t tail_n) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](const uint8_t* p, size_t n) {
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  };
  uint8_t sz[8];
  for (int i = 0; i < 8; ++i) sz[i] = static_cast<uint8_t>(size >> (8 * i));
  mix(sz, sizeof sz);
  mix(head, head_n);
  mix(tail, tail_n);
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

void read_exact(int fd, uint8_t* out, size_t n, uint64_t offset, const std::string& path) {
  if (!util::pread_exact(fd, out, n, offset)) {
    const std::string why = errno != 0 ? errno_text() : "end of file";
    throw TraceError(path + ": cannot read " + std::to_string(n) + " bytes at offset " +
                     std::to_string(offset) + ": " + why);
  }
}

TraceIdentity identify_open_file(int fd, const std::string& path) {
  TraceIdentity id;
  id.size = regular_file_size(fd, path);
  const size_t span = static_cast<size_t>(std::min(id.size, kFingerprintSpan));
  std::vector<uint8_t> head(span), tail(span);
  read_exact(fd, head.data(), span, 0, path);
  read_exact(fd, tail.data(), span, id.size - span, path);
  id.fingerprint = fingerprint(id.size, head.data(), span, tail.data(), span);
  return id;
}

}  // namespace

TraceIdentity identify_trace(const std::string& path) {
  Fd fd(path);
  return identify_open_file(fd.get(), path);
}

SharedTrace::SharedTrace(const std::string& path, const TraceIdentity& expected) : path_(path) {
  // One descriptor for the check and every later read: the file checked is the file read. The
  // Fd closes it if the check throws (whatever it throws propagates unchanged).
  Fd fd(path);
  const TraceIdentity actual = identify_open_file(fd.get(), path);
  std::string mismatch;
  if (actual.size != expected.size) {
    mismatch = path + ": " + std::to_string(actual.size) + " bytes here, " +
               std::to_string(expected.size) + " in the coordinator's trace";
  } else if (actual.fingerprint != expected.fingerprint) {
    mismatch = path +
               ": same size but different content than the coordinator's trace "
               "(fingerprint " +
               actual.fingerprint + " vs " + expected.fingerprint + ")";
  }
  if (!mismatch.empty()) throw TraceError(mismatch);
  fd_ = fd.release();
  size_ = actual.size;
  // Each worker reads its references in file order: ask for aggressive read-ahead.
  ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

SharedTrace::~SharedTrace() {
  if (fd_ >= 0) ::close(fd_);
}

ReadFrames SharedTrace::read(std::span<const FrameRef> refs, uint64_t max_bytes) const {
  // Frames this close together share one read (the gap is read and ignored).
  constexpr uint64_t kMaxGap = 4096;
  struct Run {
    uint64_t begin, end;  // file range
    size_t at;            // where it lands in the buffer
  };
  std::vector<Run> runs;
  std::vector<size_t> run_of(refs.size());
  size_t total = 0;
  for (size_t i = 0; i < refs.size(); ++i) {
    const FrameRef& r = refs[i];
    if (r.offset > size_ || size_ - r.offset < 4 + uint64_t{r.body_size}) {
      throw TraceError(path_ + ": a record reference (offset " + std::to_string(r.offset) + ", " +
                       std::to_string(r.body_size) + " bytes) lies beyond the end of the file");
    }
    const uint64_t end = r.offset + 4 + r.body_size;
    if (!runs.empty() && r.offset >= runs.back().begin && r.offset <= runs.back().end + kMaxGap) {
      Run& run = runs.back();
      if (end > run.end) {
        total += end - run.end;
        run.end = end;
      }
    } else {
      runs.push_back({r.offset, end, total});
      total += end - r.offset;
    }
    run_of[i] = runs.size() - 1;
    if (total > max_bytes) {
      throw TraceError(path_ + ": the references of one batch cover more than " +
                       std::to_string(max_bytes) + " bytes");
    }
  }
  ReadFrames out;
  out.bytes = std::make_unique_for_overwrite<uint8_t[]>(total);
  for (const Run& run : runs) {
    read_exact(fd_, out.bytes.get() + run.at, run.end - run.begin, run.begin, path_);
  }
  out.bodies.reserve(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    const Run& run = runs[run_of[i]];
    const uint8_t* p = out.bytes.get() + run.at + (refs[i].offset - run.begin);
    const uint32_t prefix = util::load_be32(p);
    if (prefix != refs[i].body_size) {
      throw TraceError(path_ + " at offset " + std::to_string(refs[i].offset) + ": frame of " +
                       std::to_string(prefix) + " bytes here, " +
                       std::to_string(refs[i].body_size) +
                       " in the coordinator's trace: the worker's copy differs");
    }
    out.bodies.emplace_back(reinterpret_cast<const char*>(p + 4), refs[i].body_size);
  }
  return out;
}

}  // namespace fleet::trace
