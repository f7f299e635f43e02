// Per-key outcome codes of LMCache's L1 manager (era 3). The StorageManager never raises for
// them; they feed the engine's counters.
#pragma once

#include <cstdint>
#include <string_view>

namespace fleet::storage {

enum class L1Status : uint8_t {
  Success,
  KeyNotExist,
  KeyNotWritable,
  KeyNotReadable,
  KeyInWrongState,
  KeyIsLocked,
  OutOfMemory,
};

constexpr std::string_view l1_status_name(L1Status s) {
  switch (s) {
    case L1Status::Success:
      return "SUCCESS";
    case L1Status::KeyNotExist:
      return "KEY_NOT_EXIST";
    case L1Status::KeyNotWritable:
      return "KEY_NOT_WRITABLE";
    case L1Status::KeyNotReadable:
      return "KEY_NOT_READABLE";
    case L1Status::KeyInWrongState:
      return "KEY_IN_WRONG_STATE";
    case L1Status::KeyIsLocked:
      return "KEY_IS_LOCKED";
    case L1Status::OutOfMemory:
      return "OUT_OF_MEMORY";
  }
  return "?";
}

}  // namespace fleet::storage
