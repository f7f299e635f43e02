// Untrusted input: a whole L2 trace file, planned (build_l2_plan: the edges, the selection, the
// prepared objects) and, when the plan is accepted, seeded and replayed against the mock
// adapter on a virtual clock at --speed 0, with its l2_replay_stats.json written, as
// `coordinator FILE --prepare-l2 --speed 0 --clock virtual` does. A refusal is a Result; any
// exception, crash, sanitizer report, hang or out-of-memory is a bug, and so is a replay that
// issues an op before its dependency completed or does not issue every op of an accepted plan.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "fleet/engine/engine_config.h"
#include "fleet/l2replay/l2_plan.h"
#include "fleet/l2replay/l2_prepare.h"
#include "fleet/l2replay/l2_replayer.h"
#include "fleet/l2replay/l2_stats_json.h"
#include "fleet/l2replay/l2_target.h"
#include "fleet/util/clock.h"
#include "fuzz_util.h"

namespace {

using namespace fleet;

void replay(l2replay::L2Plan& plan) {
  storage::EngineConfig config;
  config.l2_adapters = {R"({"type":"mock","max_size_gb":1,"mock_bandwidth_gb":10})"};
  util::VirtualClock clock(1'000'000'000);
  auto target = l2replay::L2Target::create(config, clock);
  if (!target) std::abort();                               // the config is this target's own
  (void)l2replay::prepare_l2(plan, *target.value(), 5.0);  // the mock may refuse a size
  l2replay::L2ReplayOptions o;
  o.speed = 0;
  o.drain_timeout_s = 5.0;
  o.progress_every_s = 0;
  const auto r = l2replay::replay_l2_plan(plan, *target.value(), o);
  if (!r) std::abort();  // every op completes on the mock: an accepted plan never stalls
  if (r->dependency_violations != 0 || r->dispatched() != plan.ops.size()) std::abort();
  (void)l2replay::l2_replay_stats_text(plan, r.value());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string& path = fleet::fuzz::input_file(data, size);
  // Every other input with a selection (--trace-percent 50): the cut and what lies past it.
  static bool half = false;
  half = !half;
  l2replay::L2PlanOptions o;
  o.trace_percent = half ? 50 : 100;
  auto plan = l2replay::build_l2_plan(path, o);
  if (plan) replay(plan.value());
  return 0;
}
