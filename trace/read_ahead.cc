#include "fleet/trace/read_ahead.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>

#include "fleet/util/huge_page_allocator.h"

namespace fleet::trace {

namespace {
// The ring's pages are faulted in by the helper as it first fills them, off the replay thread.
using RingAllocator = util::HugePageAllocator<uint8_t, /*kPrefault=*/false>;
}  // namespace

ReadAhead::ReadAhead(int fd, size_t block_bytes, size_t headroom, size_t blocks)
    : fd_(fd),
      block_bytes_(block_bytes),
      headroom_(headroom),
      resume_below_(blocks / 2),
      filled_(blocks) {
  blocks_ = blocks;
  storage_bytes_ = blocks * (headroom + block_bytes);
  storage_ = static_cast<uint8_t*>(RingAllocator().allocate(storage_bytes_));
  // Signals stay with the threads that handle them (the replay's SIGINT handling).
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  try {
    helper_ = std::thread([this] { run(); });
  } catch (...) {
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    RingAllocator().deallocate(storage_, storage_bytes_);
    throw;
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

ReadAhead::~ReadAhead() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  helper_.join();
  RingAllocator().deallocate(storage_, storage_bytes_);
}

void ReadAhead::run() {
  uint64_t offset = static_cast<uint64_t>(::lseek(fd_, 0, SEEK_CUR));
  for (;;) {
    size_t slot;
    {
      std::unique_lock<std::mutex> lock(mu_);
      // A slot is free once the block last read into it was released. With the ring full the
      // helper sleeps until half of it is free: one wake-up per few blocks, not per block (each
      // is a futex call and a context switch, ~3% of a replay when it was per block).
      if (produced_ - released_ == blocks_) {
        helper_waiting_ = true;
        cv_.wait(lock, [&] { return stop_ || produced_ - released_ <= resume_below_; });
        helper_waiting_ = false;
      }
      if (stop_) return;
      slot = produced_ % blocks_;
    }
    Block b;
    b.slot = slot;
    b.data = storage_ + slot * (headroom_ + block_bytes_) + headroom_;
    b.offset = offset;
    for (;;) {
      const ssize_t n = ::read(fd_, b.data, block_bytes_);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) b.error = errno;
      if (n > 0) b.len = static_cast<size_t>(n);
      break;
    }
    offset += b.len;
    const bool last = b.len == 0;
    bool wake;
    {
      std::lock_guard<std::mutex> lock(mu_);
      filled_[slot] = b;
      ++produced_;
      finished_ = last;
      wake = consumer_waiting_;
    }
    if (wake) cv_.notify_all();
    if (last) return;
  }
}

ReadAhead::Block ReadAhead::acquire() {
  std::unique_lock<std::mutex> lock(mu_);
  if (finished_ && acquired_ == produced_) {
    return filled_[(produced_ - 1) % blocks_];  // the end repeats
  }
  if (acquired_ == produced_) {
    consumer_waiting_ = true;
    cv_.wait(lock, [&] { return acquired_ < produced_; });
    consumer_waiting_ = false;
  }
  return filled_[acquired_++ % blocks_];
}

void ReadAhead::release(const Block& b) {
  if (b.len == 0) return;  // the end block is never refilled
  bool wake;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ++released_;
    wake = helper_waiting_ && produced_ - released_ <= resume_below_;
  }
  if (wake) cv_.notify_all();
}

}  // namespace fleet::trace
