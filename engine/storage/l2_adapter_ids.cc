// The default keys-by-id calls (l2_adapter.h): the keys built from the bound table, then the
// ObjectKey path, so an adapter that does not override them behaves exactly as before.
#include <stdexcept>
#include <string>

#include "fleet/engine/l2_adapter.h"

namespace fleet::storage {

std::vector<trace::ObjectKey> L2Adapter::keys_by_id(std::span<const uint32_t> ids) const {
  std::vector<trace::ObjectKey> keys;
  keys.reserve(ids.size());
  for (uint32_t id : ids) {
    if (id >= key_table_.size()) {
      throw std::logic_error("L2 adapter: key id " + std::to_string(id) + " outside its table of " +
                             std::to_string(key_table_.size()) + " keys");
    }
    keys.push_back(key_table_[id]);
  }
  return keys;
}

uint64_t L2Adapter::submit_store_ids(std::span<const uint32_t> ids,
                                     std::span<const uint64_t> sizes) {
  return submit_store(keys_by_id(ids), {sizes.begin(), sizes.end()});
}

uint64_t L2Adapter::submit_lookup_and_lock_ids(std::span<const uint32_t> ids) {
  return submit_lookup_and_lock(keys_by_id(ids));
}

uint64_t L2Adapter::submit_load_ids(std::span<const uint32_t> ids,
                                    std::span<const uint64_t> sizes) {
  return submit_load(keys_by_id(ids), {sizes.begin(), sizes.end()});
}

void L2Adapter::submit_unlock_ids(std::span<const uint32_t> ids) { submit_unlock(keys_by_id(ids)); }

void L2Adapter::delete_ids(std::span<const uint32_t> ids) { delete_keys(keys_by_id(ids)); }

}  // namespace fleet::storage
