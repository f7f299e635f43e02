// Callbacks the L1 manager makes after a batch changes key state (LMCache's L1 listener
// interface). The eviction bridge and the store controller implement the ones they need.
#pragma once

#include <vector>

#include "fleet/trace/types.h"

namespace fleet::storage {

using KeyList = std::vector<trace::ObjectKey>;

class L1Listener {
 public:
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
