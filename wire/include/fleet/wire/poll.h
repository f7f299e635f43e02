// zmq::poll that treats a signal as a timeout: cppzmq throws on EINTR, and a Ctrl-C arriving
// while the coordinator (or a worker) waits on its sockets must end in the orderly
// stop-and-report path, not in std::terminate.
#pragma once

#include <cerrno>
#include <chrono>
#include <zmq.hpp>

namespace fleet::wire {

inline int poll_sockets(zmq::pollitem_t* items, size_t n, std::chrono::milliseconds timeout) {
  try {
    return zmq::poll(items, n, timeout);
  } catch (const zmq::error_t& e) {
    if (e.num() == EINTR) return 0;
    throw;
  }
}

}  // namespace fleet::wire
