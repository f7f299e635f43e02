// The replay's queue (l2_replayer.cc) of operations whose dependencies are done, smallest (earliest
// dispatch, op index) first. Most operations are ready from the start (at speed 0 all of them
// without a dependency, at their scaled target otherwise): those form one sorted run, built once.
// The operations unblocked later mostly arrive in order too (unblocked at the loop's clock, which
// only grows, and in completion order): each that is not smaller than the last such one joins a
// second sorted run, and only the rest go through a heap. A single heap of them all paid a
// log-depth sift with a cache miss per level on every dispatch (at speed 0 about 100,000 loads
// wait in it while the first run drains); the order is the same, since (time, index) pairs are
// unique and the queue pops the smallest head of the three.
// Pushes are gathered until the queue is next read and joined sorted: the ops one batch of
// completions unblocks share a clock reading but arrive in completion order, so one at a time
// every op smaller than its predecessor went to the heap (and out of reach of `ahead`).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>
#include <utility>
#include <vector>

namespace fleet::l2replay::detail {

class ReadyQueue {
 public:
  using Entry = std::pair<int64_t, uint32_t>;  // (earliest dispatch, op): file order on ties
  static constexpr uint32_t kNoOp = UINT32_MAX;

  // The operations ready from the start, in any order; called once, before any push.
  void set_initial(std::vector<Entry> initial) {
    if (!std::is_sorted(initial.begin(), initial.end())) std::sort(initial.begin(), initial.end());
    initial_.entries = std::move(initial);
    initial_.next = 0;
  }
  void push(int64_t at, uint32_t op) { pending_.emplace_back(at, op); }

  bool empty() {
    settle();
    return initial_.empty() && rising_.empty() && later_.empty();
  }
  const Entry& top() {
    settle();
    switch (smallest()) {
      case Source::Initial:
        return initial_.head();
      case Source::Rising:
        return rising_.head();
      default:
        return later_.top();
    }
  }
  void pop() {
    settle();
    switch (smallest()) {
      case Source::Initial:
        ++initial_.next;
        break;
      case Source::Rising:
        ++rising_.next;
        break;
      default:
        later_.pop();
    }
  }
  // The op `k` places behind the head in the sorted run the head comes from, or kNoOp (the
  // head is the heap's, or the run is shorter): which ops the replay is about to dispatch, for
  // prefetching.
  uint32_t ahead(size_t k) {
    settle();
    const Source s = smallest();
    const Run* run = s == Source::Initial ? &initial_ : s == Source::Rising ? &rising_ : nullptr;
    if (!run || run->next + k >= run->entries.size()) return kNoOp;
    return run->entries[run->next + k].second;
  }

 private:
  enum class Source { Initial, Rising, Heap };
  struct Run {
    std::vector<Entry> entries;
    size_t next = 0;
    bool empty() const { return next == entries.size(); }
    const Entry& head() const { return entries[next]; }
    void restart() {  // drained: reuse its memory
      entries.clear();
      next = 0;
    }
  };

  // The pushes since the last read, sorted: those above the rising run's tail extend it, the
  // rest go to the heap.
  void settle() {
    if (pending_.empty()) return;
    if (!std::is_sorted(pending_.begin(), pending_.end()))
      std::sort(pending_.begin(), pending_.end());
    if (rising_.empty()) rising_.restart();
    auto cut = pending_.begin();
    if (!rising_.entries.empty())
      cut = std::upper_bound(pending_.begin(), pending_.end(), rising_.entries.back());
    for (auto it = pending_.begin(); it != cut; ++it) later_.push(*it);
    rising_.entries.insert(rising_.entries.end(), cut, pending_.end());
    pending_.clear();
  }

  Source smallest() const {
    Source s = Source::Heap;
    const Entry* best = later_.empty() ? nullptr : &later_.top();
    if (!rising_.empty() && (!best || rising_.head() < *best)) {
      s = Source::Rising;
      best = &rising_.head();
    }
    if (!initial_.empty() && (!best || initial_.head() < *best)) s = Source::Initial;
    return s;
  }

  Run initial_;
  Run rising_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> later_;
  std::vector<Entry> pending_;
};

}  // namespace fleet::l2replay::detail
