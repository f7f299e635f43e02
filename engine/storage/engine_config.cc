#include "fleet/engine/engine_config.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/util/json_file.h"
#include "fleet/util/json_number.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/sha256.h"

namespace fleet::storage {

namespace {
constexpr double kGiB = 1073741824.0;
using json = nlohmann::json;

// Inside the JSON readers an error unwinds through nested fields to the public function, which
// turns it into a Status; the readers are a small decoder, not a path a run takes per record.
[[noreturn]] void bad(const std::string& what) { throw std::invalid_argument(what); }

Status invalid(std::string what) { return Status::error(std::move(what)); }

// A size given in GiB, which must fit in 64 bits of bytes (no wrap, no negative).
uint64_t gib_to_bytes(double gib) {
  const double bytes = gib * kGiB;
  if (!(bytes >= 0) || bytes >= 18446744073709551616.0)
    bad("a size of " + std::to_string(gib) + " GiB is out of range");
  return static_cast<uint64_t>(bytes);
}

const json& field(const json& obj, const char* name, const char* where) {
  if (!obj.is_object() || !obj.contains(name))
    bad(std::string("sm_config_json: missing '") + where + name + "'");
  return obj.at(name);
}

template <class T>
T get_as(const json& v, const std::string& where) {
  try {
    if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>)
      return v.get<T>();
    else if constexpr (std::is_integral_v<T>)
      return util::json_integer<T>(v, "value");
    else
      return util::json_real(v, "value");
  } catch (const std::exception& e) {
    bad("sm_config_json: bad value for '" + where + "': " + e.what());
  }
}

// Adds keys of `extra` missing in `base`, recursively (base wins on conflicts).
void merge_missing(json& base, const json& extra) {
  if (!base.is_object() || !extra.is_object()) return;
  for (auto it = extra.begin(); it != extra.end(); ++it) {
    if (!base.contains(it.key())) {
      base[it.key()] = it.value();
    } else {
      merge_missing(base[it.key()], it.value());
    }
  }
}

// `full` minus everything `known` has (values of known keys are dropped, unknown kept).
json unknown_part(const json& full, const json& known) {
  json out = json::object();
  if (!full.is_object()) return out;
  for (auto it = full.begin(); it != full.end(); ++it) {
    if (!known.is_object() || !known.contains(it.key())) {
      out[it.key()] = it.value();
    } else if (it.value().is_object() && known.at(it.key()).is_object()) {
      json sub = unknown_part(it.value(), known.at(it.key()));
      if (!sub.empty()) out[it.key()] = sub;
    }
  }
  return out;
}

Result<std::string> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error("--config-file: cannot open '" + path + "'");
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

json parse_engine_config_json(const std::string& text, const std::string& what) {
  Result<json> j = util::parse_json_bounded(text, what);
  if (!j) bad(j.status().message());
  return std::move(j).value();
}

EngineConfig engine_config_from_lmcache_json(const json& j) {
  if (!j.is_object()) bad("sm_config_json: expected a JSON object");
  EngineConfig c;
  const json& l1 = field(j, "l1_manager_config", "");
  const json& mem = field(l1, "memory_config", "l1_manager_config.");
  c.l1_size_in_bytes = get_as<uint64_t>(field(mem, "size_in_bytes", "memory_config."),
                                        "memory_config.size_in_bytes");
  if (mem.contains("use_lazy")) c.l1_use_lazy = get_as<bool>(mem["use_lazy"], "use_lazy");
  if (mem.contains("init_size_in_bytes"))
    c.l1_init_size_in_bytes = get_as<uint64_t>(mem["init_size_in_bytes"], "init_size_in_bytes");
  if (mem.contains("align_bytes"))
    c.l1_align_bytes = get_as<uint64_t>(mem["align_bytes"], "align_bytes");
  if (mem.contains("shm_name") && mem["shm_name"].is_string())
    c.l1_shm_name = mem["shm_name"].get<std::string>();
  if (mem.contains("use_hugepages"))
    c.l1_use_hugepages = get_as<bool>(mem["use_hugepages"], "use_hugepages");
  if (l1.contains("write_ttl_seconds"))
    c.l1_write_ttl_seconds = get_as<int64_t>(l1["write_ttl_seconds"], "write_ttl_seconds");
  if (l1.contains("read_ttl_seconds"))
    c.l1_read_ttl_seconds = get_as<int64_t>(l1["read_ttl_seconds"], "read_ttl_seconds");
  if (l1.contains("tag") && l1["tag"].is_string()) c.l1_tag = l1["tag"].get<std::string>();

  const json& ev = field(j, "eviction_config", "");
  c.eviction_policy =
      get_as<std::string>(field(ev, "eviction_policy", "eviction_config."), "eviction_policy");
  if (ev.contains("trigger_watermark"))
    c.eviction_trigger_watermark = get_as<double>(ev["trigger_watermark"], "trigger_watermark");
  if (ev.contains("eviction_ratio"))
    c.eviction_ratio = get_as<double>(ev["eviction_ratio"], "eviction_ratio");

  if (j.contains("l2_adapter_config")) {
    const json& l2 = j["l2_adapter_config"];
    if (l2.is_object() && l2.contains("adapters")) {
      if (!l2["adapters"].is_array()) bad("sm_config_json: l2_adapter_config.adapters not a list");
      for (const auto& a : l2["adapters"]) add_l2_adapter(c, a);
    }
  }
  if (j.contains("store_policy"))
    c.l2_store_policy = get_as<std::string>(j["store_policy"], "store_policy");
  if (j.contains("prefetch_policy"))
    c.l2_prefetch_policy = get_as<std::string>(j["prefetch_policy"], "prefetch_policy");
  if (j.contains("prefetch_max_in_flight"))
    c.l2_prefetch_max_in_flight =
        get_as<int64_t>(j["prefetch_max_in_flight"], "prefetch_max_in_flight");

  // Keep what we do not model, and any adapter spelling, so the digest round-trips.
  c.lmcache_passthrough = unknown_part(j, to_lmcache_json(c)).dump();
  return c;
}

void apply_flag_json(EngineConfig& cfg, const json& j) {
  if (!j.is_object()) bad("--config-file: expected a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = it.key();
    for (auto& ch : k)
      if (ch == '_') ch = '-';
    const json& v = it.value();
    const std::string flag = "--config-file: '" + it.key() + "'";
    try {
      if (k == "engine")
        cfg.engine_name = v.get<std::string>();
      else if (k == "l1-size-gb")
        cfg.l1_size_in_bytes = gib_to_bytes(util::json_real(v, "GiB"));
      else if (k == "l1-use-lazy")
        cfg.l1_use_lazy = v.get<bool>();
      else if (k == "l1-init-size-gb")
        cfg.l1_init_size_in_bytes = gib_to_bytes(util::json_integer<uint32_t>(v, "GiB"));
      else if (k == "l1-align-bytes")
        cfg.l1_align_bytes = util::json_integer<uint64_t>(v, "bytes");
      else if (k == "l1-write-ttl-seconds")
        cfg.l1_write_ttl_seconds = util::json_integer<int64_t>(v, "seconds");
      else if (k == "l1-read-ttl-seconds")
        cfg.l1_read_ttl_seconds = util::json_integer<int64_t>(v, "seconds");
      else if (k == "eviction-policy")
        cfg.eviction_policy = v.get<std::string>();
      else if (k == "eviction-trigger-watermark")
        cfg.eviction_trigger_watermark = util::json_real(v, "ratio");
      else if (k == "eviction-ratio")
        cfg.eviction_ratio = util::json_real(v, "ratio");
      else if (k == "l2-adapter" || k == "l2-adapters") {
        cfg.l2_adapters.clear();
        for (const auto& a : v)
          add_l2_adapter(
              cfg, normalize_l2_adapter_json(
                       a.is_string() ? parse_engine_config_json(a.get<std::string>(), "spec") : a));
      } else if (k == "l2-store-policy")
        cfg.l2_store_policy = v.get<std::string>();
      else if (k == "l2-prefetch-policy")
        cfg.l2_prefetch_policy = v.get<std::string>();
      else if (k == "l2-prefetch-max-in-flight")
        cfg.l2_prefetch_max_in_flight = util::json_integer<int64_t>(v, "count");
      else if (k == "eviction-tick-ms")
        cfg.eviction_tick_ms = util::json_integer<int64_t>(v, "ms");
      else if (k == "no-drain")
        cfg.drain_on_close = !v.get<bool>();
      else if (k == "drain")
        cfg.drain_on_close = v.get<bool>();
      else
        bad(flag + " is not an engine flag");
    } catch (const json::exception& e) {
      bad(flag + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      bad(flag + ": " + e.what());
    }
  }
}

EngineConfig engine_config_from_config_file_json(const json& j) {
  if (j.is_object() && j.contains("l1_manager_config")) return engine_config_from_lmcache_json(j);
  EngineConfig c;
  apply_flag_json(c, j);
  return c;
}

Result<EngineConfig> load_engine_config_file(const std::string& path) {
  auto text = read_file(path);
  if (!text) return text.status();
  try {
    return engine_config_from_config_file_json(parse_engine_config_json(text.value(), path));
  } catch (const std::invalid_argument& e) {
    return Status::error(e.what());
  }
}

Result<std::string> parse_l2_adapter_spec(const std::string& text) {
  try {
    return normalize_l2_adapter_json(parse_engine_config_json(text, "JSON")).dump();
  } catch (const std::exception& e) {  // not JSON, or not an adapter (json::exception included)
    return Status::error(e.what());
  }
}

void add_l2_adapter(EngineConfig& cfg, const json& spec) { cfg.l2_adapters.push_back(spec.dump()); }

json l2_adapter_json(const EngineConfig& cfg, size_t i) {
  return json::parse(cfg.l2_adapters.at(i));
}

Status EngineConfig::validate() const {
  static const std::set<std::string> kPolicies{"LRU", "IsolatedLRU", "ARC", "noop"};
  if (engine_name != "native" && engine_name != "noop")
    return invalid("--engine: unknown engine '" + engine_name + "' (choices: native, noop)");
  if (engine_name == "native" && l1_size_in_bytes == 0)
    return invalid("--l1-size-gb: required and must be > 0");
  if (l1_align_bytes == 0 || (l1_align_bytes & (l1_align_bytes - 1)) != 0)
    return invalid("--l1-align-bytes: must be a power of two, got " +
                   std::to_string(l1_align_bytes));
  if (l1_write_ttl_seconds <= 0) return invalid("--l1-write-ttl-seconds: must be > 0");
  if (l1_read_ttl_seconds <= 0) return invalid("--l1-read-ttl-seconds: must be > 0");
  if (!(time_scale > 0.0) || !std::isfinite(time_scale))
    return invalid("--speed: the engine's time scale must be > 0 and finite");
  if (!kPolicies.count(eviction_policy))
    return invalid("--eviction-policy: unknown policy '" + eviction_policy +
                   "' (choices: LRU, IsolatedLRU, ARC, noop)");
  if (!(eviction_trigger_watermark >= 0 && eviction_trigger_watermark <= 1))
    return invalid("--eviction-trigger-watermark: must be in [0, 1]");
  if (!(eviction_ratio >= 0 && eviction_ratio <= 1))
    return invalid("--eviction-ratio: must be in [0, 1]");
  if (l2_store_policy != "default" && l2_store_policy != "skip_l1")
    return invalid("--l2-store-policy: unknown policy '" + l2_store_policy +
                   "' (choices: default, skip_l1)");
  if (l2_prefetch_policy != "default" && l2_prefetch_policy != "retain")
    return invalid("--l2-prefetch-policy: unknown policy '" + l2_prefetch_policy +
                   "' (choices: default, retain)");
  if (l2_prefetch_max_in_flight < 1) return invalid("--l2-prefetch-max-in-flight: must be >= 1");
  if (eviction_tick_ms < 1) return invalid("--eviction-tick-ms: must be >= 1");
  if (l2_key_namespace.size() > 64) return invalid("--l2-key-namespace: at most 64 characters");
  for (char ch : l2_key_namespace) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') {
      return invalid("--l2-key-namespace: only letters, digits, '.', '_' and '-' (got '" +
                     l2_key_namespace + "')");
    }
  }
  for (size_t i = 0; i < l2_adapters.size(); ++i) {
    try {
      normalize_l2_adapter_json(l2_adapter_json(*this, i));
    } catch (const json::exception& e) {
      return invalid("--l2-adapter #" + std::to_string(i) + ": " + e.what());
    } catch (const std::invalid_argument& e) {
      return invalid("--l2-adapter #" + std::to_string(i) + ": " + e.what());
    }
  }
  return Status();
}

