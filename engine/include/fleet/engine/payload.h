// The bytes L2 adapters write: one shared, zero-filled, read-only buffer, grown on demand, so
// L2 traffic is real traffic without a per-object allocation.
#pragma once

#include <cstddef>
#include <memory>

namespace fleet::storage {

// A zero-filled buffer of at least `size` bytes that stays valid while the pointer is held.
std::shared_ptr<const char[]> zero_payload(size_t size);

}  // namespace fleet::storage
