// Streaming reader of L2 traces: the storage FrameReader (same framing, frame limit, msgpack
// limits and strict header), a check that the header says `level = "l2"`, and the typed decode
// of every record. Errors name the file and the byte offset, as the storage reader's do. The
// Record check of a frame's args is deferred to that decode (one walk per frame, not two): a
// frame it finds malformed is skipped and counted exactly as the frame reader would have.
#pragma once

#include <cstdint>
#include <string>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_record.h"

namespace fleet::trace {

class L2Reader {
 public:
  // Opens the file and reads its header. Throws TraceError naming the file when it cannot be
  // read, the header is invalid, or the header's level is not "l2" (a storage trace given where
  // an L2 trace is expected).
  explicit L2Reader(const std::string& path, ReaderOptions options = {});

  const Header& header() const { return frames_.header(); }
  const std::string& path() const { return frames_.path(); }
  // Frames skipped as malformed, a truncated tail: the storage reader's counters.
  const ReaderCounters& counters() const { return frames_.counters(); }

  // The next record, or false at the end of the file (clean or truncated tail: the reporter has
  // the warning). Throws TraceError "FILE: record N at offset X: ..." when a record's args do
  // not decode: the fork decodes every record's args, and one that fails aborts the read.
  bool next(L2Record& out);

 private:
  FrameReader frames_;
  RecordView view_;
  uint64_t sequence_ = 0;
};

// Throws TraceError naming `path` and `level` unless `level` is "l2".
void require_l2_level(const std::string& path, const std::string& level);

}  // namespace fleet::trace
