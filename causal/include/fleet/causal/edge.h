// The dependency edges of a storage trace (docs/causal-pacing.md § "The edges"). A *gap* edge
// keeps its child at least the recorded gap after its parent's issue; an *order* edge only
// needs the parent's call to have returned, which a dispatcher that issues one call at a time
// gives for free, unless the recorded gap reached a lock TTL (then the whole gap is kept).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fleet::causal {

enum class EdgeKind : uint8_t {
  WriteLifecycle,  // reserve_write(K) -> its finish_write / abort_write          (gap)
  ReadAfterWrite,  // last finish_write(K) -> next submit_prefetch_task with K    (gap)
  ReadLifecycle,   // oldest unmatched prefetch containing T -> __enter__(T)      (gap)
  EnterExit,       // __enter__(T) -> __exit__(T)                                 (order)
  ExitFinish,      // __exit__ of K -> finish_read_prefetched(K)                  (order)
  AccessWrite,     // last reader or writer of K -> next reserve_write(K)         (order)
};
inline constexpr size_t kEdgeKindCount = 6;

std::string_view edge_kind_name(EdgeKind k);  // "write_lifecycle", ...
bool is_gap_edge(EdgeKind k);

// Per kind: edges found, and how many of the order ones kept their whole gap (lock TTL).
struct EdgeCounts {
  std::array<uint64_t, kEdgeKindCount> found{};
  std::array<uint64_t, kEdgeKindCount> ttl_kept{};
  // Edges whose parent ran on another node (EdgeFinder::set_node; the plan preview of a sharded
  // run): the child's node never sees the parent.
  std::array<uint64_t, kEdgeKindCount> cut{};
  uint64_t& operator[](EdgeKind k) { return found[static_cast<size_t>(k)]; }
  uint64_t operator[](EdgeKind k) const { return found[static_cast<size_t>(k)]; }
  uint64_t total() const;
  uint64_t gap_edges() const;  // gap kinds plus TTL-kept order edges
};

}  // namespace fleet::causal
