// The replay's target: one L2 adapter built from the same --l2-adapter JSON the engine reads
// (mock, fs, resp, fault_inject), with no StorageManager in between, and the completions it
// delivers (inline for the mock and under a virtual clock, from I/O threads otherwise) queued
// until the replay loop takes them at or after their delivery time.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <queue>
#include <vector>

#include "fleet/engine/engine_config.h"
#include "fleet/engine/l2_adapter.h"
#include "fleet/util/clock.h"
#include "fleet/util/status.h"

namespace fleet::l2replay {

class L2Target {
 public:
  // The target, or why there is none: `config` does not have exactly one L2 adapter ("L2 replay
  // requires exactly one target adapter"), or the adapter cannot be built or reached (the
  // builder's message). --l2-key-namespace applies as in the engine.
  static Result<std::unique_ptr<L2Target>> create(const storage::EngineConfig& config,
                                                  util::Clock& clock);
  ~L2Target();
  L2Target(const L2Target&) = delete;
  L2Target& operator=(const L2Target&) = delete;

  storage::L2Adapter& adapter() { return *adapter_; }
  util::Clock& clock() { return clock_; }
  // The adapter's reported type ("mock", "fs", "resp", "fault_inject").
  std::string name() const { return std::string(adapter_->type()); }

  // Appends every completion due at or before `now_ns` to `out`: those delivered since the last
  // call in delivery order, then those held back before, by time.
  void take_due(int64_t now_ns, std::vector<storage::L2Completion>& out);
  // Waits until `deadline_ns`, or less when a completion arrives or one queued falls due.
  void wait(int64_t deadline_ns);

 private:
  struct Due {
    int64_t at;
    uint64_t seq;
    storage::L2Completion c;
    bool operator>(const Due& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  L2Target(std::unique_ptr<storage::L2Adapter> adapter, const storage::EngineConfig& config,
           util::Clock& clock);
  void deliver(int64_t at_ns, storage::L2Completion&& c);

  util::Clock& clock_;
  std::unique_ptr<storage::L2Adapter> adapter_;
  std::mutex mu_;
  std::condition_variable arrived_;
  bool waiting_ = false;
  // Delivered, not yet taken: each completion and its time, side by side, so that when all are
  // due (the mock's, at speed 0) the completions go to the caller in one swap, not one move each.
  struct Inbox {
    std::vector<storage::L2Completion> completions;
    std::vector<int64_t> at;
  };
  Inbox inbox_;
  Inbox taken_;  // reused buffers
  std::priority_queue<Due, std::vector<Due>, std::greater<>> later_;
  uint64_t seq_ = 0;
};

}  // namespace fleet::l2replay
