// One replay run of a worker: its own thread builds the engine (connecting to a remote L2 may
// take seconds, and heartbeats must keep flowing meanwhile), reports it ready, waits for the
// coordinator's T0 (GO) while the network thread queues batches, then replays them, and leaves the
// node's DONE message (or why the engine could not be built) for the network thread to send. The
// network thread owns the object; the thread is joined on destruction after being asked to stop.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "fleet/engine/engine_config.h"
#include "fleet/l2replay/l2_fleet_share.h"
#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_replayer.h"
#include "fleet/plan/shard_router.h"
#include "fleet/replay/replay_session.h"
#include "fleet/util/huge_page_allocator.h"
#include "fleet/wire/protocol.h"
#include "fleet/worker/batch_queue.h"

namespace fleet::trace {
class SharedTrace;
}
namespace fleet::util {
class Clock;
}

namespace fleet::service {

struct RunSetup {
  std::string node_name;
  storage::EngineConfig engine;
  replay::SessionOptions session;  // t0_ns: set by GO (start())
  // A run-private VirtualClock: it starts at the real clock's instant of START, and GO's T0
  // does not move it (virtual time is the run's own; the replay starts at once).
  bool virtual_clock = false;
  util::Clock* real_clock = nullptr;                // otherwise: the worker's clock
  std::shared_ptr<const trace::SharedTrace> trace;  // what record references are read from
  int credit_window = 8;
  // Set when the worker routes itself (START's self_routing): the run reads `trace` and
  // replays the share the router gives node `node_index`; no batches come.
  struct SelfRoute {
    plan::RouterOptions router;
    int node_index = 0;
    uint32_t max_frame_bytes = 0;
    bool read_ahead = true;
    // A saved plan to read the share from instead of routing (the policy allowed the path).
    std::string plan_path, plan_key;
    int node_count = 0;
  };
  std::optional<SelfRoute> self_route;
  // Set for an L2 replay (START's l2 block, docs/l2-traces.md "Across the fleet"): the run reads
  // the files (paths checked against --trace-root), builds this node's share and replays it
  // against the one adapter of `engine`; no batches come.
  struct L2 {
    std::vector<std::string> paths;
    std::vector<double> shift_s;
    l2replay::L2ShareOptions share;
    l2replay::L2PlanOptions plan;
    double speed = 1.0;
    double drain_timeout_s = 60.0;
    bool prepare = false;       // seed this node's prepared objects before READY
    bool prepare_only = false;  // and do not replay
  };
  std::optional<L2> l2;
};

class ShareSource;

class ReplayRun {
 public:
  explicit ReplayRun(RunSetup setup);  // starts the run's thread
  ~ReplayRun();
  ReplayRun(const ReplayRun&) = delete;
  ReplayRun& operator=(const ReplayRun&) = delete;

  BatchQueue& queue() { return queue_; }
  const trace::SharedTrace* trace() const { return setup_.trace.get(); }
  int credit_window() const { return setup_.credit_window; }

  // The batch stream as the network thread received it.
  uint64_t batches_received() const { return batches_received_; }
  uint64_t records_received() const { return records_received_.load(); }
  void count_batch(uint64_t records) {
    ++batches_received_;
    records_received_.fetch_add(records);
  }
  // Batches consumed since the last call: what the next CREDIT returns.
  uint64_t take_credit();

  // How long building the engine took, once, the first time it is asked after the engine was
  // built (the network thread then sends READY; the queue's wakeup fd signals the moment).
  std::optional<int64_t> take_ready();
  // GO: replay from T0 on the worker's clock (a second GO is ignored).
  void start(int64_t t0_ns);

  // Live numbers for PROGRESS, with the run windows finished since the last call; nullopt
  // until the engine is built.
  std::optional<wire::Progress> progress();
  static constexpr size_t kWindowsPerProgress = 4096;
  bool windows_pending();  // finished windows not yet taken by progress()
  // ABORT: stop after the current record; the run still ends with a (partial) DONE.
  void request_stop();

  // What the run's thread left: its DONE message, or why the engine could not be built.
  struct Outcome {
    std::optional<util::HugeString> done;
    std::string engine_error;
    std::string trace_error;  // a self-routing worker could not read its share of the trace
  };
  Outcome take_outcome();

 private:
  void run_thread();
  void run_l2(util::Clock& clock, int64_t began_ns);  // l2_replay_run.cc
  std::optional<wire::Progress> l2_progress() const;  // l2_replay_run.cc
  void wait_for_go();                      // GO's T0 into the session options, or a stop request
  bool open_self_routed_source();          // false: why is in outcome_.trace_error
  void finish(replay::SessionResult res);  // the DONE message (or the trace's problem)

  RunSetup setup_;
  BatchQueue queue_;
  std::unique_ptr<util::Clock> vclock_;
  std::unique_ptr<engine::Engine> engine_;
  std::unique_ptr<replay::ReplaySession> session_;
  std::unique_ptr<ShareSource> self_source_;  // with self_route: replaces the queue
  // The same source for the heartbeat thread's progress(), published once it is open.
  std::atomic<const ShareSource*> self_source_view_{nullptr};
  std::atomic<bool> session_ready_{false};
  std::atomic<bool> l2_stop_{false};          // an L2 replay's stop request
  l2replay::L2LiveProgress l2_live_;          // an L2 replay's figures for PROGRESS
  std::atomic<int64_t> engine_build_ns_{-1};  // -1 until the engine is built
  bool ready_taken_ = false;                  // the network thread's
  std::condition_variable go_cv_;
  std::optional<int64_t> go_t0_ns_;  // guarded by mu_
  bool stop_requested_ = false;      // guarded by mu_
  uint64_t credits_sent_ = 0;
  uint64_t batches_received_ = 0;
  std::atomic<uint64_t> records_received_{0};
  std::mutex mu_;
  Outcome outcome_;                        // guarded by mu_
  std::vector<stats::RunWindow> windows_;  // guarded by mu_: finished, not yet sent
  std::thread thread_;                     // last: starts once everything above exists
};

}  // namespace fleet::service
