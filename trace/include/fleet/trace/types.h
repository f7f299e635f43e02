// First-class C++ types for what LMCache's codecs carry (docs/trace-format.md §4.3): ObjectKey,
// MemoryLayoutDesc, TrimPolicy, PrefetchMode, AttnWindowDesc and PrefetchRequestSpec.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/trace/key_parts.h"

namespace fleet::trace {

// One chunk of KV cache as LMCache names it. Equality is over all fields (as Python's).
// Copying, comparing and hashing a key never allocates (key_parts.h).
struct ObjectKey {
  ChunkHash chunk_hash;  // raw bytes
  Symbol model_name;
  int64_t kv_rank = 0;
  int64_t object_group_id = 0;
  Symbol cache_salt;

  bool operator==(const ObjectKey&) const = default;
  auto operator<=>(const ObjectKey&) const = default;
};

struct ObjectKeyHash {
  size_t operator()(const ObjectKey& k) const noexcept;
};

// 64-bit hash of (model_name, chunk_hash): the chunk identity used for key sharding. Stable
// across builds and hosts (FNV-1a), unlike std::hash.
uint64_t chunk_identity_hash(std::string_view model_name, std::string_view chunk_hash);
// The same hash in two steps, so a scan hashes a record's shared model name once:
// chunk_identity_hash(m, h) == chunk_identity_hash_continue(chunk_identity_model_state(m), h).
uint64_t chunk_identity_model_state(std::string_view model_name);
uint64_t chunk_identity_hash_continue(uint64_t model_state, std::string_view chunk_hash);
// The same identity for in-process use only (the time router's lifecycle table): word-at-a-time
// over the chunk hash, ~4x cheaper than FNV's byte chain; not stable across builds.
uint64_t chunk_lifecycle_id(uint64_t model_state, std::string_view chunk_hash);
// A key's identity over every field, stable across runs, builds and hosts (FNV-1a): how two runs'
// miss logs name the same key (stats/miss_log.h).
uint64_t stable_key_id(const ObjectKey& k);

// torch dtypes LMCache records as `str(torch.dtype)`.
enum class DType : uint8_t {
  Float16,
  BFloat16,
  Float32,
  Float64,
  Float8E4M3FN,
  Float8E5M2,
  Int8,
  UInt8,
  Int16,
  Int32,
  Int64,
  Bool
};
std::optional<DType> parse_dtype(std::string_view torch_name);
std::string_view dtype_name(DType d);
uint32_t dtype_itemsize(DType d);

struct MemoryLayout {
  std::vector<std::vector<int64_t>> shapes;  // one shape per group
  std::vector<DType> dtypes;

  // Logical object size: sum over groups of prod(shape) * itemsize (docs/trace-format.md §4.3).
  uint64_t object_bytes() const;
  bool operator==(const MemoryLayout&) const = default;
};

enum class TrimPolicy : uint8_t { Prefix, SegmentedPrefix, Sparse };
enum class PrefetchMode : uint8_t { Lookup, Warm };
enum class WriteMode : uint8_t { New, Update, All };

std::optional<TrimPolicy> parse_trim_policy(std::string_view name);
std::string_view trim_policy_name(TrimPolicy p);
std::optional<PrefetchMode> parse_prefetch_mode(std::string_view name);
std::string_view prefetch_mode_name(PrefetchMode m);
std::optional<WriteMode> parse_write_mode(std::string_view name);
std::string_view write_mode_name(WriteMode m);

// Sliding windows per object group (-1 = full attention) and tensor-parallel world size.
struct AttnWindowDesc {
  std::vector<int64_t> num_chunks_in_sw{-1};
  int64_t world_size = 1;

  size_t num_object_groups() const { return num_chunks_in_sw.size(); }
  bool operator==(const AttnWindowDesc&) const = default;
};

// Era-3 PrefetchRequestSpec; era-1/2 prefetch arguments are normalised into it.
struct PrefetchSpec {
  std::vector<ObjectKey> keys;
  int64_t num_kv_readers = 1;
  TrimPolicy policy = TrimPolicy::Prefix;
  AttnWindowDesc attn;
  std::map<int64_t, MemoryLayout> group_layouts;  // object_group_id -> layout
  PrefetchMode mode = PrefetchMode::Lookup;
  int64_t generation = 0;

  bool operator==(const PrefetchSpec&) const = default;
};

}  // namespace fleet::trace
