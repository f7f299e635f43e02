// Callbacks the L1 manager makes after a batch changes key state (LMCache's L1 listener
// interface). The eviction bridge and the store controller implement the ones they need.
#pragma once

#include <vector>

#include "fleet/trace/types.h"

namespace fleet::storage {

using KeyList = std::vector<trace::ObjectKey>;

class L1Listener {
 public:
  // Bits of the callbacks a listener acts on, so the L1 skips building key lists for the rest.
  enum Interest : unsigned {
    kReservedWrite = 1,
    kWriteFinished = 2,
    kFinishWriteAndReserveRead = 4,
    kReservedRead = 8,
    kReadFinished = 16,
    kAccessed = 32,
    kDeletedByManager = 64,
    kAll = 127
  };
  virtual unsigned interests() const { return kAll; }
  virtual ~L1Listener() = default;
  virtual void on_l1_keys_reserved_write(const KeyList&) {}
  virtual void on_l1_keys_write_finished(const KeyList&) {}
  virtual void on_l1_keys_finish_write_and_reserve_read(const KeyList&) {}
  virtual void on_l1_keys_reserved_read(const KeyList&) {}
  virtual void on_l1_keys_read_finished(const KeyList&) {}
  virtual void on_l1_keys_accessed(const KeyList&) {}
  virtual void on_l1_keys_deleted_by_manager(const KeyList&) {}
};

}  // namespace fleet::storage
