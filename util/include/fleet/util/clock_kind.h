// Which clock a run keeps: the real monotonic one (paced) or the virtual one (discrete-event).
// One name table for every place the word is written or read: --clock, the START message's
// `clock`, fleet_summary.json's `clock` and the terminal's "Clock" row.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>

namespace fleet::util {

enum class ClockKind { Real, Virtual };

inline constexpr std::array<std::pair<std::string_view, ClockKind>, 2> kClockNames{
    {{"real", ClockKind::Real}, {"virtual", ClockKind::Virtual}}};

inline std::string clock_name(ClockKind kind) {
  return std::string(kind == ClockKind::Virtual ? kClockNames[1].first : kClockNames[0].first);
}

inline ClockKind clock_kind(bool virtual_clock) {
  return virtual_clock ? ClockKind::Virtual : ClockKind::Real;
}

// The clock a peer's word names; a word the table does not know is the real clock (what a
// worker has always run on when the coordinator names no virtual clock).
inline ClockKind clock_kind_of(std::string_view word) {
  return word == kClockNames[1].first ? ClockKind::Virtual : ClockKind::Real;
}

}  // namespace fleet::util
