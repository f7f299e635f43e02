// Untrusted input: engine config JSON text, through every door it enters by: one --l2-adapter
// spec (normalize_l2_adapter_json), a --config-file (engine_config_from_config_file_json, then
// validate and digest as a run does), a START's engine_config_json on a worker (the same, then
// the host policy's check_run_config), and a trace header's sm_config_json
// (engine_config_from_lmcache_json), each text parsed by parse_engine_config_json.
// std::invalid_argument is the documented error (and the only one --config-file's callback
// catches); any crash, sanitizer report, other exception (a stray nlohmann::json::exception
// included), leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "fleet/engine/engine_config.h"
#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/worker/host_policy.h"

namespace {

using fleet::storage::EngineConfig;
using nlohmann::json;

// A policy that lets a run bring fs and resp adapters (so their checks run), with an L1 limit.
const fleet::policy::HostPolicy& policy() {
  static const fleet::policy::HostPolicy p = [] {
    fleet::policy::HostPolicyOptions o;
    o.fs_root = "/tmp";
    o.allow_l2 = {"127.0.0.1:6379,redis:6379"};
    o.max_l1_gb = 64;
    auto made = fleet::policy::HostPolicy::make(o);
    if (!made) std::abort();
    return made.value();
  }();
  return p;
}

// What a run does with a config it accepted.
void use(const EngineConfig& cfg) {
  if (!cfg.validate()) return;
  (void)cfg.digest();
  (void)fleet::storage::to_report_json(cfg).dump();
  (void)policy().check_run_config(cfg);
}

// The documented error of every door: the CLI's --config-file callback catches this alone.
template <class F>
void door(F&& f) {
  try {
    f();
  } catch (const std::invalid_argument&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  (void)policy();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet::storage;
  json j;
  try {  // every door parses the text this way
    j = parse_engine_config_json(std::string(reinterpret_cast<const char*>(data), size), "input");
  } catch (const std::invalid_argument&) {
    return 0;
  }
  door([&] {  // --l2-adapter JSON (flags/engine_flags.cc)
    EngineConfig cfg;
    add_l2_adapter(cfg, normalize_l2_adapter_json(j));
    use(cfg);
  });
  door([&] {  // --config-file PATH, and a worker's START.engine_config_json
    use(engine_config_from_config_file_json(j));
  });
  door([&] {  // a trace header's sm_config_json (--config-from-trace)
    use(engine_config_from_lmcache_json(j));
  });
  return 0;
}
