// Untrusted input: a BATCH's payload as the worker decodes it (worker_protocol.cc on_batch,
// then BatchQueue::next): decode_batch (zstd or "none", against the declared raw size),
// split_frames, then every frame parsed as a Record with the deferred args check.
// Input layout: byte 0 picks the codec (bit 0: zstd/none; bit 1: an unknown codec name), bytes
// 1-4 the declared raw size (u32 BE), the rest is the payload. ProtocolError and DecodeError are
// expected; anything else, a sanitizer report, a leak or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fleet/trace/errors.h"
#include "fleet/trace/record.h"
#include "fleet/util/big_endian.h"
#include "fleet/wire/batch.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet;
  if (size < 5) return 0;
  const std::string_view codec = data[0] & 2 ? "lz4" : data[0] & 1 ? "none" : "zstd";
  const uint64_t declared = util::load_be32(data + 1);
  const std::string_view payload(reinterpret_cast<const char*>(data + 5), size - 5);
  try {
    wire::RawBatch raw = wire::decode_batch(payload, codec, declared);
    wire::SplitBatch split = wire::split_frames(raw, nullptr);
    for (std::string_view f : split.frames) {
      trace::RecordView rec;
      try {
        trace::parse_record(reinterpret_cast<const uint8_t*>(f.data()), f.size(), rec, {}, true);
      } catch (const trace::DecodeError&) {
      }
    }
  } catch (const wire::ProtocolError&) {
  }
  return 0;
}
