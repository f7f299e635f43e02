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

  uint64_t count() const { return count_; }
  // Count per bucket index (trailing buckets may be absent): what `coordinator compare`
  // resamples.
  std::span<const uint64_t> bucket_counts() const { return counts_; }
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

  void grow(std::size_t idx);

  std::vector<uint64_t> counts_;  // grown on demand: most runs never touch the high buckets
  uint64_t count_ = 0;
  uint64_t sum_ = 0;  // exact; 2^64 ns of summed latency is ~584 years
  int64_t min_ = 0;
  int64_t max_ = 0;
};

}  // namespace fleet::stats
