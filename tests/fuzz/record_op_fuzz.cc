// Untrusted input: one record frame body (the msgpack Record map of a `.lct` frame, or of a
// batch frame on a worker), parsed strictly and with the deferred args check, then decoded
// into an Op (decode_op), scanned (scan_record) and checked (check_deferred_args) as the
// reader, the replay and the planner do. DecodeError (and its MalformedRecord) is expected;
// anything else, or a sanitizer report, is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/trace/record.h"

namespace {

void decode_all(const fleet::trace::RecordView& rec) {
  using namespace fleet::trace;
  Op op;
  try {
    decode_op(rec, op);
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
    decode_all(rec);
  }
  return 0;
}
