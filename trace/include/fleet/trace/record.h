// A record frame parsed just far enough to route it: t_mono, t_wall, qualname and the byte
// range of `args`, all views into the frame body (valid until the reader's next call).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleet/trace/msgpack_reader.h"

namespace fleet::trace {

struct RecordView {
  uint64_t file_offset = 0;  // offset of the frame's length prefix in the file
  const uint8_t* body = nullptr;
  size_t body_size = 0;
  double t_mono = 0.0;
  double t_wall = 0.0;
  std::string_view qualname;
  size_t args_offset = 0;  // within body: start of the args map
  size_t args_size = 0;
  // False when parse_record deferred the check of `args` (decode_op then validates while it
  // decodes and throws MalformedRecord for a frame msgspec would reject).
  bool args_checked = true;
  // Key sharding's part of a call (wire/batch.h, masked reference): bit i of `key_mask` keeps
  // key i of the record's `key_mask_keys` keys. Empty: the whole record. Set by the worker's
  // batch source; decode_op decodes only the keys it keeps.
  std::string_view key_mask;
  uint32_t key_mask_keys = 0;
};

// Parses a frame body as a Record under msgspec's rules (map with str keys; "type", if present,
// must be "record"; t_mono/t_wall/qualname/args required; args a map with str keys; no trailing
// bytes). Throws DecodeError when the frame is not a valid Record. With `defer_args_check`,
// an `args` that ends the frame (the order LMCache writes) is not walked here: the replay
// decodes it anyway, and one pass instead of two is the replay loop's largest saving.
// The deferred args check alone (the rest of the frame passed when it was parsed): true when
// the strict parse would accept the frame. Only its message needs the strict parse again.
bool deferred_args_valid(const RecordView& rec);

void parse_record(const uint8_t* body, size_t size, RecordView& out,
                  const MsgpackLimits& limits = {}, bool defer_args_check = false);

}  // namespace fleet::trace
