// Untrusted input: engine config JSON text, through every door it enters by: one --l2-adapter
// spec (normalize_l2_adapter_json), a --config-file (engine_config_from_config_file_json, then
// validate and digest as a run does), a START's engine_config_json on a worker (the same, then
// the host policy's check_run_config), and a trace header's sm_config_json
// (engine_config_from_lmcache_json), each text parsed by parse_engine_config_json.
// A refusal is a Status (every door returns a Result); any crash, sanitizer report, exception
// (a stray nlohmann::json::exception included), leak, hang or out-of-memory is a bug.
#include <spdlog/spdlog.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <nlohmann/json.hpp>
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

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  spdlog::set_level(spdlog::level::off);
  (void)policy();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace fleet::storage;
  // Every door parses the text this way.
  const fleet::Result<json> parsed =
      parse_engine_config_json(std::string(reinterpret_cast<const char*>(data), size), "input");
  if (!parsed) return 0;
  const json& j = parsed.value();
  if (fleet::Result<json> spec = normalize_l2_adapter_json(j)) {  // --l2-adapter JSON
    EngineConfig cfg;
    add_l2_adapter(cfg, spec.value());
    use(cfg);
  }
  // --config-file PATH, and a worker's START.engine_config_json
  if (fleet::Result<EngineConfig> c = engine_config_from_config_file_json(j)) use(c.value());
  // a trace header's sm_config_json (--config-from-trace)
  if (fleet::Result<EngineConfig> c = engine_config_from_lmcache_json(j)) use(c.value());
  return 0;
}
