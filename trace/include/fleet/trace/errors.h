// Typed errors of the trace library. Every message names where the problem is (file and byte
// offset) so a user can find it with a hex dump; only `main` turns them into exit codes.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace fleet::trace {

// A msgpack value (or codec payload) that does not decode. `offset` is relative to the buffer
// being decoded; callers that know the file offset add it when they rethrow.
class DecodeError : public std::runtime_error {
 public:
  DecodeError(uint64_t offset, const std::string& what)
      : std::runtime_error(what + " at byte " + std::to_string(offset)),
        offset_(offset),
        message_(what) {}
  uint64_t offset() const { return offset_; }
  // The problem without the offset (for callers that rethrow with a rebased offset).
  const std::string& message() const { return message_; }

 private:
  uint64_t offset_;
  std::string message_;
};

// A frame that is not a valid Record under msgspec's rules (found late, while decoding args
// whose validation was deferred): the reader's "malformed, skipped" case, not an args error.
class MalformedRecord : public DecodeError {
 public:
  using DecodeError::DecodeError;
};

// The file cannot be used at all: unreadable path, bad header, oversized frame prefix.
class TraceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace fleet::trace
