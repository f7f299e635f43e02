// Writes `.lct` files byte-compatible with LMCache's recorder (docs/trace-format.md §1.6-§1.7):
// header exactly once and first, each frame (prefix + body) emitted with one write(), fsync on
// close. Used by `lct gen`, tests and the shard spill files.
#pragma once

#include <string>
#include <string_view>

#include "fleet/trace/header.h"
#include "fleet/trace/op.h"
#include "fleet/trace/op_encoder.h"

namespace fleet::trace {

class TraceWriter {
 public:
  // Creates/truncates `path` and writes the header. Throws TraceError naming the path.
  TraceWriter(const std::string& path, const Header& header);
  ~TraceWriter();
  TraceWriter(const TraceWriter&) = delete;
  TraceWriter& operator=(const TraceWriter&) = delete;

  void write_frame(std::string_view body);
  void write_op(const Op& op, Era era);
  // Flushes, fsyncs and closes; idempotent. Throws TraceError on failure.
  void close();
  uint64_t bytes_written() const { return bytes_; }

 private:
  void flush();
  std::string path_;
  int fd_ = -1;
  int64_t schema_ = 2;
  std::string pending_;  // frames batched up to 1 MiB; each frame stays contiguous
  uint64_t bytes_ = 0;
};

// Prefix + body of one frame.
std::string frame_bytes(std::string_view body);

}  // namespace fleet::trace
