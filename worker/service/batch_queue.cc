#include "fleet/worker/batch_queue.h"

#include <sys/eventfd.h>
#include <unistd.h>

#include <cerrno>
#include <system_error>

#include "fleet/trace/errors.h"

namespace fleet::service {

BatchQueue::BatchQueue() : wake_fd_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
  if (wake_fd_ < 0) throw std::system_error(errno, std::generic_category(), "eventfd");
}

BatchQueue::~BatchQueue() { ::close(wake_fd_); }

void BatchQueue::drain_wakeups() {
  uint64_t n;  // one read resets an eventfd's counter (EAGAIN when already zero)
  [[maybe_unused]] const auto r = ::read(wake_fd_, &n, sizeof n);
}

void BatchQueue::wake_network() {
  const uint64_t one = 1;
  [[maybe_unused]] const auto w = ::write(wake_fd_, &one, sizeof one);
}

void BatchQueue::push(wire::RawBatch raw, wire::SplitBatch split, double t_shift, int64_t seq) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    queue_.push_back(Item{std::move(raw), std::move(split), t_shift, seq});
  }
  cv_.notify_one();
}

void BatchQueue::close_input() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    closed_ = true;
  }
  cv_.notify_all();
}

void BatchQueue::abort() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    aborted_ = true;
  }
  cv_.notify_all();
}

size_t BatchQueue::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.size();
}

uint64_t BatchQueue::consumed_batches() const {
  std::lock_guard<std::mutex> lock(mu_);
  return consumed_;
}

std::string BatchQueue::corruption() const {
  std::lock_guard<std::mutex> lock(mu_);
  return corruption_;
}

void BatchQueue::stop_on_corruption(std::string why) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (corruption_.empty()) corruption_ = std::move(why);
    aborted_ = true;
  }
  stopped_ = true;
  cv_.notify_all();
}

void BatchQueue::reject_malformed(const trace::RecordView&, const std::string& why) {
  // The coordinator checked this record's args before sending it.
  stop_on_corruption("batch " + std::to_string(current_.seq) + ", record " +
                     std::to_string(pos_ - 1) +
                     ": args are malformed here but were not at the "
                     "coordinator: " +
                     why);
}

bool BatchQueue::next_never_waits() const {
  if (stopped_) return false;
  if (has_current_ && pos_ < current_.split.frames.size()) return true;
  std::lock_guard<std::mutex> lock(mu_);
  return !queue_.empty() && !aborted_;
}

bool BatchQueue::next(trace::RecordView& out) {
  if (stopped_) return false;
  for (;;) {
    if (has_current_ && pos_ < current_.split.frames.size()) {
      std::string_view f = current_.split.frames[pos_++];
      try {
        trace::parse_record(reinterpret_cast<const uint8_t*>(f.data()), f.size(), out, {},
                            /*defer_args_check=*/true);
        out.file_offset = 0;
        out.t_mono -= current_.t_shift;
        const auto& masks = current_.split.masks;
        if (pos_ - 1 < masks.size()) {
          out.key_mask = masks[pos_ - 1].bits;
          out.key_mask_keys = masks[pos_ - 1].keys;
        } else {
          out.key_mask = {};
          out.key_mask_keys = 0;
        }
        return true;
      } catch (const trace::DecodeError& e) {
        stop_on_corruption("batch " + std::to_string(current_.seq) + ", record " +
                           std::to_string(pos_ - 1) + " does not parse: " + e.what());
        return false;
      }
    }
    std::unique_lock<std::mutex> lock(mu_);
    if (has_current_) {
      ++consumed_;
      has_current_ = false;
      // Wake the network thread once consumed_ counts this batch, outside the lock it pushes
      // batches under.
      lock.unlock();
      wake_network();
      lock.lock();
    }
    cv_.wait(lock, [&] { return aborted_ || closed_ || !queue_.empty(); });
    if (aborted_ || queue_.empty()) return false;
    current_ = std::move(queue_.front());
    queue_.pop_front();
    pos_ = 0;
    has_current_ = true;
  }
}

}  // namespace fleet::service
