// Untrusted input: a file of worker addresses, read both as a --workers hosts file
// (parse_hosts_file: `host:port [key=<Z85>]` lines, # comments) and as a --known-workers file
// (KnownWorkers::load), then the keys assigned as the coordinator does. std::invalid_argument
// (hosts file) and an error Status (known workers) are expected; any crash, sanitizer report,
// other exception, leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "fleet/coordinator/session/known_workers.h"
#include "fleet/coordinator/session/worker_addresses.h"
#include "fuzz_util.h"

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet::session;
  const std::string& path = fleet::fuzz::input_file(data, size);
  std::vector<WorkerAddress> workers;
  if (auto parsed = parse_hosts_file(path)) {
    workers = std::move(parsed).value();
    for (const auto& w : workers) (void)w.endpoint();
  }
  auto known = KnownWorkers::load(path);
  if (known) {
    (void)assign_worker_keys(workers, &known.value(), true);
    (void)assign_worker_keys(workers, &known.value(), false);
  }
  return 0;
}
