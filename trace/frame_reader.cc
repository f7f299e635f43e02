#include "fleet/trace/frame_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>

#include "fleet/trace/errors.h"
#include "fleet/util/big_endian.h"

namespace fleet::trace {

namespace {
// A frame (of an era-3 trace: ~1 KB) left unfinished at a block's end is moved into the next
// block's headroom (up to half a block); a longer one is gathered in buf_.
constexpr size_t kReadAheadHeadroom = 64 * 1024;
constexpr size_t kReadAheadBlocks = 8;
}  // namespace

void LogReporter::warning(uint64_t offset, std::string_view what) {
  spdlog::warn("{}: {} (offset {})", path_, what, offset);
}

FrameReader::FrameReader(const std::string& path, ReaderOptions options)
    : path_(path), options_(options) {
  if (!options_.reporter) {
    own_reporter_ = std::make_unique<LogReporter>(path);
    options_.reporter = own_reporter_.get();
  }
  fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw TraceError(path + ": cannot open: " + std::strerror(errno));
  struct stat st;
  if (fstat(fd_, &st) != 0) {
    int e = errno;
    ::close(fd_);
    throw TraceError(path + ": cannot stat: " + std::strerror(e));
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd_);
    throw TraceError(path + ": is a directory, not a trace file");
  }
  if (S_ISREG(st.st_mode)) {
    file_size_ = static_cast<uint64_t>(st.st_size);
    posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
  }
  // The buffer grows if a frame or a growing file needs more.
  // A small file gets the 64 KiB floor: every page read(2) fills is a fault on first touch, and
  // a few more read calls cost less than faulting in the whole file.
  size_t want = std::max<size_t>(options_.buffer_bytes, 64 * 1024);
  if (file_size_ > 0 && file_size_ < 4 * want) want = 64 * 1024;
  if (S_ISREG(st.st_mode) && options_.read_ahead &&
      file_size_ >= options_.read_ahead_min_file_bytes) {
    // buf_ then only gathers frames longer than a block's headroom: it grows when one comes.
    const size_t block = std::max<size_t>(options_.read_ahead_block_bytes, 64);
    ahead_ = std::make_unique<ReadAhead>(fd_, block, std::min(kReadAheadHeadroom, block / 2),
                                         kReadAheadBlocks);
  } else {
    buf_.resize(want);
    win_ = buf_.data();
  }

  uint64_t offset = 0;
  const uint8_t* body = nullptr;
  uint32_t size = 0;
  FrameStatus st_hdr;
  try {
    st_hdr = read_frame(offset, body, size);
  } catch (const TraceError& e) {
    close_file();
    throw;
  }
  if (st_hdr != FrameStatus::Ok) {
    close_file();
    if (counters_.truncated_tail_bytes == 0) {
      throw TraceError(path + ": empty file: unexpected EOF reading the header frame length");
    }
    if (counters_.truncated_tail_bytes < kFramePrefixBytes) {
      throw TraceError(path + ": truncated frame length prefix at offset 0 (file has " +
                       std::to_string(counters_.truncated_tail_bytes) + " bytes)");
    }
    throw TraceError(path + ": truncated header frame body at offset 0");
  }
  try {
    header_ = decode_header(body, size, options_.limits);
  } catch (const DecodeError& e) {
    close_file();
    throw TraceError(path + ": invalid header at offset " + std::to_string(4 + e.offset()) + ": " +
                     e.what());
  } catch (const TraceError& e) {
    close_file();
    throw TraceError(path + ": " + e.what());
  }
  records_offset_ = counters_.bytes_consumed;
}

FrameReader::~FrameReader() { close_file(); }

