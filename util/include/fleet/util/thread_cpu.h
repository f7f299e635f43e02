// CPU time (user + system) of the calling thread, or of the whole process, for a process whose
// threads' and phases' costs are reported apart (the coordinator's control and routing threads,
// its CPU during the replay: docs/scaling.md).
#pragma once

#include <ctime>

namespace fleet::util {

inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

inline double process_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace fleet::util
