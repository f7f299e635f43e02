// Untrusted input: one record frame body (the msgpack Record map of a `.lct` frame, or of a
// batch frame on a worker), parsed strictly and with the deferred args check, then decoded
// into an Op (decode_op), scanned (scan_record) and checked (check_deferred_args) as the
// reader, the replay and the planner do. DecodeError (and its MalformedRecord) is expected;
// anything else, or a sanitizer report, is a bug. A record that decodes is decoded once more
// as a split call's part, with a key mask made of the input's bytes: the part must be the whole
// decode's keys filtered by the mask (codecs.h, KeyMask) or refused as MalformedRecord (no key
// kept, or a record whose "keys" argument repeats with another length); a DecodeError or other
// keys trap.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/record.h"

namespace {

void check_split_part(const fleet::trace::RecordView& rec, const fleet::trace::Op& whole,
                      const uint8_t* data, size_t size) {
  using namespace fleet::trace;
  const std::vector<ObjectKey>& keys = whole.op_keys();
  if (keys.empty() || size == 0) return;
  std::string bits((keys.size() + 7) / 8, '\0');
  for (size_t i = 0; i < bits.size(); ++i) bits[i] = static_cast<char>(data[(i * 7) % size]);
  std::vector<ObjectKey> expected;
  for (size_t i = 0; i < keys.size(); ++i)
    if ((static_cast<uint8_t>(bits[i / 8]) >> (i % 8)) & 1u) expected.push_back(keys[i]);
  RecordView part = rec;
  part.key_mask = bits;
  part.key_mask_keys = static_cast<uint32_t>(keys.size());
  Op op;
  try {
    decode_op(part, op);
  } catch (const MalformedRecord&) {
    return;  // a refusal (no key kept, or an earlier "keys" argument of another length)
  } catch (const DecodeError&) {
    __builtin_trap();  // the whole record decoded: so must its part
  }
  if (op.op_keys() != expected) __builtin_trap();
}

void decode_all(const fleet::trace::RecordView& rec, const uint8_t* data, size_t size) {
  using namespace fleet::trace;
  Op op;
  try {
    decode_op(rec, op);
    if (op.kind != OpKind::Unknown) check_split_part(rec, op, data, size);
  } catch (const DecodeError&) {
  }
  ScanInfo scan;
  try {
    scan_record(rec, scan);
  } catch (const DecodeError&) {
  }
  try {
    check_deferred_args(rec);
  } catch (const DecodeError&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet::trace;
  // libFuzzer hands an exact-size heap copy: ASan sees any read past the frame's end.
  for (bool defer : {false, true}) {
    RecordView rec;
    try {
      parse_record(data, size, rec, {}, defer);
    } catch (const DecodeError&) {
      continue;
    }
    decode_all(rec, data, size);
  }
  return 0;
}
