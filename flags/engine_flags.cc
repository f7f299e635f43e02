#include "fleet/flags/engine_flags.h"

#include <string>
#include <vector>

#include "fleet/engine/engine_config_json.h"
#include "fleet/flags/range_checks.h"

namespace fleet::flags {

namespace {

constexpr double kGiB = 1073741824.0;

// --config-file's callback: the file's config, or CLI11's error naming the flag.
void load_config_file(storage::EngineConfig& cfg, const std::string& path) {
  auto loaded = storage::load_engine_config_file(path);
  if (!loaded) throw CLI::ValidationError("--config-file", loaded.status().message());
  cfg = std::move(loaded).value();
}

void set_l2_adapters(storage::EngineConfig& cfg, const std::vector<std::string>& specs) {
  cfg.l2_adapters.clear();
  for (size_t i = 0; i < specs.size(); ++i) {
    auto spec = storage::parse_l2_adapter_spec(specs[i]);
    if (!spec) {
      throw CLI::ValidationError("--l2-adapter", "#" + std::to_string(i) + " " + specs[i] + ": " +
                                                     spec.status().message());
    }
    cfg.l2_adapters.push_back(std::move(spec).value());
  }
}

}  // namespace

void add_engine_flags(CLI::App& app, storage::EngineConfig& cfg) {
  // First, so that its callback runs before (and is overridden by) every explicit flag.
  app.add_option_function<std::string>(
         "--config-file", [&cfg](const std::string& path) { load_config_file(cfg, path); },
         "engine config as JSON: LMCache's StorageManagerConfig dict or {\"flag-name\": value}")
      ->type_name("PATH");
  app.add_option_function<double>(
         "--l1-size-gb",
         [&cfg](double gb) { cfg.l1_size_in_bytes = static_cast<uint64_t>(gb * kGiB); },
         "L1 size in GB (GiB, as LMCache)")
      ->check(above(0));
  app.add_flag("--l1-use-lazy,!--no-l1-use-lazy", cfg.l1_use_lazy,
               "lazy pinned L1 allocation (default on; use --no-l1-use-lazy for small L1s)");
  app.add_option_function<int64_t>(
         "--l1-init-size-gb",
         [&cfg](int64_t gb) { cfg.l1_init_size_in_bytes = static_cast<uint64_t>(gb) << 30; },
         "initial heap of the lazy allocator in GB (default 20)")
      ->check(at_least(0));
  app.add_option("--l1-align-bytes", cfg.l1_align_bytes, "L1 allocation alignment (default 4096)");
  app.add_option("--l1-write-ttl-seconds", cfg.l1_write_ttl_seconds, "write-lock TTL (600)");
  app.add_option("--l1-read-ttl-seconds", cfg.l1_read_ttl_seconds, "read-lock TTL (300)");
  app.add_option("--eviction-policy", cfg.eviction_policy, "LRU | IsolatedLRU | ARC | noop (LRU)")
      ->check(CLI::IsMember({"LRU", "IsolatedLRU", "ARC", "noop"}));
  app.add_option("--eviction-trigger-watermark", cfg.eviction_trigger_watermark,
                 "L1 usage fraction that triggers eviction (0.8)")
      ->check(between(0, 1));
  app.add_option("--eviction-ratio", cfg.eviction_ratio,
                 "fraction of tracked keys evicted per trigger (0.2)")
      ->check(between(0, 1));
  app.add_option_function<std::vector<std::string>>(
         "--l2-adapter",
         [&cfg](const std::vector<std::string>& specs) { set_l2_adapters(cfg, specs); },
         "one L2 adapter as JSON; repeat for more (order = adapter index)")
      ->type_name("JSON")
      ->allow_extra_args(false);
  app.add_option("--l2-store-policy", cfg.l2_store_policy, "default | skip_l1")
      ->check(CLI::IsMember({"default", "skip_l1"}));
  app.add_option("--l2-prefetch-policy", cfg.l2_prefetch_policy, "default | retain")
      ->check(CLI::IsMember({"default", "retain"}));
  app.add_option("--l2-prefetch-max-in-flight", cfg.l2_prefetch_max_in_flight,
                 "concurrent prefetch requests in the controller (8)")
      ->check(above(0));
  app.add_option("--eviction-tick-ms", cfg.eviction_tick_ms,
                 "Fleet: period of the L1 eviction loop in ms (LMCache: 1000)")
      ->check(above(0));
  app.add_option("--l2-key-namespace", cfg.l2_key_namespace,
                 "Fleet: prefix every key a shared L2 (resp) stores, NS:<key> (not in the digest)");
  app.add_flag_callback(
      "--no-drain", [&cfg] { cfg.drain_on_close = false; },
      "Fleet: abandon in-flight L2 stores at close as LMCache does (default: drain them)");
}

}  // namespace fleet::flags
