#include "fleet/stats/op_stats.h"

#include <algorithm>
#include <cstring>

#include "fleet/stats/fsum.h"
#include "fleet/stats/percentile_rank.h"

namespace fleet::stats {

void OpStats::merge(const OpStats& other) {
  if (&other == this) {
    const OpStats copy = other;  // appending a buffer to itself would read what it writes
    merge(copy);
    return;
  }
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

namespace {

// Up to kFanIn ascending runs merged into `out` by picking the least head each time: for a
// handful of runs a scan of the heads beats a heap by several times (measured: the heap cost
// ~170 instructions per sample for 4 nodes).
constexpr std::size_t kFanIn = 8;

void merge_few_runs(std::span<const std::span<const double>> runs, util::HugeVector<double>& out) {
  const double* head[kFanIn];
  const double* end[kFanIn];
  std::size_t k = 0;
  for (const auto& r : runs) {
    if (r.empty()) continue;
    head[k] = r.data();
    end[k] = r.data() + r.size();
    ++k;
  }
  while (k > 1) {
    std::size_t best = 0;
    for (std::size_t i = 1; i < k; ++i)
      if (*head[i] < *head[best]) best = i;
    out.push_back(*head[best]++);
    if (head[best] == end[best]) {  // run done: close the gap, keeping the others' order
      for (std::size_t i = best + 1; i < k; ++i) {
        head[i - 1] = head[i];
        end[i - 1] = end[i];
      }
      --k;
    }
  }
  if (k == 1) out.insert(out.end(), head[0], end[0]);
}

// The ascending union of ascending runs, appended to `out`: groups of kFanIn runs are merged
// into temporaries, then the groups, so each sample is written log_8(runs) times.
void merge_sorted_runs(std::span<const std::span<const double>> runs, util::HugeVector<double>& out) {
  if (runs.size() <= kFanIn) {
    merge_few_runs(runs, out);
    return;
  }
  std::vector<util::HugeVector<double>> groups;
  for (std::size_t i = 0; i < runs.size(); i += kFanIn) {
    const auto part = runs.subspan(i, std::min(kFanIn, runs.size() - i));
    std::size_t n = 0;
    for (const auto& r : part) n += r.size();
    groups.emplace_back().reserve(n);
    merge_few_runs(part, groups.back());
  }
  std::vector<std::span<const double>> merged(groups.begin(), groups.end());
  merge_sorted_runs(merged, out);
}

}  // namespace

void OpStats::merge_all(std::span<const OpStats* const> parts) {
  const bool all_sorted = std::all_of(parts.begin(), parts.end(),
                                      [this](const OpStats* p) { return p != this && p->one_sorted_run(); });
  if (!samples_.empty() || !all_sorted) {
    for (const OpStats* p : parts) merge(*p);
    return;
  }
  summary_valid_ = false;
  std::size_t total = 0;
  bool exact_sum = partials_cover_ == 0;  // as add_partials() would decide part by part
  std::vector<std::span<const double>> runs;
  for (const OpStats* p : parts) {
    runs.push_back(p->samples());
    total += p->count();
    if (const auto* partials = p->exact_partials(); exact_sum && partials) {
      sum_partials_.insert(sum_partials_.end(), partials->begin(), partials->end());
    } else {
      exact_sum = false;
    }
    errors_ += p->errors_;
    histogram_.merge(p->histogram_);
  }
  util::HugeVector<double> sorted;
  sorted.reserve(total);
  merge_sorted_runs(runs, sorted);
  samples_.assign(std::move(sorted));
  partials_cover_ = exact_sum ? total : static_cast<std::size_t>(-1);
  in_runs_ = true;
  run_ends_.assign(1, total);
}

void OpStats::merge_encoded(const void* doubles, std::size_t n, uint64_t errors,
                            const LogLinearHistogram& histogram,
                            const std::vector<double>* sum_partials) {
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

void OpStats::add_partials(std::size_t before, const std::vector<double>* partials) {
  if (partials && partials_cover_ == before) {
    sum_partials_.insert(sum_partials_.end(), partials->begin(), partials->end());
    partials_cover_ = samples_.size();
  } else {
    partials_cover_ = static_cast<std::size_t>(-1);  // the mean needs every sample again
  }
}

void OpStats::sort_samples() const {
  if (in_runs_ && run_ends_.size() <= 1) return;
  const std::span<double> v = samples_.contiguous();
  if (!in_runs_) {
    std::sort(v.begin(), v.end());
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
  OpSummary s;
  s.errors = errors_;
  s.count = samples_.size();
  if (samples_.empty()) return s;
  sort_samples();
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

}  // namespace fleet::stats
