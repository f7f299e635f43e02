// One node's share of an L2 replay across the fleet (docs/l2-traces.md, "Across the fleet"):
// the plans of the files it read, aligned on one timeline (t_mono + the file's shift) and merged
// in that order (each file's own order kept), then cut to what the shard mode gives this node.
// Every node computes the same rule from the same inputs, so the shares partition the work
// (source, key) or repeat it (none) without the coordinator routing anything.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/l2replay/l2_fleet_prepare.h"
#include "fleet/l2replay/l2_plan.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

enum class L2Shard { None, Source, Key };
inline constexpr std::array<std::pair<std::string_view, L2Shard>, 3> kL2ShardNames{
    {{"none", L2Shard::None}, {"source", L2Shard::Source}, {"key", L2Shard::Key}}};
std::optional<L2Shard> l2_shard_from_name(std::string_view name);
std::string_view l2_shard_name(L2Shard shard);

struct L2ShareOptions {
  L2Shard shard = L2Shard::None;
  int node_index = 0;
  int node_count = 1;
  std::vector<std::string> worker_names;  // key: every worker, in plan order
};

// The files (indices among `files`) a node reads: source, file i on node i mod N; the others,
// every file.
std::vector<size_t> l2_files_of_node(size_t files, const L2ShareOptions& options);

// What the cut did, for the node's DONE and the merged stats.
struct L2ShareFigures {
  std::vector<std::string> files;              // read by this node, in order
  std::vector<uint64_t> source_operations;     // per file: its submissions (the whole trace)
  uint64_t operations_in_files = 0;            // the files' selected operations
  uint64_t operations_kept = 0;                // this node's share
  std::map<std::string, uint64_t> kept_edges;  // "dependent->dependency" within the share
  // Edges whose dependent is in this share and whose dependency is on another node: dropped
  // (the dependent waits for nothing there), counted, never hidden. Only key sharding cuts.
  std::map<std::string, uint64_t> cut_edges;
  uint64_t requests_kept = 0;  // request ids (per file) with an operation in this share
  uint64_t forward_edges = 0;  // of the files' plans
  uint64_t overlapping_store_hits = 0;
  double trace_window_s = 0.0;  // of the kept operations, on the aligned timeline
  // The prepared objects this node seeds (l2_fleet_prepare.h), whether or not --prepare-l2 ran.
  uint64_t prepare_objects = 0;
  uint64_t prepare_bytes = 0;
};

struct L2Share {
  L2Plan plan;  // the kept operations, deps remapped; t_mono on the aligned timeline
  L2ShareFigures figures;
};

// `plans[i]` is the plan of file `read[i]` (an index into `shift_s`); the plans are spent.
// Key sharding: a request's operations all go to the owner of its first lookup's first key (a
// request without lookup: its first operation's first key); a store or a delete to its first
// key's owner; an operation without keys to sequence mod N. Owners by rendezvous hashing of the
// chunk identity over `worker_names` (plan::ShardRouter::owner_of).
// The plan's `prepare` is what this node seeds: of the claims of the files it read and
// `other_claims` (those of the files it did not: --shard source with several files and
// --prepare-l2, l2_fleet_prepare.h), the ones l2_seeded_by gives it.
// An error: key sharding without every worker's name, a plan or a shift missing.
Result<L2Share> build_l2_share(std::vector<L2Plan> plans, const std::vector<size_t>& read,
                               const std::vector<double>& shift_s, const L2ShareOptions& options,
                               std::vector<L2PrepareClaim> other_claims = {});

}  // namespace fleet::l2replay
