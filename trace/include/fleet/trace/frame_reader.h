// Streaming reader of `.lct` files (docs/trace-format.md §1.5): strict header, lenient records.
// A truncated tail stops with a warning; a complete frame that is not a valid Record is skipped
// and counted; a length prefix above the frame limit is an error naming the offset (never a
// blind allocation). Problems are reported through a Reporter, as LevelDB's log reader does.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/trace/format.h"
#include "fleet/trace/header.h"
#include "fleet/trace/read_ahead.h"
#include "fleet/trace/record.h"
#include "fleet/util/uninitialized_buffer.h"

namespace fleet::trace {

class Reporter {
 public:
  virtual ~Reporter() = default;
  // Something was dropped or is suspicious at `offset` (file offset of the frame).
  virtual void warning(uint64_t offset, std::string_view what) = 0;
};

// Logs through spdlog, prefixed with the file name.
class LogReporter final : public Reporter {
 public:
  explicit LogReporter(std::string path) : path_(std::move(path)) {}
  void warning(uint64_t offset, std::string_view what) override;

 private:
  std::string path_;
};

struct ReaderOptions {
  uint32_t max_frame_bytes = kDefaultMaxFrameBytes;
  MsgpackLimits limits;
  Reporter* reporter = nullptr;      // null: LogReporter for the path
  size_t buffer_bytes = 256u << 10;  // fits L2: a larger buffer copies out of the page cache slower
  // A regular file at least this large is read ahead on a helper thread (read_ahead.h):
  // the kernel's copy overlaps with decoding. Larger than a small trace, whose whole replay
  // takes less than a thread start saves.
  bool read_ahead = true;
  uint64_t read_ahead_min_file_bytes = 8ull << 20;
  size_t read_ahead_block_bytes = 128u << 10;  // 8 in the ring (docs/benchmarks.md,
                                               // "Read-ahead and the reader's buffer")
  // parse_record's defer_args_check: for consumers that decode every record's args (the
  // replay) and report what decode_op finds malformed through reject_malformed().
  bool defer_args_check = false;
};

struct ReaderCounters {
  uint64_t records = 0;            // frames returned as records
  uint64_t malformed_skipped = 0;  // complete frames that did not decode as a Record
  uint64_t truncated_tail_bytes = 0;
  bool truncated_tail = false;
  uint64_t bytes_consumed = 0;  // file offset after the last complete frame
};

class FrameReader {
 public:
  // Opens the file and reads the header. Throws TraceError naming the path (and offset) when
  // the file cannot be opened, is not a regular file or pipe, or the header is unusable.
  FrameReader(const std::string& path, ReaderOptions options = {});
  ~FrameReader();
  FrameReader(const FrameReader&) = delete;
  FrameReader& operator=(const FrameReader&) = delete;

  const Header& header() const { return header_; }
  const std::string& path() const { return path_; }
  const ReaderCounters& counters() const { return counters_; }
  // Byte offset where the first record frame starts.
  uint64_t records_offset() const { return records_offset_; }
  // File size when known (regular files), else 0.
  uint64_t file_size() const { return file_size_; }

  // Next valid record, or false at the end (clean or truncated tail). Throws TraceError for a
  // length prefix above the frame limit.
  bool next(RecordView& out);
  // The record last returned turned out malformed (deferred args check): count and report it
  // exactly as next() would have.
  void reject_malformed(const RecordView& rec, const std::string& why);

 private:
  enum class FrameStatus { Ok, End, Truncated };
  FrameStatus read_frame(uint64_t& offset, const uint8_t*& body, uint32_t& size);
  bool fill(size_t need);
  bool fill_ahead(size_t need);
  void close_file();
  void warn(uint64_t offset, const std::string& what);

  std::string path_;
  ReaderOptions options_;
  std::unique_ptr<LogReporter> own_reporter_;
  int fd_ = -1;
  uint64_t file_size_ = 0;
  util::UninitializedBytes buf_;  // read(2) fills it: never zeroed first
  // The bytes being parsed: buf_, or with read-ahead the block last acquired (with an unfinished
  // frame's start copied in front of it) or buf_ when a frame outgrew that.
  uint8_t* win_ = nullptr;
  size_t pos_ = 0;                // start of unread data in win_
  size_t len_ = 0;                // end of valid data in win_
  uint64_t buf_file_offset_ = 0;  // file offset of win_[0]
  std::unique_ptr<ReadAhead> ahead_;
  std::optional<ReadAhead::Block> held_;  // the block win_ points into
  bool eof_ = false;
  Header header_;
  uint64_t records_offset_ = 0;
  ReaderCounters counters_;
};

}  // namespace fleet::trace
