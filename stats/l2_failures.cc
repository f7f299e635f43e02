#include "fleet/stats/l2_failures.h"

#include <map>
#include <utility>

namespace fleet::stats {

std::string bounded_error_text(std::string_view text) {
  const bool cut = text.size() > kMaxL2ErrorBytes;
  std::string out(cut ? text.substr(0, kMaxL2ErrorBytes - 3) : text);
  for (char& c : out)
    if (c < 0x20 || c > 0x7e) c = '?';
  if (cut) out += "...";
  return out;
}

void L2FailureRecord::record(size_t op, int64_t at_ns, std::string_view error) {
  if (failed == 0 || at_ns < first_ns) {
    first_ns = at_ns;
    first_error = bounded_error_text(error);
  }
  if (failed == 0 || at_ns >= last_ns) {
    last_ns = at_ns;
    last_error = bounded_error_text(error);
  }
  ++failed;
  ++by_op.at(op);
}

std::string L2FailureRecord::ops_text() const {
  std::string out;
  for (size_t k = 0; k < by_op.size(); ++k) {
    if (by_op[k] == 0) continue;
    if (!out.empty()) out += ", ";
    out += std::string(kL2OpKindNames[k]) + " " + std::to_string(by_op[k]);
  }
  return out;
}

std::vector<L2FailureRecord> merge_l2_failures(
    const std::vector<const std::vector<L2FailureRecord>*>& per_node) {
  std::map<std::pair<int, std::string>, L2FailureRecord> by_adapter;
  for (const auto* node : per_node) {
    for (const L2FailureRecord& r : *node) {
      if (r.failed == 0) continue;
      auto [it, fresh] = by_adapter.try_emplace({r.adapter, r.type}, r);
      if (fresh) continue;
      L2FailureRecord& m = it->second;
      if (r.first_ns < m.first_ns) {
        m.first_ns = r.first_ns;
        m.first_error = r.first_error;
      }
      if (r.last_ns > m.last_ns) {
        m.last_ns = r.last_ns;
        m.last_error = r.last_error;
      }
      m.failed += r.failed;
      for (size_t k = 0; k < m.by_op.size(); ++k) m.by_op[k] += r.by_op[k];
      m.nodes += r.nodes;
    }
  }
  std::vector<L2FailureRecord> out;
  for (auto& [key, r] : by_adapter) out.push_back(std::move(r));
  return out;
}

}  // namespace fleet::stats
