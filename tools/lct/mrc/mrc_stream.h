// Which trace records are L1 accesses, of which object, with how many bytes: the key stream
// as LMCache's L1 sees it (docs/lct.md § lct mrc).
//
//  * reserve_write: every key is a write (an access that inserts), sized by its layout;
//  * submit_prefetch_task, LOOKUP mode: every key is a lookup (a read), sized by the spec's
//    group_layouts[key.object_group_id]; WARM keys are skipped (they never read L1; they load
//    L2 copies into it) unless `warm_as_write`;
//  * read_prefetched_results.__enter__: every key is a read of the object as it was last sized;
//  * abort_write: the reservation is freed, so the object leaves the cache (not an access).
//
// Keys are whole ObjectKeys. With a sample rate below 1 only the keys SHARDS samples are kept.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/op.h"
#include "mrc/shards_sampler.h"

namespace fleet::mrc {

enum class AccessKind : uint8_t { Write, Lookup, Read, Forget };

// 8 bytes per access: a dense key id and an index into AccessStream::sizes with the kind.
struct Access {
  uint32_t key;
  uint32_t packed;  // size id << 2 | kind

  Access(uint32_t k, uint32_t size_id, AccessKind kind)
      : key(k), packed(size_id << 2 | static_cast<uint32_t>(kind)) {}
  uint32_t size_id() const { return packed >> 2; }
  AccessKind kind() const { return static_cast<AccessKind>(packed & 3); }
};

struct AccessCounts {
  uint64_t writes = 0, lookups = 0, reads = 0;
  uint64_t all() const { return writes + lookups + reads; }
};

struct AccessStream {
  std::vector<Access> accesses;  // sampled accesses, in trace order
  std::vector<uint64_t> sizes;   // size id -> object bytes
  uint32_t distinct_keys = 0;    // sampled keys
  double sample_rate = 1.0;      // effective SHARDS rate (1: exact)
  AccessCounts trace_counts;     // every access of the trace, sampled or not
  uint64_t warm_keys_skipped = 0;
  uint64_t sized_by_fallback = 0;  // reads whose key had no size yet (docs/lct.md)
  uint64_t most_common_size = 0;
  uint64_t undecodable_records = 0;

  uint64_t bytes(const Access& a) const { return sizes[a.size_id()]; }
};

struct StreamOptions {
  double sample_rate = 1.0;  // 0 < rate <= 1
  bool warm_as_write = false;
};

class AccessStreamBuilder {
 public:
  explicit AccessStreamBuilder(const StreamOptions& options = {});

  void add(const trace::Op& op);
  void add_undecodable() { ++stream_.undecodable_records; }
  // Resolves the sizes of reads that preceded every sized access of their key and returns the
  // stream; the builder is spent.
  AccessStream finish();

 private:
  static constexpr uint32_t kUnsized = 0;  // size id resolved by finish()

  void access(const trace::ObjectKey& key, AccessKind kind, uint64_t bytes, bool sized);
  uint32_t size_id(uint64_t bytes);

  StreamOptions options_;
  ShardsSampler sampler_;
  AccessStream stream_;
  std::unordered_map<trace::ObjectKey, uint32_t, trace::ObjectKeyHash> key_ids_;
  std::vector<uint32_t> last_size_;  // key id -> size id of its latest sized access
  std::unordered_map<uint64_t, uint32_t> size_ids_;
  std::unordered_map<uint64_t, uint64_t> size_popularity_;  // bytes -> sized accesses
};

// Feeds every record of `reader` to `builder` (args that do not decode are counted and
// skipped, as LMCache's replay skips them). Throws TraceError when the file fails mid-read;
// what was read before stays in the builder.
void add_records(trace::FrameReader& reader, AccessStreamBuilder& builder);

}  // namespace fleet::mrc
