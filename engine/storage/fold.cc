#include "fleet/engine/fold.h"

#include <algorithm>

namespace fleet::storage {

FoldResult fold_unfold_ranked(const std::vector<uint8_t>& presence, size_t num_chunks,
                              size_t world_size, const std::vector<int64_t>& windows) {
  FoldResult r;
  r.retain.assign(presence.size(), 0);
  const size_t groups = windows.size();
  const size_t stride = groups * world_size;
  if (num_chunks == 0 || stride == 0) return r;
  auto pos = [&](size_t j, size_t g, size_t rank) { return j * stride + g * world_size + rank; };
  std::vector<uint8_t> servable(num_chunks + 1, 1);  // index L = 1..num_chunks
  for (size_t g = 0; g < groups; ++g) {
    const size_t w = windows[g] <= 0 ? num_chunks : static_cast<size_t>(windows[g]);
    size_t run = 0;
    for (size_t j = 0; j < num_chunks; ++j) {
      bool present = true;
      for (size_t rank = 0; rank < world_size; ++rank) {
        size_t p = pos(j, g, rank);
        if (p >= presence.size() || !presence[p]) {
          present = false;
          break;
        }
      }
      run = present ? run + 1 : 0;
      const size_t len = j + 1;
      if (run < std::min(w, len)) servable[len] = 0;
    }
  }
  for (size_t len = num_chunks; len >= 1; --len) {
    if (servable[len]) {
      r.hit_chunks = len;
      break;
    }
  }
  const size_t hit = r.hit_chunks;
  for (size_t g = 0; g < groups && hit > 0; ++g) {
    const bool full = windows[g] <= 0;
    const size_t w = full ? hit : static_cast<size_t>(windows[g]);
    const size_t first = hit > w ? hit - w : 0;
    for (size_t j = first; j < hit; ++j)
      for (size_t rank = 0; rank < world_size; ++rank) r.retain[pos(j, g, rank)] = 1;
  }
  return r;
}

FoldResult keep_all_found(const std::vector<uint8_t>& presence, size_t stride) {
  FoldResult r;
  r.retain = presence;
  size_t lead = 0;
  while (lead < presence.size() && presence[lead]) ++lead;
  r.hit_chunks = stride == 0 ? 0 : lead / stride;
  return r;
}

}  // namespace fleet::storage
