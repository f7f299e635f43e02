#include "fleet/causal/cut_edge_counter.h"

#include "fleet/trace/op_decoder.h"

namespace fleet::causal {

CutEdgeCounter::CutEdgeCounter(EdgeFinderOptions ttl, size_t nodes)
    : finder_(ttl), per_node_(nodes) {}

void CutEdgeCounter::add(const trace::RecordView& rec, uint32_t node) {
  trace::Op op;
  try {
    trace::decode_op(rec, op);
  } catch (const std::exception&) {
    return;  // the replay skips it: no edges
  }
  add(op, node);
}

void CutEdgeCounter::add(const trace::Op& op, uint32_t node) {
  if (op.kind == trace::OpKind::Unknown) return;
  const PerKind before = finder_.counts().cut;
  finder_.set_node(node);
  (void)finder_.before_issue(op);
  finder_.after_issue(op, 0);
  if (node >= per_node_.size()) return;
  const PerKind& after = finder_.counts().cut;
  for (size_t i = 0; i < kEdgeKindCount; ++i) per_node_[node][i] += after[i] - before[i];
}

CutEdgeCounter::PerKind CutEdgeCounter::cut_of(size_t node) const {
  return node < per_node_.size() ? per_node_[node] : PerKind{};
}

}  // namespace fleet::causal
