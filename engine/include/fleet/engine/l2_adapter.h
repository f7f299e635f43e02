// The L2 adapter contract the controllers drive (LMCache l2_adapters/base.py, era 3):
// non-blocking submits whose results come back later as completions on the engine's event
// loop, client-visible lookup locks, and central byte accounting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/trace/types.h"
#include "fleet/util/clock.h"

namespace fleet::storage {

enum class L2OpKind : uint8_t { Store, Lookup, Load };
std::string_view l2_op_kind_name(L2OpKind k);

struct L2Completion {
  L2OpKind kind = L2OpKind::Store;
  uint64_t task_id = 0;
  bool success = true;  // store: whole-task success
  uint64_t bytes = 0;   // store: bytes actually written; load: bytes read
  // Why the task failed, when it did (the first failing part's reason, for the failure record
  // and the log): e.g. "connect 127.0.0.1:6379: Connection refused".
  std::string error;
  // lookup/load: one entry per submitted key; store: per key "in L2 now" when `keys` is set
  std::vector<uint8_t> bitmap;
  // Store/load only, and only when the context asks (report_keys): the submitted keys, which
  // the L2 eviction policy learns from (stored -> created, loaded -> touched).
  std::vector<trace::ObjectKey> keys;
  int64_t submit_ns = 0;  // engine clock
  int64_t end_ns = 0;     // engine clock when the result was known
  size_t num_keys = 0;
};

// What the engine gives an adapter when it is attached.
struct L2AdapterContext {
  util::Clock* clock = nullptr;
  // Run I/O inline on the calling thread (virtual clock: determinism) instead of on workers.
  bool synchronous = false;
  // Fill L2Completion::keys (and a store bitmap): an eviction policy tracks this adapter.
  bool report_keys = false;
  // Fleet-only: prefixes every key a shared store (resp) writes, so runs that share one Redis
  // (the variants of a --sweep) do not see each other's keys. Empty: LMCache's key names.
  std::string key_namespace;
  // Engine time runs this many times faster than the wall (EngineConfig::time_scale): a
  // modelled transfer time (mock) is divided by it; a real backend's is what it is.
  double time_scale = 1.0;
  // Thread-safe: deliver a completion at engine time `at_ns` (>= now for real adapters).
  std::function<void(int64_t at_ns, L2Completion)> deliver;
};

struct L2Usage {
  uint64_t used_bytes = 0;
  uint64_t capacity_bytes = 0;  // 0 = unknown / unbounded
  double usage_fraction() const {
    return capacity_bytes == 0
               ? -1.0
               : static_cast<double>(used_bytes) / static_cast<double>(capacity_bytes);
  }
};

class L2Adapter {
 public:
  virtual ~L2Adapter() = default;
  virtual std::string_view type() const = 0;
  virtual void attach(L2AdapterContext ctx) { ctx_ = std::move(ctx); }

  // Each returns a task id unique within this adapter; exactly one completion follows.
  // `sizes` are logical object sizes (the bytes an L1 MemoryObj's byte_array exposes).
  virtual uint64_t submit_store(std::vector<trace::ObjectKey> keys,
                                std::vector<uint64_t> sizes) = 0;
  virtual uint64_t submit_lookup_and_lock(std::vector<trace::ObjectKey> keys) = 0;
  virtual uint64_t submit_load(std::vector<trace::ObjectKey> keys, std::vector<uint64_t> sizes) = 0;
  // Fire-and-forget release of lookup locks.
  virtual void submit_unlock(std::vector<trace::ObjectKey> keys) = 0;
  // Deletes what it may and returns the keys it deleted (fs and resp skip lookup-locked keys;
  // the mock ignores locks), so an eviction policy forgets exactly those.
  virtual std::vector<trace::ObjectKey> delete_keys(const std::vector<trace::ObjectKey>&) {
    return {};
  }
  // Keys by id (Fleet's L2 replay; docs/l2-traces.md, "Keys by id"): after bind_key_table,
  // the *_ids calls name keys by their index in `table`, which must stay valid and unchanged
  // until the next bind. Same semantics as the calls above; by default each builds its keys from
  // the table and takes the ObjectKey path (resp, fs, fault_inject), while the mock resolves each
  // id once at the bind instead of hashing a key at every mention.
  virtual void bind_key_table(std::span<const trace::ObjectKey> table) { key_table_ = table; }
  virtual uint64_t submit_store_ids(std::span<const uint32_t> ids, std::span<const uint64_t> sizes);
  virtual uint64_t submit_lookup_and_lock_ids(std::span<const uint32_t> ids);
  virtual uint64_t submit_load_ids(std::span<const uint32_t> ids, std::span<const uint64_t> sizes);
  virtual void submit_unlock_ids(std::span<const uint32_t> ids);
  virtual void delete_ids(std::span<const uint32_t> ids);

  virtual L2Usage usage() const { return {}; }
  // Stops worker threads; pending completions may still be delivered before it returns.
  virtual void close() {}

 protected:
  // The keys `ids` name in the bound table (std::logic_error for an id outside it: a caller bug).
  std::vector<trace::ObjectKey> keys_by_id(std::span<const uint32_t> ids) const;

  L2AdapterContext ctx_;
  std::span<const trace::ObjectKey> key_table_;
};

}  // namespace fleet::storage
