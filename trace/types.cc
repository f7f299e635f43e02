#include "fleet/trace/types.h"

#include <array>
#include <bit>
#include <cstring>
#include <functional>
#include <utility>

namespace fleet::trace {

namespace {

constexpr uint64_t kFnvOffset = 1469598103934665603ull;
constexpr uint64_t kFnvPrime = 1099511628211ull;

uint64_t fnv1a(uint64_t h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= kFnvPrime;
  }
  return h;
}

struct DTypeInfo {
  DType type;
  std::string_view name;
  uint32_t itemsize;
};

constexpr std::array<DTypeInfo, 12> kDTypes = {{
    {DType::Float16, "torch.float16", 2},
    {DType::BFloat16, "torch.bfloat16", 2},
    {DType::Float32, "torch.float32", 4},
    {DType::Float64, "torch.float64", 8},
    {DType::Float8E4M3FN, "torch.float8_e4m3fn", 1},
    {DType::Float8E5M2, "torch.float8_e5m2", 1},
    {DType::Int8, "torch.int8", 1},
    {DType::UInt8, "torch.uint8", 1},
    {DType::Int16, "torch.int16", 2},
    {DType::Int32, "torch.int32", 4},
    {DType::Int64, "torch.int64", 8},
    {DType::Bool, "torch.bool", 1},
}};

}  // namespace

// Word-at-a-time multiply/rotate over the chunk hash bytes with a final avalanche: chunk hashes
// are short (4-32 bytes) and, in real traces, already random, so a murmur-class hash
// (std::hash) only costs more (it was ~18% of the engine's write path).
static uint64_t hash_chunk_bytes(std::string_view b) {
  constexpr uint64_t k1 = 0x87c37b91114253d5ull, k2 = 0x4cf5ad432745937full;
  uint64_t h = 0x9e3779b97f4a7c15ull ^ (b.size() * k2);
  size_t i = 0;
  for (; i + 8 <= b.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, b.data() + i, 8);
    h = std::rotl(h ^ (w * k1), 31) * k2;
  }
  if (i < b.size()) {
    uint64_t w = 0;
    std::memcpy(&w, b.data() + i, b.size() - i);
    h = std::rotl(h ^ (w * k1), 31) * k2;
  }
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdull;
  h ^= h >> 33;
  return h;
}

size_t ObjectKeyHash::operator()(const ObjectKey& k) const noexcept {
  // In-process only (never persisted or sent). Symbols are interned: their addresses identify
  // them within the process.
  uint64_t h = hash_chunk_bytes(k.chunk_hash) * 0x9e3779b97f4a7c15ull;
  h ^= reinterpret_cast<uintptr_t>(k.model_name.id()) * 0x7f4a7c159e3779b9ull + (h << 6) + (h >> 2);
  h ^= static_cast<uint64_t>(k.kv_rank) * 0x9e3779b97f4a7c15ull;
  h ^= static_cast<uint64_t>(k.object_group_id) * 0xc2b2ae3d27d4eb4full;
  h ^= reinterpret_cast<uintptr_t>(k.cache_salt.id()) * 0xff51afd7ed558ccdull;
  return static_cast<size_t>(h ^ (h >> 29));
}

uint64_t chunk_identity_hash(std::string_view model_name, std::string_view chunk_hash) {
  return chunk_identity_hash_continue(chunk_identity_model_state(model_name), chunk_hash);
}

uint64_t chunk_identity_model_state(std::string_view model_name) {
  return fnv1a(kFnvOffset, model_name);
}

uint64_t chunk_identity_hash_continue(uint64_t model_state, std::string_view chunk_hash) {
  return fnv1a(model_state ^ 0xff, chunk_hash);
}

uint64_t chunk_lifecycle_id(uint64_t model_state, std::string_view chunk_hash) {
  uint64_t h = hash_chunk_bytes(chunk_hash) ^ (model_state * 0x9e3779b97f4a7c15ull);
  h ^= h >> 31;
  return h * 0xbf58476d1ce4e5b9ull;
}

uint64_t stable_key_id(const ObjectKey& k) {
  uint64_t h = chunk_identity_hash(k.model_name, k.chunk_hash.view());
  const int64_t ints[2] = {k.kv_rank, k.object_group_id};
  h = fnv1a(h, std::string_view(reinterpret_cast<const char*>(ints), sizeof ints));
  return fnv1a(h ^ 0xff, k.cache_salt);
}

std::optional<DType> parse_dtype(std::string_view name) {
  for (const auto& d : kDTypes)
    if (d.name == name) return d.type;
  return std::nullopt;
}

std::string_view dtype_name(DType t) {
  for (const auto& d : kDTypes)
    if (d.type == t) return d.name;
  return "?";
}

uint32_t dtype_itemsize(DType t) {
  for (const auto& d : kDTypes)
    if (d.type == t) return d.itemsize;
  return 1;
}

uint64_t MemoryLayout::object_bytes() const {
  uint64_t total = 0;
  for (size_t i = 0; i < shapes.size() && i < dtypes.size(); ++i) {
    uint64_t n = 1;
    for (int64_t d : shapes[i]) n *= static_cast<uint64_t>(d < 0 ? 0 : d);
    total += n * dtype_itemsize(dtypes[i]);
  }
  return total;
}

namespace {
template <class E, size_t N>
std::optional<E> lookup(const std::array<std::pair<E, std::string_view>, N>& table,
                        std::string_view name) {
  for (const auto& [e, n] : table)
    if (n == name) return e;
  return std::nullopt;
}
template <class E, size_t N>
std::string_view name_of(const std::array<std::pair<E, std::string_view>, N>& table, E e) {
  for (const auto& [v, n] : table)
    if (v == e) return n;
  return "?";
}
constexpr std::array<std::pair<TrimPolicy, std::string_view>, 3> kTrim = {{
    {TrimPolicy::Prefix, "PREFIX"},
    {TrimPolicy::SegmentedPrefix, "SEGMENTED_PREFIX"},
    {TrimPolicy::Sparse, "SPARSE"},
}};
constexpr std::array<std::pair<PrefetchMode, std::string_view>, 2> kModes = {{
    {PrefetchMode::Lookup, "LOOKUP"},
    {PrefetchMode::Warm, "WARM"},
}};
constexpr std::array<std::pair<WriteMode, std::string_view>, 3> kWrite = {{
    {WriteMode::New, "new"},
    {WriteMode::Update, "update"},
    {WriteMode::All, "all"},
}};
}  // namespace

std::optional<TrimPolicy> parse_trim_policy(std::string_view n) { return lookup(kTrim, n); }
std::string_view trim_policy_name(TrimPolicy p) { return name_of(kTrim, p); }
std::optional<PrefetchMode> parse_prefetch_mode(std::string_view n) { return lookup(kModes, n); }
std::string_view prefetch_mode_name(PrefetchMode m) { return name_of(kModes, m); }
std::optional<WriteMode> parse_write_mode(std::string_view n) { return lookup(kWrite, n); }
std::string_view write_mode_name(WriteMode m) { return name_of(kWrite, m); }

}  // namespace fleet::trace
