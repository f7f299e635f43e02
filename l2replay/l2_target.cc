#include "fleet/l2replay/l2_target.h"

#include <algorithm>
#include <chrono>
#include <nlohmann/json.hpp>

#include "fleet/engine/engine_config.h"
#include "fleet/engine/l2_adapter_factory.h"

namespace fleet::l2replay {

Result<std::unique_ptr<L2Target>> L2Target::create(const storage::EngineConfig& config,
                                                   util::Clock& clock) {
  if (config.l2_adapters.size() != 1) {
    return Status::error("L2 replay requires exactly one target adapter (--l2-adapter; " +
                         std::to_string(config.l2_adapters.size()) + " given)");
  }
  // Every key the target sees carries the namespace: the same bound as a storage run's.
  if (Status ns = storage::check_l2_key_namespace(config.l2_key_namespace); !ns) return ns;
  Result<std::unique_ptr<storage::L2Adapter>> adapter =
      storage::make_l2_adapter(nlohmann::json::parse(config.l2_adapters[0]));
  if (!adapter) return adapter.status();
  return std::unique_ptr<L2Target>(new L2Target(std::move(adapter).value(), config, clock));
}

L2Target::L2Target(std::unique_ptr<storage::L2Adapter> adapter, const storage::EngineConfig& config,
                   util::Clock& clock)
    : clock_(clock), adapter_(std::move(adapter)) {
  storage::L2AdapterContext ctx;
  ctx.clock = &clock_;
  ctx.synchronous = clock_.is_virtual();  // as the engine: inline I/O keeps a run deterministic
  ctx.key_namespace = config.l2_key_namespace;
  // By reference: a completion moves into the inbox once (it is ~140 bytes with a string and
  // two vectors, and every completion of a replay passes here).
  ctx.deliver = [this](int64_t at, storage::L2Completion&& c) { deliver(at, std::move(c)); };
  adapter_->attach(std::move(ctx));
}

L2Target::~L2Target() {
  if (adapter_) adapter_->close();
}

void L2Target::deliver(int64_t at_ns, storage::L2Completion&& c) {
  std::lock_guard<std::mutex> g(mu_);
  inbox_.completions.push_back(std::move(c));
  inbox_.at.push_back(at_ns);
  if (waiting_) arrived_.notify_one();
}

void L2Target::take_due(int64_t now_ns, std::vector<storage::L2Completion>& out) {
  {
    std::lock_guard<std::mutex> g(mu_);
    std::swap(taken_, inbox_);
  }
  std::vector<storage::L2Completion>& got = taken_.completions;
  const bool all_due = std::all_of(taken_.at.begin(), taken_.at.end(),
                                   [now_ns](int64_t at) { return at <= now_ns; });
  if (all_due && out.empty() && later_.empty()) {
    out.swap(got);  // the same order as the moves below would give
  } else {
    for (size_t i = 0; i < got.size(); ++i) {
      if (taken_.at[i] <= now_ns) {
        out.push_back(std::move(got[i]));
      } else {
        later_.push(Due{taken_.at[i], seq_++, std::move(got[i])});
      }
    }
  }
  got.clear();
  taken_.at.clear();
  while (!later_.empty() && later_.top().at <= now_ns) {
    out.push_back(std::move(const_cast<Due&>(later_.top()).c));
    later_.pop();
  }
}

void L2Target::wait(int64_t deadline_ns) {
  if (!later_.empty()) deadline_ns = std::min(deadline_ns, later_.top().at);
  if (clock_.is_virtual()) {  // inline adapters: nothing can arrive meanwhile
    clock_.sleep_until(deadline_ns);
    return;
  }
  std::unique_lock<std::mutex> lock(mu_);
  if (!inbox_.at.empty()) return;
  const int64_t now = clock_.now_ns();
  if (deadline_ns <= now) return;
  // Sleep at most 1 ms at a time on the condition variable; the last stretch before a paced
  // target spins in the clock, which lands within microseconds.
  const int64_t spin = 300'000;
  if (deadline_ns - now > spin) {
    waiting_ = true;
    arrived_.wait_for(
        lock, std::chrono::nanoseconds(std::min<int64_t>(deadline_ns - now - spin, 1'000'000)));
    waiting_ = false;
    return;
  }
  lock.unlock();
  clock_.sleep_until(deadline_ns);
}

}  // namespace fleet::l2replay
