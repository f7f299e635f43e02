// An L2Reader on its own thread: records are decoded in batches into a small ring of batches
// while the caller consumes the previous ones (the L2 plan is built on one core while the next
// records are decoded on the other). The caller sees the same records in the same order, and
// the same errors once every record before them was returned.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "fleet/trace/l2_reader.h"

namespace fleet::trace {

class L2BatchReader {
 public:
  // Opens the file and checks its header on the caller's thread (throws as L2Reader does), then
  // starts decoding: at most `batches` batches of `batch_records` records ahead of the caller.
  // Small batches: the caller reads the records while they are still in the shared cache
  // (4,096-record batches, ~2 MB each, planned 0.1 s slower; docs/benchmarks.md).
  //
  // `prepare`, when given, runs on the decoding thread on each batch once it is decoded, before
  // the caller sees it: work on a batch that needs none of the caller's state (the L2 plan hashes
  // the keys there, while their bytes are still in that core's cache). `slot` (< batches) names
  // the batch's place in the ring: the caller keeps what prepare computed per slot, and a slot
  // is not prepared again before the caller has moved past the batch it holds. What prepare
  // throws is rethrown to the caller as a decoding error is.
  using Prepare = std::function<void(size_t slot, std::span<const L2Record> records)>;
  L2BatchReader(const std::string& path, ReaderOptions options, size_t batch_records = 512,
                size_t batches = 8, Prepare prepare = {});
  ~L2BatchReader();  // stops the thread and joins it
  L2BatchReader(const L2BatchReader&) = delete;
  L2BatchReader& operator=(const L2BatchReader&) = delete;

  const Header& header() const { return reader_.header(); }
  const std::string& path() const { return reader_.path(); }

  // The next records in file order, valid until the next call; empty at the end of the file.
  // Rethrows what the reading thread threw (a TraceError naming file and offset) once every
  // record before it was returned.
  std::span<const L2Record> next_batch();
  // The ring slot of the batch next_batch() returned last (what `prepare` was given with it).
  size_t slot() const { return static_cast<size_t>(consumed_ % ring_.size()); }
  // The reader's counters: only once next_batch() returned empty.
  const ReaderCounters& counters() const { return reader_.counters(); }

 private:
  struct Batch {
    std::vector<L2Record> records;  // reused: the decode keeps their vectors' capacity
    size_t count = 0;
  };
  void produce();
  bool fill(Batch& batch);  // false at the end of the file

  L2Reader reader_;
  Prepare prepare_;
  std::vector<Batch> ring_;
  std::mutex mu_;
  std::condition_variable changed_;
  uint64_t produced_ = 0;  // batches published
  uint64_t consumed_ = 0;  // batches the caller is done with
  bool holding_ = false;   // the caller holds batch `consumed_`
  bool done_ = false;      // no batch after `produced_` will come
  bool stop_ = false;      // the caller is gone
  std::exception_ptr error_;
  std::thread thread_;
};

}  // namespace fleet::trace
