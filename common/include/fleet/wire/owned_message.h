// A ZeroMQ message that takes over a std::string's buffer instead of copying it: batches and
// DONE results are hundreds of KiB to MiB, and every copy is fresh memory that page-faults in
// (which on virtual machines costs more than the copy itself).
#pragma once

#include <string>

#include <zmq.hpp>

namespace fleet::wire {

inline zmq::message_t owned_message(std::string&& bytes) {
  if (bytes.size() < 64) return zmq::message_t(bytes.data(), bytes.size());  // zmq copies small ones
  auto* owned = new std::string(std::move(bytes));
  return zmq::message_t(
      owned->data(), owned->size(),
      [](void*, void* hint) { delete static_cast<std::string*>(hint); }, owned);
}

}  // namespace fleet::wire
