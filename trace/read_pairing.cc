#include "fleet/trace/read_pairing.h"

namespace fleet::trace {

size_t KeyTupleHash::operator()(const std::vector<ObjectKey>& keys) const noexcept {
  ObjectKeyHash h;
  size_t acc = keys.size();
  for (const auto& k : keys) acc = acc * 0x100000001b3ull ^ h(k);
  return acc;
}

}  // namespace fleet::trace
