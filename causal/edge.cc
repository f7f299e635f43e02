#include "fleet/causal/edge.h"

namespace fleet::causal {

std::string_view edge_kind_name(EdgeKind k) {
  switch (k) {
    case EdgeKind::WriteLifecycle:
      return "write_lifecycle";
    case EdgeKind::ReadAfterWrite:
      return "read_after_write";
    case EdgeKind::ReadLifecycle:
      return "read_lifecycle";
    case EdgeKind::EnterExit:
      return "enter_exit";
    case EdgeKind::ExitFinish:
      return "exit_finish";
    case EdgeKind::AccessWrite:
      return "access_write";
  }
  return "unknown";
}

bool is_gap_edge(EdgeKind k) {
  return k == EdgeKind::WriteLifecycle || k == EdgeKind::ReadAfterWrite ||
         k == EdgeKind::ReadLifecycle;
}

uint64_t EdgeCounts::total() const {
  uint64_t n = 0;
  for (uint64_t f : found) n += f;
  return n;
}

uint64_t EdgeCounts::gap_edges() const {
  uint64_t n = 0;
  for (size_t i = 0; i < kEdgeKindCount; ++i)
    n += is_gap_edge(static_cast<EdgeKind>(i)) ? found[i] : ttl_kept[i];
  return n;
}

}  // namespace fleet::causal
