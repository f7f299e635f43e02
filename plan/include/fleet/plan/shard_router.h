// Decides, record by record and in one streaming pass, which worker(s) replay each record
// (docs/sharding.md):
//  * none — every worker gets every record (N-fold load);
//  * time — windows of S seconds of recorded time, window w -> worker w mod N; a record that
//    touches a lifecycle still open (reserved-not-finished write, entered-not-exited read,
//    prefetched-not-finished read) follows that lifecycle to its window, so lifecycles are
//    never split; such records are counted as moved;
//  * key — every chunk (model_name, chunk_hash) is owned by one worker by rendezvous hashing
//    over the worker names; a multi-key call is split into per-owner sub-calls that keep key
//    order (hence chunk-major layout); split calls are counted.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleet/plan/flat_u64_map.h"
#include "fleet/trace/op.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/record.h"

namespace fleet::plan {

struct PlanTotals;
struct PlanRow;

enum class ShardMode { None, Time, Key };
enum class Timeline { Preserve, Stack };

// The spellings of --shard and --timeline, and of the plan's "shard"/"timeline": the one table
// of each, read by the flag (flags/enum_flag.h) and by whatever prints the mode.
inline constexpr std::array<std::pair<std::string_view, ShardMode>, 3> kShardModeNames{
    {{"none", ShardMode::None}, {"time", ShardMode::Time}, {"key", ShardMode::Key}}};
inline constexpr std::array<std::pair<std::string_view, Timeline>, 2> kTimelineNames{
    {{"preserve", Timeline::Preserve}, {"stack", Timeline::Stack}}};

struct RouterOptions {
  ShardMode mode = ShardMode::None;
  Timeline timeline = Timeline::Preserve;
  double window_s = 10.0;
  std::vector<std::string> worker_names;  // stable identities for rendezvous hashing
  double lifecycle_ttl_s = 300.0;         // an open lifecycle older than this has expired
  // Key sharding: also re-encode each part of a split call as a record of its own, for workers
  // that get records inline. Without it a part is the original record plus a key mask
  // (Route::key_mask), which only a worker reading the trace itself can use (wire/batch.h).
  bool encode_split_parts = true;
};

// One destination of a record: which worker, the frame body to send (the original bytes or a
// re-encoded sub-call), and the time shift the worker applies (stack timeline).
struct Route {
  int worker = 0;
  std::string_view body;
  double t_shift = 0.0;
  bool original = true;  // body is the record's own frame (false: a re-encoded sub-call)
  // A part of a split call sent as the original frame: the keys it keeps (bit i, byte i/8) out
  // of `mask_keys`. Empty for a whole record.
  std::string_view key_mask;
  uint16_t mask_keys = 0;
};

// Records per second of trace time (seconds since the first record). The first 2^16 seconds
// (18 hours; 512 KiB at most) are a flat array, indexed without hashing on the routing path;
// anything before the first record or beyond goes to a map, so a hostile timestamp costs one map
// entry.
class PerSecondCounts {
 public:
  void add(int64_t second) {
    if (second >= 0 && second < kDense) [[likely]] {
      if (static_cast<size_t>(second) >= dense_.size())
        dense_.resize(static_cast<size_t>(second) + 1);
      ++dense_[static_cast<size_t>(second)];
    } else {
      ++sparse_[second];
    }
  }
  uint64_t peak() const;

 private:
  static constexpr int64_t kDense = int64_t{1} << 16;
  std::vector<uint64_t> dense_;
  std::map<int64_t, uint64_t> sparse_;
};

// Per-worker plan statistics (--plan-only and the run report).
struct WorkerPlan {
  uint64_t records = 0;
  uint64_t bytes = 0;
  uint64_t per_kind[trace::kOpKindCount] = {};
  uint64_t moved = 0;          // records that followed an open lifecycle out of their window
  uint64_t split_parts = 0;    // sub-calls received from split multi-owner calls
  PerSecondCounts per_second;  // records per trace second
  uint64_t peak_per_second() const { return per_second.peak(); }
};

// A change to what this class decides for a record must bump kRouterVersion
// (plan/route_cache.cc): saved plans made by the old rules are then not used.
class ShardRouter {
 public:
  explicit ShardRouter(RouterOptions options);

  // Routes one record. The returned views are valid until the next call.
  // Throws trace::MalformedRecord (and routes nothing, plans nothing) for a record whose
  // deferred args check fails: the caller hands it to the reader's reject_malformed.
  const std::vector<Route>& route(const trace::RecordView& rec);

  int workers() const { return static_cast<int>(options_.worker_names.size()); }
  ShardMode mode() const { return options_.mode; }
  std::vector<WorkerPlan> plan() const;  // one row per worker
  uint64_t split_calls() const { return split_calls_; }
  uint64_t records() const { return records_; }
  double t_first() const { return t_first_; }
  double t_last() const { return t_last_; }
  PlanTotals totals() const;
  std::vector<PlanRow> rows() const;  // plan() with each row's peak (plan_table.h)
  nlohmann::ordered_json plan_json() const;
  std::string render_plan() const;

  // Key sharding decodes each record in full to route it: the record last routed, as decode_op
  // gave it, swapped into `into` (the router reuses what it gets back), so that a worker that
  // routes itself does not decode its records twice. False when there is none: another mode,
  // a record whose args did not decode, or taken already.
  bool take_decoded(trace::Op& into);

  // Rendezvous owner of a chunk identity among the workers.
  int owner_of(uint64_t chunk_id) const;

 private:
  const std::vector<Route>& route_checked(const trace::RecordView& rec);
  void route_time(const trace::RecordView& rec);
  void route_key(const trace::RecordView& rec);
  void account(int worker, const trace::RecordView& rec, trace::OpKind kind, size_t bytes);
  // Worker w's plan row (row 0 for every worker with --shard none).
  const WorkerPlan& row(size_t w) const { return plan_[options_.mode == ShardMode::None ? 0 : w]; }

  struct OpenLifecycle {
    int64_t window = 0;
    int32_t open = 0;
    double last_t = 0.0;
  };

  RouterOptions options_;
  std::vector<uint64_t> worker_seeds_;
  std::vector<Route> routes_;
  std::vector<std::string> bodies_;     // re-encoded sub-calls
  std::vector<std::string> masks_;      // key masks of the parts of a split call
  std::vector<int> owners_, distinct_;  // route_key's per-key owners and their distinct set
  const void* model_id_ = nullptr;      // the model name whose identity state is cached
  uint64_t model_state_ = 0;
  // --shard none accounts each record once, in row 0: every row is the same (row() says so),
  // and per-record work must not grow with the number of workers.
  std::vector<WorkerPlan> plan_;
  FlatU64Map<OpenLifecycle> open_;  // chunk id -> lifecycle
  trace::ScanInfo scan_;            // reused: its key list keeps its capacity
  uint64_t records_ = 0;
  uint64_t split_calls_ = 0;
  double t_first_ = 0.0;
  double t_last_ = 0.0;
  bool have_first_ = false;
  trace::Op op_;
  bool op_decoded_ = false;  // op_ holds the record last routed (key sharding), not yet taken
};

const char* shard_mode_name(ShardMode m);
const char* timeline_name(Timeline t);

}  // namespace fleet::plan
