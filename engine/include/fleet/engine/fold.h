// Prefix folding over the chunk-major key layout j*(G*W) + g*W + r (docs/era3-reference.md §5.6):
// the hit length a hybrid model (sliding-window groups, tensor-parallel ranks) can serve, and
// which positions that hit needs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace fleet::storage {

struct FoldResult {
  size_t hit_chunks = 0;
  std::vector<uint8_t> retain;  // per position
};

// `presence` has num_chunks * windows.size() * world_size positions (extra tail positions are
// ignored and never retained). A window <= 0 means full attention.
FoldResult fold_unfold_ranked(const std::vector<uint8_t>& presence, size_t num_chunks,
                              size_t world_size, const std::vector<int64_t>& windows);

// The controller's trim mask for SPARSE / SEGMENTED_PREFIX: keep every present position; the
// hit is the count of leading present positions divided by the stride.
FoldResult keep_all_found(const std::vector<uint8_t>& presence, size_t stride);

}  // namespace fleet::storage
