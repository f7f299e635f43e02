#include "fleet/replay/window_sampler.h"

#include <algorithm>

namespace fleet::replay {

WindowSampler::WindowSampler(engine::Engine& engine, int64_t t0_ns, WindowSink sink)
    : engine_(engine),
      sink_(std::move(sink)),
      t0_ns_(t0_ns),
      window_end_ns_(t0_ns + stats::kRunWindowNs) {}

// Closes the window that ended, then jumps to the one holding `now_ns`: the windows in between
// held no record, and writing each (a virtual clock crosses a day-long gap in the recording in
// one step) would cost a row per idle second. Readers treat a missing window as empty.
void WindowSampler::close_until(int64_t now_ns) {
  close_current();
  const int64_t behind = (now_ns - window_end_ns_) / stats::kRunWindowNs;
  window_end_ns_ += (behind + 1) * stats::kRunWindowNs;
}

namespace {

uint64_t minus(uint64_t now, uint64_t before) { return now >= before ? now - before : 0; }

// Nearest-rank p99 of the window's L2 latencies (a window holds at most a few thousand ops).
int64_t p99(std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  const size_t rank = std::max<size_t>((v.size() * 99 + 99) / 100, 1) - 1;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(rank), v.end());
  return v[rank];
}

}  // namespace

void WindowSampler::close_current() {
  stats::RunWindow& w = cur_;
  w.index = (window_end_ns_ - t0_ns_) / stats::kRunWindowNs - 1;
  w.paced = lateness_.count();
  w.lateness_p50_ns = lateness_.percentile(50);
  w.lateness_p99_ns = lateness_.percentile(99);
  w.lateness_max_ns = w.paced ? max_lateness_ : 0;

  const engine::CacheOutcome now = engine_.cache_outcome();
  const engine::PrefetchOutcome &a = now.lookup, &b = last_.lookup;
  w.lookup_keys = minus(a.decided().keys, b.decided().keys);
  w.lookup_bytes = minus(a.decided().bytes, b.decided().bytes);
  w.l1_hit_keys = minus(a.l1.keys, b.l1.keys);
  w.l1_hit_bytes = minus(a.l1.bytes, b.l1.bytes);
  w.l2_hit_keys = minus(a.l2_total().keys, b.l2_total().keys);
  w.l2_hit_bytes = minus(a.l2_total().bytes, b.l2_total().bytes);
  w.missed_keys = minus(a.missed().keys, b.missed().keys);
  w.stored_keys = minus(now.stored_keys, last_.stored_keys);
  w.evicted_keys = minus(now.evicted.keys, last_.evicted.keys);
  w.refused_oom_keys = minus(now.write_refused_oom.keys, last_.write_refused_oom.keys);
  last_ = now;

  std::vector<engine::L2Op> ops = engine_.take_l2_ops();
  std::vector<int64_t> latencies;
  latencies.reserve(ops.size());
  for (const engine::L2Op& op : ops) {
    ++w.l2_ops;
    w.l2_failed += !op.ok;
    w.l2_bytes += op.bytes;
    latencies.push_back(op.latency_ns);
  }
  w.l2_p99_ns = p99(latencies);
  l2_ops_.insert(l2_ops_.end(), ops.begin(), ops.end());

  sink_(w);
  cur_ = stats::RunWindow{};
  lateness_.reset();  // its pages stay: the next window records into them without allocating
  max_lateness_ = 0;
}

std::vector<engine::L2Op> WindowSampler::finish() {
  if (sink_) close_current();
  std::vector<engine::L2Op> all(l2_ops_.begin(), l2_ops_.end());
  l2_ops_.clear();
  std::vector<engine::L2Op> rest = engine_.take_l2_ops();
  all.insert(all.end(), rest.begin(), rest.end());
  return all;
}

}  // namespace fleet::replay
