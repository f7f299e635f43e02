// LMCache's era-3 L1 manager as an accounting model (docs/era3-reference.md §1-§2): the object
// table with TTL read/write locks, temporary objects, in-place write modes, delete rules, and the
// first-fit address model that decides OUT_OF_MEMORY. No memory is allocated per object.
// Not thread-safe: the StorageManager serialises every call under its one engine mutex, which
// plays the role of LMCache's global L1 lock (each call is one atomic batch).
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "fleet/engine/address_allocator.h"
#include "fleet/engine/key_table.h"
#include "fleet/engine/l1_listener.h"
#include "fleet/engine/l1_status.h"
#include "fleet/engine/ttl_lock.h"
#include "fleet/trace/types.h"
#include "fleet/util/clock.h"

namespace fleet::storage {

struct L1Config {
  uint64_t size_in_bytes = 0;
  bool use_lazy = false;
  uint64_t init_size_in_bytes = 0;
  uint64_t align_bytes = 4096;
  // Engine-time lock TTLs: the config's seconds divided by the engine's time scale.
  int64_t write_ttl_ms = 600'000;
  int64_t read_ttl_ms = 300'000;
};

// Heap size the address manager starts with (§2.5): exact size when not lazy, else the lazy
// buffer rounded up to 64 MiB.
uint64_t l1_heap_bytes(const L1Config& cfg);

struct L1Object {
  uint64_t address = 0;
  uint64_t footprint = 0;     // aligned bytes held in the address space
  uint64_t logical_size = 0;  // MemoryObj.get_size(): what L2 moves
  TTLLock write_lock;
  TTLLock read_lock;
  bool temporary = false;
};

struct L1Stats {
  uint64_t peak_used_bytes = 0;
  uint64_t deleted_keys = 0;         // every free reported as deleted_by_manager
  uint64_t deleted_bytes = 0;        // footprint of those
  uint64_t temporary_frees = 0;      // temporary objects freed on their last finish_read
  uint64_t leaked_bytes = 0;         // duplicate-key allocations replaced in the table (§1.1)
  uint64_t allocations = 0;          // objects allocated
  uint64_t allocation_failures = 0;  // batches that failed with OUT_OF_MEMORY
};

class L1Manager {
 public:
  L1Manager(const L1Config& cfg, util::Clock& clock);
  L1Manager(const L1Manager&) = delete;
  L1Manager& operator=(const L1Manager&) = delete;

  void add_listener(L1Listener* l) {
    listeners_.push_back(l);
    interests_ |= l->interests();
  }

  std::vector<L1Status> reserve_write(const KeyList& keys, bool is_temporary,
                                      const trace::MemoryLayout& layout, trace::WriteMode mode);
  std::vector<L1Status> finish_write(const KeyList& keys);
  // No locks taken: Success iff present and read-locked.
  std::vector<L1Status> unsafe_read(const KeyList& keys) const;
  // `logical_sizes`, if given, receives each key's logical size (0 where not Success).
  std::vector<L1Status> reserve_read(const KeyList& keys, int64_t read_locks,
                                     std::vector<uint64_t>* logical_sizes = nullptr);
  std::vector<L1Status> finish_read(const KeyList& keys, int64_t read_locks);
  std::vector<L1Status> finish_write_and_reserve_read(const KeyList& keys, int64_t read_locks);
  std::vector<L1Status> finish_write_and_delete(const KeyList& keys);
  // `freed_bytes`, if given, receives each deleted key's footprint (0 where not deleted).
  std::vector<L1Status> delete_keys(const KeyList& keys, bool force,
                                    std::vector<uint64_t>* freed_bytes = nullptr);
  void touch_keys(const KeyList& keys);
  void clear(bool force);

  bool is_key_evictable(const trace::ObjectKey& key) const;
  bool contains(const trace::ObjectKey& key) const { return table_.find(key) != Table::npos; }
  const L1Object* find(const trace::ObjectKey& key) const;
  size_t num_objects() const { return table_.size(); }
  // (used, total): aligned bytes of live allocations and the heap size.
  std::pair<uint64_t, uint64_t> memory_usage() const { return {alloc_.used(), alloc_.total()}; }
  const AddressAllocator& allocator() const { return alloc_; }
  const L1Stats& stats() const { return stats_; }
  uint64_t footprint(const trace::MemoryLayout& layout) const;
  int64_t now_ms() const { return clock_.now_ns() / 1'000'000; }

  static int64_t clamp_read_locks(int64_t n) { return n < 1 ? 1 : (n > 128 ? 128 : n); }

 private:
  using Table = KeyTable<L1Object>;
  using Slot = Table::Slot;
  void free_object(Slot slot);
  void notify_deleted(const KeyList& keys);

  L1Config cfg_;
  util::Clock& clock_;
  AddressAllocator alloc_;
  Table table_;
  std::vector<L1Listener*> listeners_;
  unsigned interests_ = 0;
  bool wants(unsigned bit) const { return (interests_ & bit) != 0; }
  L1Stats stats_;
  std::vector<uint64_t> addr_scratch_;
};

}  // namespace fleet::storage
