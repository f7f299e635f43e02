// The hash the engine's key tables use. Deliberately not noexcept: libstdc++ then caches each
// node's hash code, so chain walks and rehashes never re-hash a key (with the noexcept
// trace::ObjectKeyHash they did, and hashing dominated the engine's profile). Same function.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

#include "fleet/trace/types.h"

namespace fleet::storage {

struct KeyHash {
  size_t operator()(const trace::ObjectKey& k) const {  // NOLINT: not noexcept on purpose
    return trace::ObjectKeyHash{}(k);
  }
};

}  // namespace fleet::storage
