// HDR-style log-linear histogram over non-negative int64 values (latencies and lateness in
// ns): O(1) record, bounded relative error, mergeable by adding buckets, and small enough on the
// wire (sparse JSON) for workers to ship to the coordinator for live progress and huge runs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <vector>

namespace fleet::stats {

class LogLinearHistogram {
 public:
  // Values below 2^(kSubBucketBits+1) get one bucket each; above that every power-of-two range
  // is split into 2^kSubBucketBits equal buckets, so a bucket is at most 1/1024 of its values
  // wide and the reported midpoint is within 2^-11 (0.049 %) of any value in it.
  static constexpr int kSubBucketBits = 10;

  // Negative values are clamped to 0 (callers that care count them separately).
  void record(int64_t value) { record_n(value, 1); }
  void record_n(int64_t value, uint64_t n);
  void merge(const LogLinearHistogram& other);
  void clear();
  // Zeroes the counts and keeps the pages: a recorder that starts over every second (a window
  // of the replay) records into them again instead of allocating them again.
  void reset();
  std::size_t allocated_pages() const;

  uint64_t count() const { return count_; }
  // Calls fn(index, count) for every non-empty bucket, in index order: what `coordinator
  // compare` resamples.
  template <class Fn>
  void for_each_bucket(Fn&& fn) const {
    for (std::size_t page = 0; page < pages_.size(); ++page) {
      if (pages_[page].empty()) continue;
      const uint64_t* counts = pages_[page].data();
      for (std::size_t i = 0; i < kPageBuckets; ++i)
        if (counts[i]) fn((page << kPageBits) + i, counts[i]);
    }
  }
  int64_t min() const { return count_ ? min_ : 0; }
  int64_t max() const { return count_ ? max_ : 0; }
  double mean() const;  // 0.0 when empty
  // Nearest-rank percentile (same rank rule as the exact stats): exact min/max for the first
  // and last rank, otherwise the midpoint of the bucket holding that rank clamped to
  // [min, max]; 0 when empty.
  int64_t percentile(double p) const;

  // {"sub_bits":10,"count":N,"min":a,"max":b,"sum":s,"buckets":[idx,count,idx,count,...]}
  // with only non-empty buckets. from_json throws std::invalid_argument on malformed input.
  nlohmann::json to_json() const;
  static LogLinearHistogram from_json(const nlohmann::json& j);
  // The same with the buckets as bytes ("buckets_leb128": index delta, count, as unsigned
  // LEB128 varints) instead of a JSON array: a node's DONE carries a few thousand buckets per
  // qualname, and parsing them as JSON values was most of the coordinator's decode (4 nodes:
  // 48 -> 7 ms). Same checks as from_json, and a cut or overlong varint is refused.
  nlohmann::json to_json_raw_buckets() const;
  static LogLinearHistogram from_json_raw_buckets(const nlohmann::json& j);

  bool operator==(const LogLinearHistogram& o) const;

  static std::size_t bucket_index(uint64_t value);
  static uint64_t bucket_low(std::size_t index);
  static uint64_t bucket_width(std::size_t index);

 private:
  // from_json's checks, given the (index, count) pairs however they were stored.
  static LogLinearHistogram from_parts(const nlohmann::json& j, std::span<const uint64_t> pairs);

  // The buckets live in pages of 512 (4 KiB), allocated when a bucket in them is first
  // counted: a run's latencies fill a few pages, and one outlier far above them costs one more
  // page, not the ~20 pages of zeros between (each a page fault, ~10 us on a PVM guest). Each
  // page is its own block: a new one never moves the others (one array of them grew by
  // doubling and copied itself into fresh memory, on the replay's path between two calls:
  // docs/causal-pacing.md, "What is left, edge by edge").
  static constexpr int kPageBits = 9;
  static constexpr std::size_t kPageBuckets = std::size_t{1} << kPageBits;
  uint64_t& bucket(std::size_t idx) {
    const std::size_t page = idx >> kPageBits;
    if (page >= pages_.size() || pages_[page].empty()) add_page(page);
    return pages_[page][idx & (kPageBuckets - 1)];
  }
  uint64_t bucket_or_zero(std::size_t idx) const;
  void add_page(std::size_t page);

  std::vector<std::vector<uint64_t>> pages_;  // by page number; empty: not allocated
  uint64_t count_ = 0;
  uint64_t sum_ = 0;  // exact; 2^64 ns of summed latency is ~584 years
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace fleet::stats
