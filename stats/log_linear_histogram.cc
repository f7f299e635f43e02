#include "fleet/stats/log_linear_histogram.h"

#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "fleet/stats/percentile_rank.h"
#include "fleet/util/json_number.h"
#include "fleet/util/leb128.h"

namespace fleet::stats {

namespace {
constexpr int kBits = LogLinearHistogram::kSubBucketBits;
constexpr uint64_t kLinearLimit = uint64_t{1} << (kBits + 1);
}  // namespace

// index = (g << kBits) + (v >> g) with g = max(0, msb(v) - kBits): one bucket per value below
// 2^(kBits+1), then 2^kBits buckets per octave. Contiguous, monotone in v, no table.
std::size_t LogLinearHistogram::bucket_index(uint64_t v) {
  if (v < kLinearLimit) return static_cast<std::size_t>(v);
  const int msb = 63 - std::countl_zero(v);
  const int g = msb - kBits;
  return (static_cast<std::size_t>(g) << kBits) + static_cast<std::size_t>(v >> g);
}

uint64_t LogLinearHistogram::bucket_low(std::size_t index) {
  if (index < kLinearLimit) return index;
  const std::size_t g = (index >> kBits) - 1;
  const uint64_t sub = index - (g << kBits);
  return sub << g;
}

uint64_t LogLinearHistogram::bucket_width(std::size_t index) {
  if (index < kLinearLimit) return 1;
  return uint64_t{1} << ((index >> kBits) - 1);
}

void LogLinearHistogram::add_page(std::size_t page) {
  if (page >= pages_.size()) pages_.resize(page + 1);
  pages_[page].assign(kPageBuckets, 0);
}

uint64_t LogLinearHistogram::bucket_or_zero(std::size_t idx) const {
  const std::size_t page = idx >> kPageBits;
  if (page >= pages_.size() || pages_[page].empty()) return 0;
  return pages_[page][idx & (kPageBuckets - 1)];
}

void LogLinearHistogram::record_n(int64_t value, uint64_t n) {
  if (n == 0) return;
  if (value < 0) value = 0;
  bucket(bucket_index(static_cast<uint64_t>(value))) += n;
  if (count_ == 0) {
    min_ = max_ = value;
  } else {
    min_ = std::min(min_, value);
    max_ = std::max(max_, value);
  }
  count_ += n;
  sum_ += static_cast<uint64_t>(value) * n;
}

void LogLinearHistogram::merge(const LogLinearHistogram& o) {
  if (o.count_ == 0) return;
  for (std::size_t page = 0; page < o.pages_.size(); ++page) {
    if (o.pages_[page].empty()) continue;
    uint64_t* to = &bucket(page << kPageBits);
    const uint64_t* from = o.pages_[page].data();
    for (std::size_t i = 0; i < kPageBuckets; ++i) to[i] += from[i];
  }
  if (count_ == 0) {
    min_ = o.min_;
    max_ = o.max_;
  } else {
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
  }
  count_ += o.count_;
  sum_ += o.sum_;
}

void LogLinearHistogram::clear() { *this = LogLinearHistogram(); }

std::size_t LogLinearHistogram::allocated_pages() const {
  return static_cast<std::size_t>(
      std::count_if(pages_.begin(), pages_.end(), [](const auto& p) { return !p.empty(); }));
}

void LogLinearHistogram::reset() {
  for (std::vector<uint64_t>& page : pages_) std::fill(page.begin(), page.end(), 0);
  count_ = sum_ = 0;
  min_ = max_ = 0;
}

double LogLinearHistogram::mean() const {
  return count_ ? static_cast<double>(sum_) / static_cast<double>(count_) : 0.0;
}

int64_t LogLinearHistogram::percentile(double p) const {
  if (count_ == 0) return 0;
  const uint64_t rank = nearest_rank(p, count_);
  // The extreme ranks are known exactly; only interior ranks need the bucket estimate.
  if (rank == 1) return min_;
  if (rank == count_) return max_;
  uint64_t seen = 0;
  int64_t found = max_;
  bool done = false;
  for_each_bucket([&](std::size_t i, uint64_t count) {
    if (done) return;
    seen += count;
    if (seen >= rank) {
      const uint64_t mid = bucket_low(i) + (bucket_width(i) - 1) / 2;
      found = std::clamp(static_cast<int64_t>(mid), min_, max_);
      done = true;
    }
  });
  return found;
}

nlohmann::json LogLinearHistogram::to_json() const {
  nlohmann::json buckets = nlohmann::json::array();
  for_each_bucket([&](std::size_t i, uint64_t count) {
    buckets.push_back(i);
    buckets.push_back(count);
  });
  return {{"sub_bits", kBits}, {"count", count_}, {"min", min()},
          {"max", max()},      {"sum", sum_},     {"buckets", std::move(buckets)}};
}

namespace {
[[noreturn]] void fail_json(const std::string& why) {
  throw std::invalid_argument("LogLinearHistogram JSON: " + why);
}
}  // namespace

nlohmann::json LogLinearHistogram::to_json_raw_buckets() const {
  // (index - previous index, count) per non-empty bucket, as unsigned LEB128: ~3 bytes each.
  std::vector<uint8_t> raw;
  std::size_t previous = 0;
  for_each_bucket([&](std::size_t i, uint64_t count) {
    util::append_leb128(raw, i - previous);
    util::append_leb128(raw, count);
    previous = i;
  });
  return {{"sub_bits", kBits}, {"count", count_},
          {"min", min()},      {"max", max()},
          {"sum", sum_},       {"buckets_leb128", nlohmann::json::binary(std::move(raw))}};
}

LogLinearHistogram LogLinearHistogram::from_json_raw_buckets(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("buckets_leb128") || !j["buckets_leb128"].is_binary())
    fail_json("\"buckets_leb128\" must be bytes");
  const auto& raw = j["buckets_leb128"].get_binary();
  std::size_t pos = 0;
  auto get = [&]() {
    const std::optional<uint64_t> v = util::read_leb128(raw.data(), raw.size(), pos);
    if (!v) fail_json("\"buckets_leb128\" ends inside a number or one is longer than 64 bits");
    return *v;
  };
  std::vector<uint64_t> pairs;
  uint64_t index = 0;
  while (pos < raw.size()) {
    const uint64_t delta = get();
    if (delta > (UINT64_MAX >> 1) - index) fail_json("bucket index out of range");
    index += delta;
    pairs.push_back(index);
    pairs.push_back(get());
  }
  return from_parts(j, pairs);
}

