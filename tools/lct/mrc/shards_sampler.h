// SHARDS fixed-rate spatial sampling (Waldspurger et al., FAST '15): a key is sampled iff
// hash(key) mod P < T with P = 2^24 and T = round(R * P), so a key is either always or never
// in the sample and the sample's reuse pattern is the trace's, thinned by R.
#pragma once

#include <cstdint>

#include "fleet/trace/types.h"

namespace fleet::mrc {

// A 64-bit hash of every ObjectKey field, stable across builds and hosts: FNV-1a (the
// project's chunk identity hash of model_name and chunk_hash, continued over kv_rank,
// object_group_id and cache_salt), then a splitmix64 finaliser so its top bits are uniform.
uint64_t stable_key_hash(const trace::ObjectKey& key);

class ShardsSampler {
 public:
  static constexpr uint32_t kModulusBits = 24;

  // 0 < rate <= 1 (checked by the caller). rate 1 keeps every key.
  explicit ShardsSampler(double rate);

  bool keep(uint64_t key_hash) const { return (key_hash >> (64 - kModulusBits)) < threshold_; }
  // T / P: the rate actually applied, by which distances and counts are scaled.
  double effective_rate() const { return effective_rate_; }

 private:
  uint64_t threshold_;
  double effective_rate_;
};

}  // namespace fleet::mrc
