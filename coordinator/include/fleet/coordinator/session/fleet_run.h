// `coordinator --workers ... FILE` and `--local N`: connects the workers, estimates their
// clock offsets, starts them at one instant T0, streams each its shard under credit-based flow
// control, watches heartbeats, and merges their results into one report. The phases are
// FleetRun::Phase (coordinator/session/fleet_run_machine.h).
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/coordinator/session/local_run.h"
#include "fleet/plan/shard_router.h"
#include "fleet/util/exit_codes.h"
#include "fleet/wire/liveness.h"

namespace fleet::util {
class Clock;
}

namespace fleet::session {

enum class OnWorkerLoss { Abort, Continue };
// Auto: no compression to loopback workers (only CPU on both ends), zstd to every other.
enum class Compression { Auto, Zstd, None };
// Auto: workers on this host that can map the trace get references, the rest records; Shared:
// every worker must read the trace itself; Stream: records always travel.
enum class TraceAccess { Auto, Shared, Stream };

// Who routes the records (docs/sharding.md, "Workers that route themselves"). Auto: the
// workers, when --trace-access shared (every worker reads the trace); the coordinator
// otherwise. Workers: the workers, and every one of them must read the trace.
enum class Routing { Auto, Coordinator, Workers };

// The flag spellings of each (--on-worker-loss, --compression, --trace-access, --routing): the one
// table, which the command line binds (flags/enum_flag.h).
inline constexpr std::array<std::pair<std::string_view, OnWorkerLoss>, 2> kOnWorkerLossNames{
    {{"abort", OnWorkerLoss::Abort}, {"continue", OnWorkerLoss::Continue}}};
inline constexpr std::array<std::pair<std::string_view, Compression>, 3> kCompressionNames{
    {{"auto", Compression::Auto}, {"zstd", Compression::Zstd}, {"none", Compression::None}}};
inline constexpr std::array<std::pair<std::string_view, TraceAccess>, 3> kTraceAccessNames{
    {{"auto", TraceAccess::Auto},
     {"shared", TraceAccess::Shared},
     {"stream", TraceAccess::Stream}}};
inline constexpr std::array<std::pair<std::string_view, Routing>, 3> kRoutingNames{
    {{"auto", Routing::Auto},
     {"coordinator", Routing::Coordinator},
     {"workers", Routing::Workers}}};

struct FleetOptions {
  ReplayOptions replay;             // trace, speed, clock, engine config, outputs
  bool send_engine_config = false;  // engine flags / --config-from-trace given to the coordinator
  bool send_engine_name = false;    // --engine given: otherwise each worker keeps its own default
  std::string workers_spec;         // --workers
  int local = 0;                    // --local N
  int expect_workers = 0;           // 0 = as many as resolved
  int connect_timeout_ms = 10000;
  // T0 follows from readiness (session/t0_decision.h); these are floors on it.
  double start_delay_s = 0.0;  // T0 >= last handshake + this
  // When > 0: T0 at this CLOCK_MONOTONIC instant (the variants of a --sweep, started as
  // separate processes on one host, share one T0); later if the workers are ready after it.
  int64_t start_at_mono_ns = 0;
  OnWorkerLoss on_worker_loss = OnWorkerLoss::Abort;
  int credit_window = 8;
  int max_pending_batches = 4;  // per worker, waiting for credit, before the reader blocks
  Compression compression = Compression::Auto;
  int compression_level = 1;  // zstd level; negative = zstd's fast modes
  TraceAccess trace_access = TraceAccess::Auto;
  std::string worker_trace_path;  // "" = the trace's absolute path
  Routing routing = Routing::Auto;
  plan::RouterOptions router;
  // --shard source: an L2 trace per recorded server, each file on its own node (L2 traces
  // only; router.mode stays None).
  bool shard_source = false;
  bool plan_only = false;
  // --route-cache: where saved routing plans live ("" = route every run live;
  // plan/route_cache.h).
  std::string route_cache_dir;
  int heartbeat_ms = wire::kHeartbeatMs;
  std::vector<std::string> local_worker_args;  // extra flags for --local workers
  // CURVE (docs/security.md). --curve-cert: the coordinator's secret certificate; the workers'
  // public keys come from their hosts-file lines or --known-workers. --local runs make
  // ephemeral keys unless --insecure.
  std::string curve_cert_path;
  std::string known_workers_path;
  bool insecure = false;
  // Heartbeats, loss, handshake deadlines and T0 are read on this clock (null: the real
  // monotonic clock). Tests inject a VirtualClock to step them.
  util::Clock* clock = nullptr;
  // Tests only: called on the routing thread before each record is routed (a test stalls
  // routing with it and checks that heartbeats, credit and loss do not wait).
  std::function<void()> before_route;
};

// kOk, kRecordsFailed, kBadInput (unusable input, config or workers; a worker refused the
// config or got a damaged stream), kRunIncomplete (a worker was lost or the run aborted) or
// kInterrupted. A partial report is written in every case where the run had started.
ExitCode run_fleet(FleetOptions options);

}  // namespace fleet::session