LogLinearHistogram LogLinearHistogram::from_json(const nlohmann::json& j) {
  if (!j.is_object()) fail_json("not an object");
  if (!j.contains("buckets")) fail_json("missing \"buckets\"");
  const auto& b = j["buckets"];
  if (!b.is_array() || b.size() % 2 != 0) fail_json("\"buckets\" must be [index, count, ...]");
  std::vector<uint64_t> pairs;
  pairs.reserve(b.size());
  for (const auto& v : b) {
    if (!v.is_number_unsigned()) fail_json("non-integer bucket");
    pairs.push_back(v.get<uint64_t>());
  }
  return from_parts(j, pairs);
}

LogLinearHistogram LogLinearHistogram::from_parts(const nlohmann::json& j,
                                                  std::span<const uint64_t> pairs) {
  auto fail = fail_json;
  if (!j.is_object()) fail("not an object");
  for (const char* k : {"sub_bits", "count", "min", "max", "sum"})
    if (!j.contains(k)) fail(std::string("missing \"") + k + "\"");
  if (j["sub_bits"] != kBits)
    fail("sub_bits " + j["sub_bits"].dump() + " != " + std::to_string(kBits));
  LogLinearHistogram h;
  uint64_t total = 0;
  const std::size_t max_index = bucket_index(UINT64_MAX >> 1);
  for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) {
    if (pairs[k] > max_index) fail("bucket index " + std::to_string(pairs[k]) + " out of range");
    // Checked: buckets of 2^64 - 1 and 5 must not pass for a count of 4.
    if (__builtin_add_overflow(total, pairs[k + 1], &total)) fail("bucket counts overflow");
    h.bucket(static_cast<std::size_t>(pairs[k])) += pairs[k + 1];
  }
  try {
    h.count_ = util::json_integer<uint64_t>(j["count"], "count");
    h.sum_ = util::json_integer<uint64_t>(j["sum"], "sum");
    h.min_ = util::json_integer<int64_t>(j["min"], "min");
    h.max_ = util::json_integer<int64_t>(j["max"], "max");
  } catch (const std::exception& e) {
    fail(e.what());
  }
  if (total != h.count_) fail("bucket counts add up to " + std::to_string(total) + ", not count");
  if (h.count_ && (h.min_ < 0 || h.min_ > h.max_)) fail("min/max inconsistent");
  return h;
}

bool LogLinearHistogram::operator==(const LogLinearHistogram& o) const {
  if (count_ != o.count_ || sum_ != o.sum_ || min() != o.min() || max() != o.max()) return false;
  // Pages are compared by content: a page one histogram allocated may hold only zeros.
  const std::size_t pages = std::max(pages_.size(), o.pages_.size());
  for (std::size_t i = 0; i < (pages << kPageBits); ++i)
    if (bucket_or_zero(i) != o.bucket_or_zero(i)) return false;
  return true;
}

}  // namespace fleet::stats
