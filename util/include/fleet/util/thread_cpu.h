// The calling thread's own CPU time (user + system), for a process whose threads' costs are
// reported apart (the coordinator's control and routing threads, docs/scaling.md).
#pragma once

#include <ctime>

namespace fleet::util {

inline double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) / 1e9;
}

}  // namespace fleet::util
