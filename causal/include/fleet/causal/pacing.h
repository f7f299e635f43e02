// How a paced replay at --speed S spaces its calls (docs/causal-pacing.md): `uniform` divides
// every recorded gap by S (today's behaviour, and LMCache's at S = 1); `causal` divides every
// gap but its dependency edges' (edge.h), which keep their recorded length, and runs the
// engine's own time on the trace's time as the replay issues it. The default: causal when S > 1,
// uniform otherwise.
#pragma once

#include <optional>
#include <string_view>

namespace fleet::causal {

enum class Pacing { Uniform, Causal };
// Causal only: `ordered` issues in recorded order (a held record holds the ones behind it);
// `partial` parks a held record and lets records of other keys overtake it (partial_schedule.h).
enum class Schedule { Ordered, Partial };

std::string_view pacing_name(Pacing p);  // "uniform" | "causal"
std::optional<Pacing> pacing_from_name(std::string_view name);

// The pacing a run at `speed` uses when none is asked for.
inline Pacing default_pacing(double speed) {
  return speed > 1.0 ? Pacing::Causal : Pacing::Uniform;
}

// How many times faster than the wall the engine's own time runs for this pacing and speed:
// S for causal pacing, 1 otherwise (uniform keeps today's behaviour for comparison).
inline double engine_time_scale(Pacing p, double speed) {
  return p == Pacing::Causal && speed > 0.0 ? speed : 1.0;
}

// Whether a replay at this pacing and speed tracks dependency edges (and reports a "pacing"
// section): causal runs, and uniform runs faster than 1x (to show what the speed-up raced).
inline bool tracks_edges(Pacing p, double speed) {
  return speed > 0.0 && (p == Pacing::Causal || speed > 1.0);
}

// Whether the engine's tick and TTLs follow the trace's time as the replay issues it
// (EngineConfig::follow_trace_time): causal pacing at any speed but 1x and as fast as possible.
inline bool engine_follows_trace(Pacing p, double speed) {
  return p == Pacing::Causal && speed > 0.0 && speed != 1.0;
}

}  // namespace fleet::causal
