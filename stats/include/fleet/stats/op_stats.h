// Latency statistics of one qualname, identical to LMCache's ReplayStatsCollector bucket:
// every success keeps its exact sample (ms) so merged fleets get exact nearest-rank
// percentiles over the union; failures only count. A log-linear histogram rides along for
// live progress and for runs too large to ship samples.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "fleet/stats/log_linear_histogram.h"
#include "fleet/stats/sample_buffer.h"
#include "fleet/stats/sorted_runs.h"

namespace fleet::stats {

// One row of trace_replay_ops.csv / trace_replay_summary.json (all 0.0 when count == 0).
struct OpSummary {
  uint64_t count = 0;   // successful samples
  uint64_t errors = 0;  // failed calls (no sample)
  double mean_ms = 0.0;
  double p50_ms = 0.0;
  double p90_ms = 0.0;
  double p99_ms = 0.0;
  double min_ms = 0.0;
  double max_ms = 0.0;
  bool operator==(const OpSummary&) const = default;
};

class OpStats {
 public:
  // Hot path: a chunked push_back and a histogram increment, nothing else.
  void record_success(double latency_ms) {
    if (!shared_runs_.empty()) [[unlikely]]
      materialize();
    samples_.push_back(latency_ms);
    in_runs_ = false;
    histogram_.record(ms_to_ns(latency_ms));
  }
  void record_failure() { ++errors_; }

  // Concatenates samples and adds counters: the summary of a merge is exactly the summary of
  // all samples recorded into one OpStats. Sorted inputs stay known as sorted runs, so the
  // summary merges them in linear time instead of sorting the union.
  void merge(const OpStats& other);
  // A node's part as it arrives in DONE: `n` raw native-order doubles (any alignment), its
  // failures, the histogram of the same samples and, when the node sent them, the exact fsum
  // partials of its samples (stats/fsum.h). Ascending input (the node sorted it, which is
  // checked here) is kept as one sorted run. While every sample arrived with partials, the
  // summary's exact mean is fsum over the partials instead of a pass over every sample.
  void merge_encoded(const void* doubles, std::size_t n, uint64_t errors,
                     const LogLinearHistogram& histogram,
                     const std::vector<double>* sum_partials = nullptr);
  // The same for samples that stay where they are (8-byte aligned, alive while `owner` is):
  // an ascending run is kept by reference and counted and summarised in place (no copy of a
  // node's megabytes); anything else is copied as merge_encoded does.
  void merge_encoded_shared(std::shared_ptr<const void> owner, const double* samples, std::size_t n,
                            uint64_t errors, const LogLinearHistogram& histogram,
                            const std::vector<double>* sum_partials = nullptr);

  // merge() of every part in turn, in one pass when it can: while this holds nothing and every
  // part's samples are runs kept by reference (nodes' DONE messages), this shares those runs
  // and the summary selects its percentiles across them without building the union; when each
  // part is one sorted run of its own, the union is one k-way merge into its final array.
  void merge_all(std::span<const OpStats* const> parts);

  // Puts the samples in ascending order (in place, which does not change the multiset, hence
  // const). Not safe concurrently with record_*() or summary().
  void sort_samples() const;
  // Sorts the samples and keeps their exact-sum partials, so that merging this into another
  // OpStats (merge_all) takes the sorted-run path and the mean is not a second pass over every
  // sample. For a node's own stats before they are merged into the run's.
  void prepare_for_merge();
  // Sorts (see above) and computes LMCache's numbers.
  OpSummary summary() const;

  uint64_t count() const { return samples_.size() + shared_count(); }
  uint64_t errors() const { return errors_; }
  // All samples in ms, contiguous (consolidates the chunks; same caveat as summary()).
  std::span<const double> samples() const {
    materialize();
    return samples_.contiguous();
  }
  // fn(const double* data, std::size_t n) per stored block of samples, in recording order.
  template <class Fn>
  void for_each_sample_block(Fn&& fn) const {
    materialize();
    samples_.for_each_block(std::forward<Fn>(fn));
  }
  const LogLinearHistogram& histogram() const { return histogram_; }  // latency in ns
  // Pre-faults room for n samples so the paced loop takes no page faults for them.
  void reserve(std::size_t n) { samples_.reserve(n); }

  static int64_t ms_to_ns(double ms) {
    const double ns = ms * 1e6 + 0.5;
    if (!(ns >= 0.0)) return 0;  // negatives and NaN
    if (ns >= 9.2e18) return INT64_C(9200000000000000000);
    return static_cast<int64_t>(ns);
  }

 private:
  // After appending samples to the `before` there were: extend the exact-sum partials with
  // theirs, or give up on them when the new samples came without.
  void add_partials(std::size_t before, const std::vector<double>* partials);
  const std::vector<double>* exact_partials() const {
    return partials_cover_ == count() ? &sum_partials_ : nullptr;
  }
  bool one_sorted_run() const { return in_runs_ && run_ends_.size() <= 1; }
  bool only_shared_runs() const { return samples_.empty() && !shared_runs_.empty(); }
  std::size_t shared_count() const {
    std::size_t n = 0;
    for (const auto& r : shared_runs_) n += r.n;
    return n;
  }
  // Moves shared runs into samples_ (sorted, as one run): before anything that needs the
  // samples themselves or adds to them.
  void materialize() const;
  void sort_own_samples() const;  // sort_samples() of samples_ alone
  std::optional<OpSummary> summary_of_shared_runs() const;

  mutable SampleBuffer samples_;
  // Sorted runs held by reference (merge_encoded_shared), besides samples_ (one per node:
  // few). While there are any, samples_ is empty or one sorted run.
  mutable std::vector<SharedRun> shared_runs_;
  // When in_runs_, the samples are ascending runs ending at these indices (one run: sorted;
  // none: empty). record_success() clears in_runs_: order unknown, the summary sorts.
  mutable bool in_runs_ = true;
  mutable std::vector<std::size_t> run_ends_;
  // Exact fsum partials of the first partials_cover_ samples: valid while that is all of them
  // (record_success() grows the samples past it; a merge without partials sets it to npos).
  std::vector<double> sum_partials_;
  std::size_t partials_cover_ = 0;
  mutable OpSummary summary_;  // last summary(), while summary_valid_ and in_runs_
  mutable bool summary_valid_ = false;
  uint64_t errors_ = 0;
  LogLinearHistogram histogram_;
};

}  // namespace fleet::stats
