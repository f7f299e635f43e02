// Untrusted input: a DONE message's `result` (a worker's NodeResult) as the coordinator decodes
// it (worker_link.cc on_done): decode_node_result, both copying the samples and reading them in
// place with an owner (the zero-copy path). ProtocolError is the one expected exception;
// anything else, a sanitizer report, a leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>

#include "fleet/wire/node_result.h"
#include "fleet/wire/protocol.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet::wire;
  try {
    decode_node_result(std::string_view(reinterpret_cast<const char*>(data), size));
  } catch (const ProtocolError&) {
  }
  // In place: an 8-byte aligned copy the decoded stats keep alive, as the received message.
  std::shared_ptr<double[]> owned(new double[size / sizeof(double) + 1]);
  std::memcpy(owned.get(), data, size);
  try {
    NodeResult r = decode_node_result(
        std::string_view(reinterpret_cast<const char*>(owned.get()), size), owned);
    for (const auto& [q, s] : r.stats.ops()) (void)s.count();
  } catch (const ProtocolError&) {
  }
  return 0;
}
