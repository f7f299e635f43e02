// A trace file the coordinator and a worker can both open (the same host, or a file system
// shared by the fleet). The coordinator then sends each unmodified record as a reference — its
// frame's offset and length — and the worker reads the bytes from its own copy: no record
// crosses the network.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace fleet::trace {

// What both sides compare before a run uses references: the file size and a hash of its first
// and last 64 KiB (header and tail). Every reference also carries its frame's length, which the
// worker checks against the length prefix in its copy, so a copy that differs elsewhere is
// caught at the first record that lands on the difference.
struct TraceIdentity {
  uint64_t size = 0;
  std::string fingerprint;  // 16 hex digits
  bool operator==(const TraceIdentity&) const = default;
};

// Identity of the regular file at `path`. Throws TraceError naming the path (missing,
// unreadable, not a regular file).
TraceIdentity identify_trace(const std::string& path);

struct FrameRef {
  uint64_t offset = 0;  // of the frame's u32 length prefix
  uint32_t body_size = 0;
};

// Frame bodies read for one batch: `bodies` point into `bytes`.
struct ReadFrames {
  std::unique_ptr<uint8_t[]> bytes;
  std::vector<std::string_view> bodies;
};

class SharedTrace {
 public:
  // Opens `path` and checks it against `expected`. Throws TraceError saying what differs
  // (size, fingerprint) or why the file cannot be used.
  SharedTrace(const std::string& path, const TraceIdentity& expected);
  ~SharedTrace();
  SharedTrace(const SharedTrace&) = delete;
  SharedTrace& operator=(const SharedTrace&) = delete;

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

  // Reads the bodies of `refs`, in order, with one pread per run of nearby frames (a worker's
  // references are mostly consecutive). Plain reads, not a mapping: no page-table work per
  // record and no SIGBUS if the file shrinks; memory is one batch's frames. Throws TraceError
  // when a frame lies outside the file or the length prefix there differs from the reference
  // (the worker's copy is not the coordinator's), or when the frames (with the gaps read
  // through) would take more than `max_bytes` (a batch is bounded like a decoded one).
  ReadFrames read(std::span<const FrameRef> refs, uint64_t max_bytes) const;

 private:
  std::string path_;
  int fd_ = -1;
  uint64_t size_ = 0;
};

}  // namespace fleet::trace
