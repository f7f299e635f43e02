// An exact multinomial resample of a histogram's bucket counts: as many draws, with
// replacement, from the samples the buckets summarise, returned as counts per bucket. Cost
// O(buckets) by sequential binomials, or O(samples x log buckets) sample by sample when a
// histogram has fewer samples than a few per bucket: never one draw per sample of a big run.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace fleet::compare {

class BucketResampler {
 public:
  // `counts`: the histogram's non-empty buckets, in value order; at least one sample.
  explicit BucketResampler(std::vector<uint64_t> counts);

  uint64_t total() const { return total_; }
  // One resample into `out` (resized to the bucket count).
  void draw(std::mt19937_64& rng, std::vector<uint64_t>& out) const;

 private:
  void draw_by_binomials(std::mt19937_64& rng, std::vector<uint64_t>& out) const;
  void draw_by_samples(std::mt19937_64& rng, std::vector<uint64_t>& out) const;

  std::vector<uint64_t> counts_;
  std::vector<uint64_t> cumulative_;  // counts_ summed up to and including each bucket
  uint64_t total_ = 0;
  bool by_samples_ = false;
};

// Binomial(n, p), exactly: inversion for a small mean, Hormann's BTRS rejection sampler for a
// large one. Our own code on mt19937_64, so a seed gives the same draws with any standard
// library.
uint64_t draw_binomial(std::mt19937_64& rng, uint64_t n, double p);

}  // namespace fleet::compare
