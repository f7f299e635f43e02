#include "fleet/engine/engine_config.h"

#include <cctype>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/util/json_file.h"
#include "fleet/util/json_number.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/sha256.h"

namespace fleet::storage {

namespace {
using json = nlohmann::json;

Status invalid(std::string what) { return Status::error(std::move(what)); }

// Reads the fields of LMCache's StorageManagerConfig dict. The first failure is kept, naming the
// field, and every read after it is skipped (a missing object reads as null), so the reader
// below states one field per line and asks status() once, as JsonOptions does for an adapter.
class SmConfigFields {
 public:
  // obj[name], or null (and a failure) when obj has no such field.
  const json& required(const json& obj, const char* name, const char* where) {
    if (!obj.is_object() || !obj.contains(name)) {
      fail(std::string("sm_config_json: missing '") + where + name + "'");
      return null_;
    }
    return obj.at(name);
  }
  // v as a T; nlohmann's type check and util::json_number's range check name the problem.
  template <class T>
  void read(const json& v, const std::string& where, T& out) {
    if (!ok()) return;
    try {
      if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, std::string>)
        out = v.get<T>();
      else if constexpr (std::is_integral_v<T>)
        out = util::json_integer<T>(v, "value");
      else
        out = util::json_real(v, "value");
    } catch (const std::exception& e) {  // json::type_error, or json_number's invalid_argument
      fail("sm_config_json: bad value for '" + where + "': " + e.what());
    }
  }
  // obj[name] when present (obj may be the null of a failed read).
  template <class T>
  void optional(const json& obj, const char* name, T& out) {
    if (obj.is_object() && obj.contains(name)) read(obj.at(name), name, out);
  }
  void fail(std::string what) {
    if (ok()) status_ = invalid(std::move(what));
  }
  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  const json null_;
  Status status_;
};

// A string field kept only when it is one (LMCache's own defaults otherwise).
void optional_text(const json& obj, const char* name, std::string& out) {
  if (obj.is_object() && obj.contains(name) && obj.at(name).is_string())
    out = obj.at(name).get<std::string>();
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

void read_l1(SmConfigFields& f, const json& j, EngineConfig& c) {
  const json& l1 = f.required(j, "l1_manager_config", "");
  const json& mem = f.required(l1, "memory_config", "l1_manager_config.");
  f.read(f.required(mem, "size_in_bytes", "memory_config."), "memory_config.size_in_bytes",
         c.l1_size_in_bytes);
  f.optional(mem, "use_lazy", c.l1_use_lazy);
  f.optional(mem, "init_size_in_bytes", c.l1_init_size_in_bytes);
  f.optional(mem, "align_bytes", c.l1_align_bytes);
  optional_text(mem, "shm_name", c.l1_shm_name);
  f.optional(mem, "use_hugepages", c.l1_use_hugepages);
  f.optional(l1, "write_ttl_seconds", c.l1_write_ttl_seconds);
  f.optional(l1, "read_ttl_seconds", c.l1_read_ttl_seconds);
  optional_text(l1, "tag", c.l1_tag);
}

void read_eviction_and_l2(SmConfigFields& f, const json& j, EngineConfig& c) {
  const json& ev = f.required(j, "eviction_config", "");
  f.read(f.required(ev, "eviction_policy", "eviction_config."), "eviction_policy",
         c.eviction_policy);
  f.optional(ev, "trigger_watermark", c.eviction_trigger_watermark);
  f.optional(ev, "eviction_ratio", c.eviction_ratio);
  if (j.contains("l2_adapter_config")) {
    const json& l2 = j["l2_adapter_config"];
    if (l2.is_object() && l2.contains("adapters")) {
      if (!l2["adapters"].is_array())
        return f.fail("sm_config_json: l2_adapter_config.adapters not a list");
      for (const auto& a : l2["adapters"]) add_l2_adapter(c, a);
    }
  }
  f.optional(j, "store_policy", c.l2_store_policy);
  f.optional(j, "prefetch_policy", c.l2_prefetch_policy);
  f.optional(j, "prefetch_max_in_flight", c.l2_prefetch_max_in_flight);
}
}  // namespace

Result<json> parse_engine_config_json(const std::string& text, const std::string& what) {
  return util::parse_json_bounded(text, what);
}

Result<EngineConfig> engine_config_from_lmcache_json(const json& j) {
  if (!j.is_object()) return invalid("sm_config_json: expected a JSON object");
  SmConfigFields f;
  EngineConfig c;
  read_l1(f, j, c);
  read_eviction_and_l2(f, j, c);
  if (!f.ok()) return f.status();
  // Keep what we do not model, and any adapter spelling, so the digest round-trips.
  c.lmcache_passthrough = unknown_part(j, to_lmcache_json(c)).dump();
  return c;
}

Result<EngineConfig> engine_config_from_config_file_json(const json& j) {
  if (j.is_object() && j.contains("l1_manager_config")) return engine_config_from_lmcache_json(j);
  EngineConfig c;
  if (Status s = apply_flag_json(c, j); !s) return s;
  return c;
}

Result<EngineConfig> load_engine_config_file(const std::string& path) {
  Result<std::string> text = read_file(path);
  if (!text) return text.status();
  Result<json> j = parse_engine_config_json(text.value(), path);
  if (!j) return j.status();
  return engine_config_from_config_file_json(j.value());
}

Result<std::string> parse_l2_adapter_spec(const std::string& text) {
  Result<json> j = parse_engine_config_json(text, "JSON");
  if (!j) return j.status();
  Result<json> spec = normalize_l2_adapter_json(j.value());
  if (!spec) return spec.status();
  return spec->dump();
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
  if (Status ns = check_l2_key_namespace(l2_key_namespace); !ns) return ns;
  for (size_t i = 0; i < l2_adapters.size(); ++i) {
    if (Result<json> spec = normalize_l2_adapter_json(l2_adapter_json(*this, i)); !spec)
      return invalid("--l2-adapter #" + std::to_string(i) + ": " + spec.status().message());
  }
  return Status();
}

Status check_l2_key_namespace(std::string_view ns) {
  if (ns.size() > 64) {
    return invalid("--l2-key-namespace: at most 64 characters, got " + std::to_string(ns.size()));
  }
  for (char ch : ns) {
    if (!std::isalnum(static_cast<unsigned char>(ch)) && ch != '.' && ch != '_' && ch != '-') {
      return invalid("--l2-key-namespace: only letters, digits, '.', '_' and '-' (got '" +
                     std::string(ns) + "')");
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
