// The replay's queue (l2_replayer.cc) of operations whose dependencies are done, smallest (earliest
// dispatch, op index) first. Most operations are ready from the start (at speed 0 all of them
// without a dependency, at their scaled target otherwise): those form one sorted run, built once,
// and only the operations unblocked later go through a heap. A single heap of them all paid a
// log-depth sift with a cache miss per level on every dispatch; the order is the same, since
// (time, index) pairs are unique.
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

  // The operations ready from the start, in any order; called once, before any push.
  void set_initial(std::vector<Entry> initial) {
    if (!std::is_sorted(initial.begin(), initial.end())) std::sort(initial.begin(), initial.end());
    initial_ = std::move(initial);
    next_ = 0;
  }
  void push(int64_t at, uint32_t op) { later_.emplace(at, op); }

  bool empty() const { return next_ == initial_.size() && later_.empty(); }
  const Entry& top() const {
    if (next_ == initial_.size()) return later_.top();
    if (later_.empty() || initial_[next_] < later_.top()) return initial_[next_];
    return later_.top();
  }
  void pop() {
    if (next_ < initial_.size() && (later_.empty() || initial_[next_] < later_.top())) {
      ++next_;
    } else {
      later_.pop();
    }
  }

 private:
  std::vector<Entry> initial_;
  size_t next_ = 0;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> later_;
};

}  // namespace fleet::l2replay::detail
