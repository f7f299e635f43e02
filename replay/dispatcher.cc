#include "fleet/replay/dispatcher.h"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace fleet::replay {

size_t KeyTupleHash::operator()(const std::vector<trace::ObjectKey>& keys) const noexcept {
  trace::ObjectKeyHash h;
  size_t acc = keys.size();
  for (const auto& k : keys) acc = acc * 0x100000001b3ull ^ h(k);
  return acc;
}

engine::CallResult Dispatcher::dispatch(const trace::Op& op) {
  using trace::OpKind;
  switch (op.kind) {
    case OpKind::ReserveWrite:
      return engine_.reserve_write(op.keys, op.layout, op.mode);
    case OpKind::FinishWrite:
      return engine_.finish_write(op.keys);
    case OpKind::AbortWrite:
      return engine_.abort_write(op.keys);
    case OpKind::SubmitPrefetch:
      return engine_.submit_prefetch(op.spec, op.external_request_id, op.skip_l2);
    case OpKind::ReadEnter:
      return enter(op);
    case OpKind::ReadExit:
      return exit(op);
    case OpKind::FinishRead:
      return engine_.finish_read(op.keys, op.read_locks);
    case OpKind::Unknown:
      break;
  }
  return engine::CallResult::fail("no handler for " + std::string(op.qualname()));
}

engine::CallResult Dispatcher::enter(const trace::Op& op) {
  engine::ReadContext ctx;
  engine::CallResult r = engine_.read_enter(op.keys, ctx);
  if (r.failed) return r;
  if (ctx.keys.size() != op.keys.size()) ctx.keys = op.keys;  // pairing compares recorded keys
  auto [it, inserted] = open_.try_emplace(KeyTupleHash{}(op.keys));
  if (inserted) it->second.seq = next_seq_++;
  it->second.queue.push_back(std::move(ctx));
  ++open_count_;
  return r;
}

engine::CallResult Dispatcher::exit(const trace::Op& op) {
  auto it = open_.find(KeyTupleHash{}(op.keys));
  std::vector<engine::ReadContext>::iterator match;
  if (it != open_.end()) {
    auto& q = it->second.queue;
    match = std::find_if(q.begin(), q.end(),
                         [&](const engine::ReadContext& c) { return c.keys == op.keys; });
    if (match == q.end()) it = open_.end();
  }
  if (it == open_.end()) {
    ++counters_.exits_without_enter;
    if (counters_.exits_without_enter <= 10) {
      spdlog::warn(
          "read_prefetched_results.__exit__ with no open __enter__ for {} key(s); "
          "counted as replayed, as LMCache does",
          op.keys.size());
    }
    return engine::CallResult::ok();
  }
  engine::ReadContext ctx = std::move(*match);
  it->second.queue.erase(match);
  if (it->second.queue.empty()) open_.erase(it);
  --open_count_;
  return engine_.read_exit(ctx);
}

uint64_t Dispatcher::close_dangling() {
  std::vector<OpenTuple*> order;
  for (auto& [keys, entry] : open_) order.push_back(&entry);
  std::sort(order.begin(), order.end(),
            [](const OpenTuple* a, const OpenTuple* b) { return a->seq < b->seq; });
  uint64_t closed = 0;
  for (OpenTuple* entry : order) {
    for (auto& ctx : entry->queue) {
      engine::CallResult r = engine_.read_exit(ctx);
      if (r.failed) spdlog::warn("closing a dangling read context failed: {}", r.error);
      ++closed;
    }
  }
  open_.clear();
  open_count_ = 0;
  counters_.dangling_contexts_closed += closed;
  return closed;
}

}  // namespace fleet::replay
