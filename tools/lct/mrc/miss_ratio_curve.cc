#include "mrc/miss_ratio_curve.h"

#include <algorithm>
#include <cmath>

#include "mrc/stack_distance.h"

namespace fleet::mrc {

MissRatioCurve MissRatioCurve::compute(const AccessStream& stream) {
  MissRatioCurve c;
  c.rate_ = stream.sample_rate;
  const long double inv = 1.0L / c.rate_;
  auto estimate = [&](uint64_t d) -> uint64_t {
    if (c.rate_ == 1.0 || d == StackDistance::kColdMiss) return d;
    return static_cast<uint64_t>(std::llroundl(static_cast<long double>(d) * inv));
  };
  c.trace_accesses_ = stream.trace_counts.all();
  c.distinct_ = stream.distinct_keys;
  StackDistance stack;
  for (const Access& a : stream.accesses) {
    if (a.kind() == AccessKind::Forget) {
      stack.forget(a.key);
      continue;
    }
    uint64_t bytes = stream.bytes(a);
    uint64_t d = stack.access(a.key, bytes);
    c.hist_.add(estimate(d), bytes, a.kind() == AccessKind::Lookup);
    c.peak_bytes_ = std::max(c.peak_bytes_, stack.resident_bytes());
    if (c.smallest_ == 0 || bytes < c.smallest_) c.smallest_ = bytes;
  }
  c.hist_.freeze();
  return c;
}

uint64_t MissRatioCurve::scaled(uint64_t sampled) const {
  return rate_ == 1.0 ? sampled : static_cast<uint64_t>(std::llround(sampled / rate_));
}

uint64_t MissRatioCurve::cold_misses() const { return scaled(hist_.cold().accesses); }
uint64_t MissRatioCurve::distinct_keys() const { return scaled(distinct_); }
uint64_t MissRatioCurve::working_set_bytes() const { return scaled(peak_bytes_); }

CurvePoint MissRatioCurve::at(uint64_t size_bytes) const {
  const Tally& all = hist_.total();
  Tally m = hist_.misses(size_bytes);
  auto ratio = [](uint64_t part, uint64_t whole) {
    return whole == 0 ? 0.0 : static_cast<double>(part) / static_cast<double>(whole);
  };
  CurvePoint p;
  p.size_bytes = size_bytes;
  p.miss_ratio = ratio(m.accesses, all.accesses);
  p.byte_miss_ratio = ratio(m.bytes, all.bytes);
  p.lookup_miss_ratio = ratio(m.lookups, all.lookups);
  p.accesses = trace_accesses_;
  p.misses = rate_ == 1.0 ? m.accesses
                          : static_cast<uint64_t>(
                                std::llround(p.miss_ratio * static_cast<double>(trace_accesses_)));
  return p;
}

uint64_t MissRatioCurve::step_at_or_below(uint64_t size_bytes) const {
  return hist_.step_at_or_below(size_bytes);
}

std::vector<uint64_t> log_spaced_sizes(uint64_t lo, uint64_t hi, size_t points) {
  std::vector<uint64_t> out;
  if (points == 0 || lo == 0 || hi < lo) return out;
  double a = std::log(static_cast<double>(lo)), b = std::log(static_cast<double>(hi));
  for (size_t i = 0; i < points; ++i) {
    double f = points == 1 ? 1.0 : static_cast<double>(i) / static_cast<double>(points - 1);
    uint64_t s = i == 0            ? lo
                 : i + 1 == points ? hi
                                   : static_cast<uint64_t>(std::llround(std::exp(a + f * (b - a))));
    if (out.empty() || s > out.back()) out.push_back(s);
  }
  return out;
}

}  // namespace fleet::mrc
