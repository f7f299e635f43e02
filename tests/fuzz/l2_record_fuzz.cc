// Untrusted input: one record frame body of an L2 trace (`level = "l2"`), parsed strictly and
// with the deferred args check, then decoded into an L2Record (decode_l2_record) as L2Reader
// does. DecodeError (and its MalformedRecord) is expected; anything else, or a sanitizer
// report, is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>

#include "fleet/trace/errors.h"
#include "fleet/trace/l2_decoder.h"
#include "fleet/trace/record.h"

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
    L2Record out;
    try {
      decode_l2_record(rec, out);
    } catch (const DecodeError&) {
    }
  }
  return 0;
}
