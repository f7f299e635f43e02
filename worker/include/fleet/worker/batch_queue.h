// The hand-off between a worker's network thread and its replay thread: decompressed batches
// in arrival order, consumed as a RecordSource. It counts consumed batches (the worker turns
// them into CREDIT messages) and can be closed (END) or aborted (ABORT, lost coordinator).
// The coordinator sends only records it parsed and checked, so a record that does not parse
// here means the batch was damaged on the way: the queue stops the replay and keeps the first
// such reason, which the worker turns into an ABORT (a dropped record would be silent loss).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/replay/record_source.h"
#include "fleet/wire/batch.h"

namespace fleet::service {

class BatchQueue final : public replay::RecordSource {
 public:
  BatchQueue();
  ~BatchQueue() override;
  BatchQueue(const BatchQueue&) = delete;
  BatchQueue& operator=(const BatchQueue&) = delete;
  // Readable (an eventfd) once a batch has been consumed since the last drain_wakeups(): the
  // network thread polls it beside its socket and returns CREDIT at once. Without it the
  // credit waited for the poll's timeout, and a coordinator holding a full window waited
  // with it (measured: a quarter of --local 2 --shard none's wall time).
  // Also made readable by wake_network(): the replay thread has news (its engine is built).
  int wakeup_fd() const { return wake_fd_; }
  void drain_wakeups();
  void wake_network();
  void push(wire::RawBatch raw, wire::SplitBatch split, double t_shift = 0.0, int64_t seq = 0);
  void close_input();  // no more batches will come
  void abort();        // stop now; next() returns false
  size_t queued() const;
  uint64_t consumed_batches() const;
  // Why the replay stopped on a damaged record ("" while none was found).
  std::string corruption() const;

  bool next(trace::RecordView& out) override;
  void reject_malformed(const trace::RecordView& rec, const std::string& why) override;
  // The next record is in a batch already here: next() parses it without waiting.
  bool next_never_waits() const override;

 private:
  struct Item {
    wire::RawBatch raw;
    wire::SplitBatch split;  // frames: views into raw or split.referenced
    double t_shift = 0.0;
    int64_t seq = 0;
  };
  void stop_on_corruption(std::string why);

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Item> queue_;
  bool closed_ = false;
  bool aborted_ = false;
  uint64_t consumed_ = 0;
  // Owned by the replay thread only.
  Item current_;
  size_t pos_ = 0;
  bool has_current_ = false;
  bool stopped_ = false;    // a damaged record was found (stop_on_corruption runs on this thread)
  std::string corruption_;  // guarded by mu_
  int wake_fd_ = -1;
};

}  // namespace fleet::service
