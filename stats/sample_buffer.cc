#include "fleet/stats/sample_buffer.h"

#include <algorithm>
#include <cstring>

#include "fleet/util/prefault.h"

namespace fleet::stats {

SampleBuffer& SampleBuffer::operator=(const SampleBuffer& o) {
  if (this != &o) {
    clear();
    append(o);
  }
  return *this;
}

void SampleBuffer::swap(SampleBuffer& o) noexcept {
  head_.swap(o.head_);
  chunks_.swap(o.chunks_);
  std::swap(cur_, o.cur_);
  std::swap(tail_, o.tail_);
  std::swap(tail_pos_, o.tail_pos_);
}

void SampleBuffer::next_chunk() {
  if (tail_)
    ++cur_;
  else
    cur_ = 0;
  if (cur_ == chunks_.size()) {
    chunks_.push_back(std::make_unique_for_overwrite<double[]>(kChunk));
    // A second chunk means a busy op: its 16 pages in one call rather than 16 faults. The
    // first is left to fault in as it fills: most ops of a small run use one page of it.
    if (cur_ > 0) util::prefault_writable(chunks_.back().get(), kChunk * sizeof(double));
  }
  tail_ = chunks_[cur_].get();
  tail_pos_ = 0;
}

void SampleBuffer::append(const SampleBuffer& other) {
  other.for_each_block([this](const double* d, std::size_t n) { append_raw(d, n); });
}

void SampleBuffer::append_raw(const void* doubles, std::size_t n) {
  const auto* from = static_cast<const unsigned char*>(doubles);
  if (size() == 0 && n > kChunk) {
    // A whole part at once (a node's DONE): one exact array, already what contiguous() returns.
    head_.resize(n);
    std::memcpy(head_.data(), from, n * sizeof(double));
    return;
  }
  while (n > 0) {
    if (tail_pos_ == kChunk) next_chunk();
    const std::size_t k = std::min(n, kChunk - tail_pos_);
    std::memcpy(tail_ + tail_pos_, from, k * sizeof(double));
    tail_pos_ += k;
    from += k * sizeof(double);
    n -= k;
  }
}

void SampleBuffer::reserve(std::size_t n) {
  const std::size_t free_in_tail = tail_ ? kChunk - tail_pos_ : 0;
  if (n <= free_in_tail) return;
  const std::size_t first_spare = tail_ ? cur_ + 1 : 0;
  const std::size_t need = first_spare + (n - free_in_tail + kChunk - 1) / kChunk;
  while (chunks_.size() < need) {
    chunks_.push_back(std::make_unique_for_overwrite<double[]>(kChunk));
    double* chunk = chunks_.back().get();
    if (!util::prefault_writable(chunk, kChunk * sizeof(double))) {
      std::memset(chunk, 0, kChunk * sizeof(double));  // fault the pages in now, one by one
    }
  }
}

void SampleBuffer::clear() {
  head_.clear();
  cur_ = 0;
  tail_ = nullptr;
  tail_pos_ = kChunk;
}

std::span<double> SampleBuffer::contiguous() {
  if (chunked() == 0) return head_;
  head_.reserve(size());
  for (std::size_t c = 0; c <= cur_; ++c) {
    const std::size_t n = c < cur_ ? kChunk : tail_pos_;
    head_.insert(head_.end(), chunks_[c].get(), chunks_[c].get() + n);
    chunks_[c].reset();
  }
  chunks_.clear();
  cur_ = 0;
  tail_ = nullptr;
  tail_pos_ = kChunk;
  return head_;
}

}  // namespace fleet::stats
