// A fixed set of I/O threads for the real L2 adapters (fs, resp). Each task gets the index of
// the worker running it, so an adapter can keep one connection per worker.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace fleet::storage {

class IoWorkerPool {
 public:
  using Task = std::function<void(size_t worker)>;
  explicit IoWorkerPool(size_t workers);
  ~IoWorkerPool();
  IoWorkerPool(const IoWorkerPool&) = delete;
  IoWorkerPool& operator=(const IoWorkerPool&) = delete;

  void submit(Task t);
  // Runs what is queued, then joins. Idempotent.
  void shutdown();
  // Drops the tasks no thread has started (an adapter closing: their results would be
  // abandoned anyway); returns how many.
  size_t cancel_queued();
  size_t size() const { return threads_.size(); }

 private:
  void run(size_t index);
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Task> queue_;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace fleet::storage