json to_lmcache_json(const EngineConfig& c) {
  json mem = json::object();
  mem["align_bytes"] = c.l1_align_bytes;
  mem["init_size_in_bytes"] = std::min(c.l1_init_size_in_bytes, c.l1_size_in_bytes);
  mem["shm_name"] = c.l1_shm_name;
  mem["size_in_bytes"] = c.l1_size_in_bytes;
  mem["use_hugepages"] = c.l1_use_hugepages;
  mem["use_lazy"] = c.l1_use_lazy;
  json l1 = json::object();
  l1["eviction"] = nullptr;
  l1["memory_config"] = mem;
  l1["read_ttl_seconds"] = c.l1_read_ttl_seconds;
  l1["tag"] = c.l1_tag;
  l1["write_ttl_seconds"] = c.l1_write_ttl_seconds;
  json ev = json::object();
  ev["eviction_policy"] = c.eviction_policy;
  ev["eviction_ratio"] = static_cast<double>(c.eviction_ratio);
  ev["trigger_watermark"] = static_cast<double>(c.eviction_trigger_watermark);
  json adapters = json::array();
  // Stored as they enter LMCache's dict: normalised when parsed from flags or a config file,
  // verbatim when rebuilt from a recorded sm_config_json.
  for (const auto& a : c.l2_adapters) adapters.push_back(json::parse(a));
  json out = json::object();
  out["eviction_config"] = ev;
  out["l1_manager_config"] = l1;
  out["l2_adapter_config"] = json{{"adapters", adapters}};
  out["prefetch_max_in_flight"] = c.l2_prefetch_max_in_flight;
  out["prefetch_policy"] = c.l2_prefetch_policy;
  out["store_policy"] = c.l2_store_policy;
  if (!c.lmcache_passthrough.empty()) merge_missing(out, json::parse(c.lmcache_passthrough));
  return out;
}

std::string EngineConfig::lmcache_json_text() const {
  return util::py_json_dumps(to_lmcache_json(*this));
}

std::string EngineConfig::digest() const { return util::sha256_hex(lmcache_json_text()); }

json to_report_json(const EngineConfig& c) {
  json j = to_lmcache_json(c);
  j["fleet"] = json{{"engine", c.engine_name},
                    {"eviction_tick_ms", c.eviction_tick_ms},
                    {"drain_on_close", c.drain_on_close},
                    {"bridge_reserved_write_creates", c.bridge_reserved_write_creates},
                    {"l2_key_namespace", c.l2_key_namespace}};
  return j;
}

}  // namespace fleet::storage
