// Why a binding edge's call started more than 50 us after its record's causal instant ("due"):
// the instants the replay loop passed on the way to the call, each compared with due + 50 us,
// name the first step that was already too late. The order is the loop's own: the previous call
// returns, the loop does its bookkeeping, takes the next record up, the engine runs its events
// due before the record, the pacer sleeps, then the call goes (docs/causal-pacing.md,
// "Why an edge is late"). NextRecord is last in the enum only so that older runs' counts keep
// their positions; its place in the loop is after BetweenCalls.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace fleet::causal {

enum class LateCause : uint8_t {
  PreviousCall,  // the dispatcher was still inside the previous record's call
  BetweenCalls,  // after it returned: its bookkeeping (counting, per-record outputs)
  EngineEvents,  // the engine's own events due before the record (tick, store and prefetch polls)
  WokeLate,      // the pacer's sleep ended late (timer slack, the thread preempted)
  AfterWaking,   // after the wake-up: an L2 completion wait, the trace-time tick, miss labels
  NextRecord,    // taking the record up: reading and decoding it, waiting for the feed, its edges
};
inline constexpr size_t kLateCauseCount = 6;

std::string_view late_cause_name(LateCause c);

// The instants of one record's way to its call (ns on the replay clock).
struct IssueTimes {
  int64_t previous_call_end = 0;  // the previous dispatch returned
  int64_t bookkeeping_done = 0;   // the previous record's bookkeeping was done
  int64_t arrived = 0;            // the loop had this record up (before any engine event)
  int64_t events_done = 0;        // the engine's due events had run
  int64_t woke = 0;               // the pacer's wait returned
};

// The first of those instants past due + slack names the cause; none past it: AfterWaking.
LateCause late_cause(int64_t due_ns, int64_t slack_ns, const IssueTimes& t);

using LateCauseCounts = std::array<uint64_t, kLateCauseCount>;

}  // namespace fleet::causal
