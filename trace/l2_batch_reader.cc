#include "fleet/trace/l2_batch_reader.h"

#include <algorithm>
#include <utility>

namespace fleet::trace {

L2BatchReader::L2BatchReader(const std::string& path, ReaderOptions options, size_t batch_records,
                             size_t batches, Prepare prepare)
    : reader_(path, options), prepare_(std::move(prepare)), ring_(std::max<size_t>(batches, 2)) {
  for (Batch& b : ring_) b.records.resize(std::max<size_t>(batch_records, 1));
  thread_ = std::thread([this] { produce(); });
}

L2BatchReader::~L2BatchReader() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool L2BatchReader::fill(Batch& batch) {
  batch.count = 0;
  while (batch.count < batch.records.size()) {
    if (!reader_.next(batch.records[batch.count])) return false;
    ++batch.count;
  }
  return true;
}

void L2BatchReader::produce() {
  std::exception_ptr error;
  for (uint64_t n = 0;; ++n) {
    {
      std::unique_lock lock(mu_);  // wait for a free slot: the caller released batch n - size
      changed_.wait(lock, [&] { return stop_ || n - consumed_ < ring_.size(); });
      if (stop_) return;
    }
    Batch& batch = ring_[n % ring_.size()];
    bool more = false;
    try {
      more = fill(batch);
    } catch (...) {  // handed to the caller after the records before it
      error = std::current_exception();
    }
    if (prepare_ && batch.count > 0) {
      try {  // the records decoded before an error are prepared too: the caller gets them
        prepare_(n % ring_.size(), {batch.records.data(), batch.count});
      } catch (...) {  // an unprepared batch is not handed out: the error ends the reading here
        batch.count = 0;
        more = false;
        if (!error) error = std::current_exception();
      }
    }
    {
      std::lock_guard lock(mu_);
      if (batch.count > 0) ++produced_;
      if (!more) {
        done_ = true;
        error_ = error;
      }
    }
    changed_.notify_all();
    if (!more) return;
  }
}

std::span<const L2Record> L2BatchReader::next_batch() {
  std::unique_lock lock(mu_);
  if (holding_) {
    ++consumed_;
    holding_ = false;
    changed_.notify_all();
  }
  changed_.wait(lock, [&] { return produced_ > consumed_ || done_; });
  if (produced_ > consumed_) {
    holding_ = true;
    const Batch& batch = ring_[consumed_ % ring_.size()];
    return {batch.records.data(), batch.count};
  }
  if (error_) std::rethrow_exception(error_);
  return {};
}

}  // namespace fleet::trace
