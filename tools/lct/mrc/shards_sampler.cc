#include "mrc/shards_sampler.h"

#include <algorithm>
#include <cmath>

namespace fleet::mrc {

namespace {

constexpr uint64_t kFnvPrime = 0x100000001b3ull;

uint64_t fnv1a(uint64_t h, const void* data, size_t n) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kFnvPrime;
  return h;
}

uint64_t fnv1a_int(uint64_t h, int64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; ++i)
    b[i] = static_cast<unsigned char>(static_cast<uint64_t>(v) >> (8 * i));
  return fnv1a(h, b, sizeof b);
}

uint64_t splitmix64(uint64_t x) {
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

uint64_t stable_key_hash(const trace::ObjectKey& key) {
  uint64_t h = trace::chunk_identity_hash(key.model_name, key.chunk_hash.view());
  h = fnv1a_int(h, key.kv_rank);
  h = fnv1a_int(h, key.object_group_id);
  h = fnv1a(h, key.cache_salt.data(), key.cache_salt.size());
  return splitmix64(h);
}

ShardsSampler::ShardsSampler(double rate) {
  constexpr double kModulus = static_cast<double>(uint64_t{1} << kModulusBits);
  threshold_ = static_cast<uint64_t>(
      std::clamp(std::llround(rate * kModulus), 1ll, static_cast<long long>(kModulus)));
  effective_rate_ = static_cast<double>(threshold_) / kModulus;
}

}  // namespace fleet::mrc
