#include "fleet/causal/late_cause.h"

namespace fleet::causal {

std::string_view late_cause_name(LateCause c) {
  switch (c) {
    case LateCause::PreviousCall:
      return "previous_call";
    case LateCause::BetweenCalls:
      return "between_calls";
    case LateCause::EngineEvents:
      return "engine_events";
    case LateCause::WokeLate:
      return "woke_late";
    case LateCause::AfterWaking:
      return "after_waking";
    case LateCause::NextRecord:
      return "next_record";
  }
  return "after_waking";
}

LateCause late_cause(int64_t due_ns, int64_t slack_ns, const IssueTimes& t) {
  const int64_t limit = due_ns + slack_ns;
  if (t.previous_call_end > limit) return LateCause::PreviousCall;
  if (t.bookkeeping_done > limit) return LateCause::BetweenCalls;
  if (t.arrived > limit) return LateCause::NextRecord;
  if (t.events_done > limit) return LateCause::EngineEvents;
  if (t.woke > limit) return LateCause::WokeLate;
  return LateCause::AfterWaking;
}

}  // namespace fleet::causal
