// L2 failures, one record per adapter: how many operations failed and of which kind, when the
// first and the latest did, and what their errors said. The engine keeps a record per adapter
// (times on its clock); a node reports them rebased to T0 in DONE; the coordinator merges them
// over nodes for fleet_summary.json, the terminal summary and the report's verdict
// (docs/outputs.md § L2 failures; their JSON: l2_failures_json.h). Texts are bounded
// (kMaxL2ErrorBytes, printable ASCII): they come from servers and peers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace fleet::stats {

inline constexpr size_t kMaxL2ErrorBytes = 200;
inline constexpr size_t kMaxL2FailureRecords = 64;  // adapters per node, in DONE
// The L2 op kinds, in engine order (storage::L2OpKind): store, lookup, load.
inline constexpr std::array<std::string_view, 3> kL2OpKindNames = {"store", "lookup", "load"};

// `text` cut to kMaxL2ErrorBytes, every byte outside printable ASCII replaced by '?': always
// valid UTF-8, one log line, one JSON string without escapes beyond quotes and backslashes.
std::string bounded_error_text(std::string_view text);

struct L2FailureRecord {
  int adapter = 0;   // index in the engine's l2_adapters
  std::string type;  // the adapter's type: resp, fs, mock, ...
  uint64_t failed = 0;
  std::array<uint64_t, kL2OpKindNames.size()> by_op{};  // failed store, lookup, load ops
  int64_t first_ns = 0, last_ns = 0;  // the engine's clock; since T0 once a node reports it
  std::string first_error, last_error;
  uint64_t nodes = 1;  // merged records: how many nodes' adapters failed

  // Counts one failed op of kind `op` (an index into kL2OpKindNames) that ended at `at_ns`.
  void record(size_t op, int64_t at_ns, std::string_view error);
  // "store 2000, lookup 1279": the op kinds that failed, in engine order.
  std::string ops_text() const;
};

// Records with a failure, merged over nodes by adapter (index and type): counts add up, the
// first failure is the earliest one's, the latest the latest one's, `nodes` counts the records.
std::vector<L2FailureRecord> merge_l2_failures(
    const std::vector<const std::vector<L2FailureRecord>*>& per_node);

}  // namespace fleet::stats
