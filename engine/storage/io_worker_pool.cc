#include "fleet/engine/io_worker_pool.h"

namespace fleet::storage {

IoWorkerPool::IoWorkerPool(size_t workers) {
  if (workers == 0) workers = 1;
  try {
    for (size_t i = 0; i < workers; ++i) threads_.emplace_back([this, i] { run(i); });
  } catch (...) {  // out of threads: join those started, or their destructors terminate us
    shutdown();
    throw;
  }
}

IoWorkerPool::~IoWorkerPool() { shutdown(); }

void IoWorkerPool::submit(Task t) {
  {
    std::lock_guard<std::mutex> g(mu_);
    queue_.push_back(std::move(t));
  }
  cv_.notify_one();
}

void IoWorkerPool::shutdown() {
  {
    std::lock_guard<std::mutex> g(mu_);
    if (stop_ && threads_.empty()) return;
    stop_ = true;
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
}

size_t IoWorkerPool::cancel_queued() {
  std::lock_guard<std::mutex> g(mu_);
  const size_t n = queue_.size();
  queue_.clear();
  return n;
}

void IoWorkerPool::run(size_t index) {
  for (;;) {
    Task t;
    {
      std::unique_lock<std::mutex> l(mu_);
      cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;
      t = std::move(queue_.front());
      queue_.pop_front();
    }
    t(index);
  }
}

}  // namespace fleet::storage
