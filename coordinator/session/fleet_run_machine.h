// One fleet run as a state machine: one method per phase, in the order of Phase. Every phase
// reads time from the injected clock, so T0, heartbeats and loss follow a VirtualClock in tests.
#pragma once

#include <spdlog/common.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>
#include <zmq.hpp>

#include "fleet/causal/cut_edge_counter.h"
#include "fleet/coordinator/session/batch_packer.h"
#include "fleet/coordinator/session/fleet_run.h"
#include "fleet/coordinator/session/route_feed.h"
#include "fleet/coordinator/session/t0_decision.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fleet/insight/report/timeseries_sink.h"
#include "fleet/plan/route_cache.h"
#include "fleet/plan/shard_router.h"
#include "fleet/security/curve_key.h"
#include "fleet/summary/accounting.h"
#include "fleet/summary/run_report.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/util/status.h"
#include "link_set.h"
#include "self_routed_plan.h"

namespace fleet::session {

class BatchFanout;
class LocalWorkers;

class FleetRun {
 public:
  enum class Phase {
    Prepare,     // open the trace, resolve the workers, prepare the output directory
    Connect,     // start --local workers; HELLO/WELCOME; which workers read the trace itself
    SyncClocks,  // PING/PONG: each worker's clock offset
    Start,       // START to every worker (each builds its engine and answers READY)
    Stream,      // route, batch and send every record under credit; heartbeats; loss; GO
                 // with T0 once every worker is READY and the first batches are queued
    Drain,       // the last batches and END, then every DONE (or the abort deadline)
    Report,      // merge the nodes' results and write the outputs
    Finished,
  };

  FleetRun(FleetOptions options, util::Clock& clock);
  ~FleetRun();
  ExitCode run();
  Phase phase() const { return phase_; }

 private:
  Status prepare();
  Status resolve_addresses();
  Status load_keys();  // --curve-cert (or a --local run's ephemeral key) and the workers' keys
  ExitCode print_plan();
  Status connect();
  void sync_clocks();
  void start_workers();
  void open_feed();           // Start: the routing thread's queues and packers
  void send_go_when_ready();  // T0 from readiness (t0_decision.h), GO to every live worker
  // Stream: the control thread sends what the routing thread packs (RouteFeed) under credit and
  // answers the workers; the routing thread (route_all) reads, routes and packs the trace.
  void stream();
  void end_routing();  // stops the routing thread (if still running), joins it, acts on its error
  // --- The routing thread (docs/scaling.md, "Routing on its own thread"): while it runs it
  // alone touches reader_, rec_, have_record_, router_, packers_, fanout_, the saved plan's
  // cursor and tally, and routes_writer_; the control thread reads them after the join.
  void route_all();
  bool route_one();  // the current record to its workers; false: the reader failed
  // --route-cache (fleet_run_routes.cc): replay a saved plan, or save this run's routes.
  void find_saved_routes();  // Prepare: the plan's key, and a plan checked whole if there is one
  bool open_saved_routes();  // true: a usable plan replaces routing (needs the links' access)
  bool replay_saved_one();   // the current saved route to its worker(s); false: the plan failed
  void send_saved(const plan::SavedRoute& r);
  bool advance_saved();  // the next saved route; false: the plan failed mid-run (the run stops)
  void save_routes();    // after a stream that routed the whole trace
  // Workers that route themselves (fleet_run_self_route.cc, docs/sharding.md).
  bool self_routing_asked() const;  // --routing workers, or auto with --trace-access shared
  Status decide_routing();          // Connect: every worker reads the trace, or the run stops
  wire::SelfRouting self_routing_params() const;  // START's plan parameters
  // Report: the plan from the workers' scans (or the coordinator's own pass), each node's
  // records_received from its scan, the trace's counts; the plan JSON with who routed.
  void settle_self_routed_plan(std::vector<wire::NodeResult>& nodes, report::RunReport& rep);
  void self_routed_accounting(report::AccountingInput& in, std::vector<uint64_t>& routed,
                              std::vector<uint64_t>& parts, uint64_t& split_calls) const;
  // Self-routing with --route-cache (fleet_run_plan_read.cc): the workers read a saved plan,
  // or the coordinator routes the trace once after the replay and saves one.
  void offer_saved_plan();  // Start: a plan found in Prepare goes to the workers in START
  // Report: the plan and each node's records from the saved plan and the workers' DONEs.
  void settle_plan_read(std::vector<wire::NodeResult>& nodes, report::RunReport& rep);
  void save_self_routed_plan();  // Report: a live self-routed run that saw the whole trace
  nlohmann::ordered_json route_plan_json() const;
  double read_fraction() const;  // how much of the trace (or the plan) has been consumed
  void routing_failed(std::string what, std::string abort_reason);  // on the routing thread
  void pump_batches();        // control thread: ready batches to the socket under credit
  void note_first_batches();  // T0 may follow once every worker has a batch
  void drain();
  ExitCode report();
  nlohmann::ordered_json record_accounting(const report::RunReport& rep);  // the report's
  nlohmann::json replay_cpu_json() const;  // coordinator.during_replay
  // The run's exit code: an interrupt, a worker's refusal or damaged stream, a loss, else the
  // outputs' own (some record failed or not).
  ExitCode final_status(ExitCode outputs_status) const;

