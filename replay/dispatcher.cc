#include "fleet/replay/dispatcher.h"

#include <spdlog/spdlog.h>

namespace fleet::replay {

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
  open_.open(op.keys, std::move(ctx));
  return r;
}

engine::CallResult Dispatcher::exit(const trace::Op& op) {
  engine::ReadContext ctx;
  if (open_.close(op.keys, ctx)) return engine_.read_exit(ctx);
  ++counters_.exits_without_enter;
  if (counters_.exits_without_enter <= 10) {
    spdlog::warn(
        "read_prefetched_results.__exit__ with no open __enter__ for {} key(s); "
        "counted as replayed, as LMCache does",
        op.keys.size());
  }
  return engine::CallResult::ok();
}

uint64_t Dispatcher::close_dangling() {
  uint64_t closed = 0;
  open_.close_all([&](engine::ReadContext& ctx) {
    engine::CallResult r = engine_.read_exit(ctx);
    if (r.failed) spdlog::warn("closing a dangling read context failed: {}", r.error);
    ++closed;
  });
  counters_.dangling_contexts_closed += closed;
  return closed;
}

}  // namespace fleet::replay