// The helper stops before its descriptor closes: it must never read a reused one.
void FrameReader::close_file() {
  held_.reset();
  ahead_.reset();
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

void FrameReader::warn(uint64_t offset, const std::string& what) {
  options_.reporter->warning(offset, what);
}

// Makes at least `need` unread bytes available in buf_[pos_..len_), reading more of the file.
// Returns false when the file ends first.
bool FrameReader::fill(size_t need) {
  if (len_ - pos_ >= need) return true;
  if (ahead_) return fill_ahead(need);
  if (pos_ > 0) {
    std::memmove(buf_.data(), buf_.data() + pos_, len_ - pos_);
    buf_file_offset_ += pos_;
    len_ -= pos_;
    pos_ = 0;
  }
  while (len_ < need && !eof_) {
    // Grown as the file delivers, not to `need` at once: a corrupt length prefix below the
    // frame limit must not allocate (and zero) its declared size before the bytes exist.
    if (len_ == buf_.size()) {
      buf_.resize(std::min(need, 2 * buf_.size()));
      win_ = buf_.data();
    }
    ssize_t n = ::read(fd_, buf_.data() + len_, buf_.size() - len_);
    if (n < 0) {
      if (errno == EINTR) continue;
      throw TraceError(path_ + ": read error at offset " + std::to_string(buf_file_offset_ + len_) +
                       ": " + std::strerror(errno));
    }
    if (n == 0) eof_ = true;
    len_ += static_cast<size_t>(n);
  }
  return len_ >= need;
}

// fill() with read-ahead. A frame's start left at the end of one block is copied in front of the
// next block (into its headroom), so a frame is always parsed in one piece; one longer than the
// headroom is gathered in buf_ instead, which grows only as blocks arrive (a corrupt length
// below the frame limit allocates no more than the file holds).
bool FrameReader::fill_ahead(size_t need) {
  while (len_ - pos_ < need && !eof_) {
    const ReadAhead::Block next = ahead_->acquire();
    if (next.error != 0) {
      throw TraceError(path_ + ": read error at offset " + std::to_string(next.offset) + ": " +
                       std::strerror(next.error));
    }
    if (next.len == 0) {
      eof_ = true;
      break;
    }
    const size_t left = len_ - pos_;
    uint8_t* base;
    if (left <= ahead_->headroom() && left + next.len >= need) {
      base = next.data - left;
      if (left > 0) std::memcpy(base, win_ + pos_, left);
      if (held_) ahead_->release(*held_);
      held_ = next;
    } else {
      if (win_ == buf_.data()) {
        if (left > 0) std::memmove(buf_.data(), buf_.data() + pos_, left);
        if (buf_.size() < left + next.len) buf_.resize(left + next.len);
      } else {
        if (buf_.size() < left + next.len) buf_.resize(left + next.len);
        if (left > 0) std::memcpy(buf_.data(), win_ + pos_, left);
      }
      std::memcpy(buf_.data() + left, next.data, next.len);
      ahead_->release(next);
      if (held_) ahead_->release(*held_);
      held_.reset();
      base = buf_.data();
    }
    win_ = base;
    pos_ = 0;
    len_ = left + next.len;
    buf_file_offset_ = next.offset - left;
  }
  return len_ - pos_ >= need;
}

FrameReader::FrameStatus FrameReader::read_frame(uint64_t& offset, const uint8_t*& body,
                                                 uint32_t& size) {
  offset = buf_file_offset_ + pos_;
  if (!fill(kFramePrefixBytes)) {
    size_t have = len_ - pos_;
    if (have == 0) return FrameStatus::End;
    counters_.truncated_tail = true;
    counters_.truncated_tail_bytes = have;
    warn(offset, "truncated frame length prefix (" + std::to_string(have) + " of 4 bytes)");
    pos_ = len_;
    return FrameStatus::Truncated;
  }
  const uint8_t* p = win_ + pos_;
  uint32_t length = util::load_be32(p);
  if (length > options_.max_frame_bytes) {
    throw TraceError(path_ + ": frame at offset " + std::to_string(offset) + " declares " +
                     std::to_string(length) + " bytes, above the frame limit of " +
                     std::to_string(options_.max_frame_bytes) +
                     " bytes (corrupt length prefix? raise --max-frame-mb if the frame is real)");
  }
  if (!fill(kFramePrefixBytes + length)) {
    size_t have = len_ - pos_ - kFramePrefixBytes;
    counters_.truncated_tail = true;
    counters_.truncated_tail_bytes = len_ - pos_;
    warn(offset, "truncated frame body (got " + std::to_string(have) + " of " +
                     std::to_string(length) + " bytes)");
    pos_ = len_;
    return FrameStatus::Truncated;
  }
  body = win_ + pos_ + kFramePrefixBytes;
  size = length;
  pos_ += kFramePrefixBytes + length;
  counters_.bytes_consumed = buf_file_offset_ + pos_;
  return FrameStatus::Ok;
}

bool FrameReader::next(RecordView& out) {
  if (fd_ < 0) return false;
  for (;;) {
    uint64_t offset;
    const uint8_t* body;
    uint32_t size;
    if (read_frame(offset, body, size) != FrameStatus::Ok) return false;
    try {
      parse_record(body, size, out, options_.limits, options_.defer_args_check);
    } catch (const DecodeError& e) {
      ++counters_.malformed_skipped;
      warn(offset, std::string("skipping malformed record: ") + e.what() + " of the frame body");
      continue;
    }
    out.file_offset = offset;
    ++counters_.records;
    return true;
  }
}

void FrameReader::reject_malformed(const RecordView& rec, const std::string& why) {
  --counters_.records;
  ++counters_.malformed_skipped;
  warn(rec.file_offset, "skipping malformed record: " + why + " of the frame body");
}

}  // namespace fleet::trace