  static bool interrupted();  // SIGINT/SIGTERM since the run started streaming
  bool should_stop();         // interrupted, or a lost worker with --on-worker-loss abort
  void service_links(int timeout_ms);
  void collect_windows();  // every link's new run windows into the time series
  void abort_workers(const std::string& reason);    // ABORT to every unfinished worker
  void release_workers(const std::string& reason);  // before START: ABORT to those that welcomed
  ExitCode fail(const Status& s) const;

  FleetOptions o_;
  util::Clock& clock_;
  Phase phase_ = Phase::Prepare;
  std::unique_ptr<trace::FrameReader> reader_;
  std::vector<WorkerAddress> addresses_;
  std::optional<security::CurveKeyPair> curve_;  // none: plaintext links
  std::unique_ptr<LocalWorkers> local_;
  static constexpr int kMaxSockets = 65536;  // the context's, before its first socket
  zmq::context_t ctx_{1};
  LinkSet links_;
  std::unique_ptr<plan::ShardRouter> router_;  // null when the workers route themselves
  bool self_routing_ = false;
  bool plan_read_ = false;  // self-routing workers read saved_routes_'s file (START's plan_path)
  std::optional<SelfRoutedPlan> self_plan_;  // set in Report when self_routing_
  std::vector<uint64_t> self_kept_;          // per worker: what its scan kept for it
  std::string self_plan_error_;              // the workers' scans disagree: why (exit 2)
  std::unique_ptr<RouteFeed> feed_;          // the routing thread's batches, per link
  std::vector<BatchPacker> packers_;         // per link, on the routing thread
  std::unique_ptr<BatchFanout> fanout_;
  // Time sharding of a run that tracks edges, routed here: the edges the windows cut, charged
  // to the child's node and put in its pacing section (docs/causal-pacing.md).
  // Used on the routing thread, read after its join.
  std::unique_ptr<causal::CutEdgeCounter> cut_edges_;
  std::thread routing_;
  struct RoutingError {
    std::string what, abort_reason;  // empty: none
  } routing_error_;                  // set on the routing thread, read after the join
  double routing_cpu_s_ = -1.0;      // the routing thread's own CPU (-1: no routing thread)
  std::unique_ptr<report::TimeseriesSink> timeseries_;  // fleet_timeseries.csv, during the run
  std::atomic<int> nodes_alive_{0};                     // for the live line
  trace::RecordView rec_;
  bool have_record_ = false;  // rec_ (or saved_route_) holds the next record to route
  // A saved plan being replayed (then the trace is never read past its header), or this run's
  // routes being saved; what the replayed plan has routed so far, as the router would count it.
  std::optional<plan::RoutePlanKey> route_key_;  // with --route-cache
  std::unique_ptr<plan::RoutePlanReader> saved_routes_;
  std::unique_ptr<plan::RoutePlanWriter> routes_writer_;
  std::unique_ptr<plan::RoutePlanReader::Cursor> saved_cursor_;
  plan::SavedRoute saved_route_;  // the next saved route, when have_record_
  struct SavedTally {
    uint64_t records = 0, split_calls = 0;
    std::vector<uint64_t> rows, split_parts;  // per worker
  } saved_tally_;
  // What --route-cache did, for fleet_summary.json coordinator.route_plan (docs/outputs.md).
  struct RoutePlanOutcome {
    bool replayed = false, saved = false;
    std::string file, why_not;  // the plan replayed or saved; why none was replayed or saved
  } route_plan_;
  void route_plan_not_used(const std::string& why);  // logged and kept for the summary
  // "not saved: WHY", logged at LEVEL and kept for the summary.
  void route_plan_not_saved(spdlog::level::level_enum level, const std::string& why);
  double t_origin_ = 0.0;
  bool aborted_ = false;
  std::string abort_reason_;
  // Where the coordinator's wall time went (fleet_summary.json coordinator.phase_s). t0_ns_ is
  // connected_ns_ until GO decides it.
  int64_t began_ns_ = 0, connected_ns_ = 0, t0_ns_ = 0, streamed_ns_ = 0, collected_ns_ = 0;
  // The replay as the coordinator lived it (real clock, whatever the run's): when GO went out,
  // how long before T0, when every result was in, and the process's CPU at both ends
  // (negative: not reached).
  int64_t go_real_ns_ = 0, go_lead_ns_ = 0, collected_real_ns_ = 0;
  double go_cpu_s_ = -1, collected_cpu_s_ = -1;
  int64_t queued_ns_ = 0;  // every worker had a batch, the stream waited for credit, or sent all
  std::optional<T0Decision> t0_;  // set when GO went out
};

}  // namespace fleet::session
