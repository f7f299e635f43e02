// Append-only storage for exact latency samples. Fixed-size chunks instead of one growing
// vector: a sample's memory is written once (no reallocation copies, no 2x peak), which matters
// because first-touch page faults dominate recording cost (and cause lateness spikes when they
// land in the paced loop; reserve() moves them before the loop starts).
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <utility>
#include <vector>

#include "fleet/util/huge_page_allocator.h"

namespace fleet::stats {

class SampleBuffer {
 public:
  static constexpr std::size_t kChunk = 8192;  // 64 KiB: below malloc's mmap threshold

  SampleBuffer() = default;
  SampleBuffer(const SampleBuffer& o) { append(o); }
  SampleBuffer& operator=(const SampleBuffer& o);
  // Moves leave the source empty (tail_ points into the chunks that moved).
  SampleBuffer(SampleBuffer&& o) noexcept { swap(o); }
  SampleBuffer& operator=(SampleBuffer&& o) noexcept {
    SampleBuffer tmp(std::move(o));
    swap(tmp);
    return *this;
  }
  void swap(SampleBuffer& o) noexcept;

  void push_back(double v) {
    if (tail_pos_ == kChunk) [[unlikely]]
      next_chunk();
    tail_[tail_pos_++] = v;
  }

  std::size_t size() const { return head_.size() + chunked(); }
  bool empty() const { return size() == 0; }

  void append(const SampleBuffer& other);
  // n doubles in native byte order from memory of any alignment (a message buffer).
  void append_raw(const void* doubles, std::size_t n);
  // Makes room for n more samples and touches it now (page faults happen here, not per push).
  void reserve(std::size_t n);
  // Drops the samples but keeps chunk memory for reuse.
  void clear();
  // Replaces the samples with `v` (taken as one contiguous block, without a copy).
  void assign(util::HugeVector<double> v) {
    clear();
    head_ = std::move(v);
  }
  // Moves all samples into one contiguous array (releasing chunks as they are copied, so the
  // peak stays near 1x) and returns it; callers may reorder it in place.
  std::span<double> contiguous();

  template <class Fn>  // fn(const double* data, std::size_t n) per contiguous block, in order
  void for_each_block(Fn&& fn) const {
    if (!head_.empty()) fn(head_.data(), head_.size());
    if (!tail_) return;
    for (std::size_t c = 0; c < cur_; ++c) fn(chunks_[c].get(), kChunk);
    if (tail_pos_) fn(tail_, tail_pos_);
  }

 private:
  std::size_t chunked() const { return tail_ ? cur_ * kChunk + tail_pos_ : 0; }
  void next_chunk();

  // Contiguous part (after contiguous(), or a part appended whole): the large arrays of a
  // run's end, so on huge pages where the kernel allows (util/huge_page_allocator.h).
  util::HugeVector<double> head_;
  std::vector<std::unique_ptr<double[]>> chunks_;  // [0, cur_] in use, the rest are spare
  std::size_t cur_ = 0;
  double* tail_ = nullptr;         // chunks_[cur_] once the first chunk is in use
  std::size_t tail_pos_ = kChunk;  // == kChunk forces next_chunk() on the next push
};

}  // namespace fleet::stats
