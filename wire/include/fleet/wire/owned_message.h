// A ZeroMQ message that takes over a std::string's buffer instead of copying it: batches and
// DONE results are hundreds of KiB to MiB, and every copy is fresh memory that page-faults in
// (which on virtual machines costs more than the copy itself).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <zmq.hpp>

namespace fleet::wire {

// `String`: std::string, or a string with another allocator (util::HugeString), given as an
// rvalue (its buffer is taken over).
template <class String>
requires(!std::is_lvalue_reference_v<String>) zmq::message_t owned_message(String&& bytes) {
  using S = std::remove_cvref_t<String>;
  if (bytes.size() < 64)
    return zmq::message_t(bytes.data(), bytes.size());  // zmq copies small ones
  auto* owned = new S(std::move(bytes));
  return zmq::message_t(
      owned->data(), owned->size(), [](void*, void* hint) { delete static_cast<S*>(hint); }, owned);
}

// The same for a buffer several messages share (one batch sent to many workers): each message
// holds a reference to `owner` until ZeroMQ has sent it.
template <class T>
zmq::message_t shared_message(std::shared_ptr<const T> owner, std::string_view bytes) {
  auto* hold = new std::shared_ptr<const T>(std::move(owner));
  return zmq::message_t(
      const_cast<char*>(bytes.data()), bytes.size(),
      [](void*, void* hint) { delete static_cast<std::shared_ptr<const T>*>(hint); }, hold);
}

}  // namespace fleet::wire
