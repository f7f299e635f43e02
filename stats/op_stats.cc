#include "fleet/stats/op_stats.h"

#include <algorithm>
#include <cstring>
#include <optional>

#include "fleet/stats/fsum.h"
#include "fleet/stats/percentile_rank.h"
#include "fleet/stats/radix_sort.h"

namespace fleet::stats {

void OpStats::merge(const OpStats& other) {
  if (&other == this) {
    const OpStats copy = other;  // appending a buffer to itself would read what it writes
    merge(copy);
    return;
  }
  materialize();
  other.materialize();
  summary_valid_ = false;
  const std::size_t before = samples_.size();
  samples_.append(other.samples_);
  add_partials(before, other.exact_partials());
  if (in_runs_ && other.in_runs_) {
    for (std::size_t end : other.run_ends_) run_ends_.push_back(before + end);
  } else {
    in_runs_ = false;
  }
  errors_ += other.errors_;
  histogram_.merge(other.histogram_);
}

void OpStats::merge_all(std::span<const OpStats* const> parts) {
  const bool all_shared = std::all_of(parts.begin(), parts.end(), [this](const OpStats* p) {
    return p != this && (p->only_shared_runs() || p->count() == 0);
  });
  const bool all_sorted = std::all_of(parts.begin(), parts.end(), [this](const OpStats* p) {
    return p != this && p->one_sorted_run();
  });
  if (count() != 0 || !(all_shared || all_sorted)) {
    for (const OpStats* p : parts) merge(*p);
    return;
  }
  summary_valid_ = false;
  std::size_t total = 0;
  bool exact_sum = partials_cover_ == 0;  // as add_partials() would decide part by part
  std::vector<std::span<const double>> runs;
  for (const OpStats* p : parts) {
    if (all_shared) {
      shared_runs_.insert(shared_runs_.end(), p->shared_runs_.begin(), p->shared_runs_.end());
    } else {
      runs.push_back(p->samples());
    }
    total += p->count();
    if (const auto* partials = p->exact_partials(); exact_sum && partials) {
      sum_partials_.insert(sum_partials_.end(), partials->begin(), partials->end());
    } else {
      exact_sum = false;
    }
    errors_ += p->errors_;
    histogram_.merge(p->histogram_);
  }
  if (!all_shared) {
    util::HugeVector<double> sorted;
    sorted.reserve(total);
    merge_sorted_runs(runs, sorted);
    samples_.assign(std::move(sorted));
    in_runs_ = true;
    run_ends_.assign(1, total);
  }
  partials_cover_ = exact_sum ? total : static_cast<std::size_t>(-1);
}

void OpStats::merge_encoded(const void* doubles, std::size_t n, uint64_t errors,
                            const LogLinearHistogram& histogram,
                            const std::vector<double>* sum_partials) {
  materialize();
  summary_valid_ = false;
  const std::size_t before = samples_.size();
  samples_.append_raw(doubles, n);
  add_partials(before, sum_partials);
  errors_ += errors;
  histogram_.merge(histogram);
  if (n == 0 || !in_runs_) return;
  const auto* bytes = static_cast<const unsigned char*>(doubles);
  double prev, cur;
  std::memcpy(&prev, bytes, sizeof prev);
  if (prev != prev) {
    in_runs_ = false;
    return;
  }
  for (std::size_t i = 1; i < n; ++i, prev = cur) {
    std::memcpy(&cur, bytes + i * sizeof cur, sizeof cur);
    if (cur < prev || cur != cur) {  // descending or NaN: not a sorted run
      in_runs_ = false;
      return;
    }
  }
  run_ends_.push_back(before + n);
}

void OpStats::merge_encoded_shared(std::shared_ptr<const void> owner, const double* samples,
                                   std::size_t n, uint64_t errors,
                                   const LogLinearHistogram& histogram,
                                   const std::vector<double>* sum_partials) {
  const bool ascending = n > 0 && samples[0] == samples[0] &&
                         std::adjacent_find(samples, samples + n, [](double a, double b) {
                           return !(a <= b);  // descending, or NaN
                         }) == samples + n;
  if (!ascending || !samples_.empty()) {
    merge_encoded(samples, n, errors, histogram, sum_partials);
    return;
  }
  summary_valid_ = false;
  const std::size_t before = count();
  shared_runs_.push_back({std::move(owner), samples, n});
  add_partials(before, sum_partials);
  errors_ += errors;
  histogram_.merge(histogram);
}

void OpStats::materialize() const {
  if (shared_runs_.empty()) return;
  std::vector<std::span<const double>> runs;
  if (!samples_.empty()) {
    sort_own_samples();
    runs.push_back(samples_.contiguous());
  }
  for (const auto& r : shared_runs_) runs.push_back(r.span());
  util::HugeVector<double> merged;
  merged.reserve(count());
  merge_sorted_runs(runs, merged);
  samples_.assign(std::move(merged));
  shared_runs_.clear();
  in_runs_ = true;
  run_ends_.assign(1, samples_.size());
}

void OpStats::add_partials(std::size_t before, const std::vector<double>* partials) {
  if (partials && partials_cover_ == before) {
    sum_partials_.insert(sum_partials_.end(), partials->begin(), partials->end());
    partials_cover_ = count();
  } else {
    partials_cover_ = static_cast<std::size_t>(-1);  // the mean needs every sample again
  }
}

void OpStats::sort_samples() const {
  materialize();
  sort_own_samples();
}

void OpStats::prepare_for_merge() {
  sort_samples();
  if (partials_cover_ == count()) return;
  if (auto partials = fsum_partials(samples_.contiguous())) {
    sum_partials_ = std::move(*partials);
    partials_cover_ = count();
  }
}

void OpStats::sort_own_samples() const {
  if (in_runs_ && run_ends_.size() <= 1) return;
  const std::span<double> v = samples_.contiguous();
  if (!in_runs_) {
    sort_doubles(v.data(), v.size());
  } else {
    // Merge neighbouring runs pairwise until one is left: O(n log runs).
    std::vector<std::size_t> ends = run_ends_;
    while (ends.size() > 1) {
      std::vector<std::size_t> merged;
      std::size_t begin = 0;
      for (std::size_t i = 0; i < ends.size(); i += 2) {
        if (i + 1 < ends.size()) {
          std::inplace_merge(v.begin() + begin, v.begin() + ends[i], v.begin() + ends[i + 1]);
          merged.push_back(ends[i + 1]);
        } else {
          merged.push_back(ends[i]);
        }
        begin = merged.back();
      }
      ends.swap(merged);
    }
  }
  in_runs_ = true;
  run_ends_.assign(1, v.size());
}

OpSummary OpStats::summary() const {
  // Every output asks for the summary; the exact mean is a pass over all samples, so keep it.
  // Valid until the samples change: record_success() clears in_runs_, merges clear the flag.
  if (summary_valid_ && in_runs_) {
    OpSummary s = summary_;
    s.errors = errors_;
    return s;
  }
  if (only_shared_runs()) {
    if (auto shared = summary_of_shared_runs()) {
      summary_ = *shared;
      summary_valid_ = true;
      return *shared;
    }
  }
  OpSummary s;
  s.errors = errors_;
  sort_samples();
  s.count = samples_.size();
  if (samples_.empty()) return s;
  const std::span<double> v = samples_.contiguous();
  const auto n = static_cast<uint64_t>(v.size());
  auto pct = [&](double p) { return v[nearest_rank(p, n) - 1]; };
  // fsum over the nodes' partials is fsum over their samples (stats/fsum.h), bit for bit.
  s.mean_ms = partials_cover_ == v.size() ? fsum(sum_partials_) / static_cast<double>(n) : fmean(v);
  s.p50_ms = pct(50);
  s.p90_ms = pct(90);
  s.p99_ms = pct(99);
  s.min_ms = v.front();
  s.max_ms = v.back();
  summary_ = s;
  summary_valid_ = true;
  return s;
}

// The summary straight from the shared runs: percentiles by selection across them, the exact
// mean from partials (the nodes' own or each run's). nullopt when a run's sum is not finite.
std::optional<OpSummary> OpStats::summary_of_shared_runs() const {
  std::vector<std::span<const double>> runs;
  for (const auto& r : shared_runs_) runs.push_back(r.span());
  const uint64_t n = count();
  double sum;
  if (const auto* partials = exact_partials()) {
    sum = fsum(*partials);
  } else {
    std::vector<double> all_partials;
    for (const auto& r : runs) {
      auto p = fsum_partials(r);
      if (!p) return std::nullopt;
      all_partials.insert(all_partials.end(), p->begin(), p->end());
    }
    sum = fsum(all_partials);
  }
  OpSummary s;
  s.errors = errors_;
  s.count = n;
  s.mean_ms = sum / static_cast<double>(n);
  s.p50_ms = select_rank(runs, nearest_rank(50, n));
  s.p90_ms = select_rank(runs, nearest_rank(90, n));
  s.p99_ms = select_rank(runs, nearest_rank(99, n));
  s.min_ms = select_rank(runs, 1);
  s.max_ms = select_rank(runs, n);
  return s;
}

}  // namespace fleet::stats
