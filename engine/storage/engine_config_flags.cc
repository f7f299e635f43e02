// A Fleet config file keyed by flag names ({"l1-size-gb": 8, "l2-adapter": [...], ...}): each
// key a setter of its EngineConfig field, or the file's error naming the key.
#include <functional>
#include <map>
#include <stdexcept>

#include "fleet/engine/engine_config_json.h"
#include "fleet/engine/l2_adapter_factory.h"
#include "fleet/util/json_number.h"

namespace fleet::storage {

namespace {
using json = nlohmann::json;
constexpr double kGiB = 1073741824.0;

// Sets one field from its JSON value, or says why the value is not one. nlohmann's get<T> (a
// value of another JSON type) and util::json_number (out of range) throw: apply_flag_json
// catches both once per key, as it names the key.
using FlagSetter = std::function<Status(EngineConfig&, const json&)>;

template <class T>
FlagSetter as_is(T EngineConfig::*field) {
  return [field](EngineConfig& c, const json& v) {
    c.*field = v.get<T>();
    return Status();
  };
}

template <class T>
FlagSetter integer(T EngineConfig::*field, const char* unit) {
  return [field, unit](EngineConfig& c, const json& v) {
    c.*field = util::json_integer<T>(v, unit);
    return Status();
  };
}

FlagSetter real(double EngineConfig::*field, const char* unit) {
  return [field, unit](EngineConfig& c, const json& v) {
    c.*field = util::json_real(v, unit);
    return Status();
  };
}

// A size given in GiB, which must fit in 64 bits of bytes (no wrap, no negative).
Status set_gib(uint64_t& out, double gib) {
  const double bytes = gib * kGiB;
  if (!(bytes >= 0) || bytes >= 18446744073709551616.0)
    return Status::error("a size of " + std::to_string(gib) + " GiB is out of range");
  out = static_cast<uint64_t>(bytes);
  return Status();
}

// The adapter list replaces the flags' own; each spec an object or its JSON text.
Status set_adapters(EngineConfig& c, const json& v) {
  c.l2_adapters.clear();
  for (const auto& a : v) {
    Result<json> spec =
        a.is_string() ? parse_engine_config_json(a.get<std::string>(), "spec") : Result<json>(a);
    if (!spec) return spec.status();
    Result<json> normal = normalize_l2_adapter_json(spec.value());
    if (!normal) return normal.status();
    add_l2_adapter(c, normal.value());
  }
  return Status();
}

const std::map<std::string, FlagSetter>& flag_setters() {
  using C = EngineConfig;
  static const std::map<std::string, FlagSetter> kSetters = {
      {"engine", as_is(&C::engine_name)},
      {"l1-size-gb",
       [](C& c, const json& v) { return set_gib(c.l1_size_in_bytes, util::json_real(v, "GiB")); }},
      {"l1-use-lazy", as_is(&C::l1_use_lazy)},
      {"l1-init-size-gb",
       [](C& c, const json& v) {
         return set_gib(c.l1_init_size_in_bytes, util::json_integer<uint32_t>(v, "GiB"));
       }},
      {"l1-align-bytes", integer(&C::l1_align_bytes, "bytes")},
      {"l1-write-ttl-seconds", integer(&C::l1_write_ttl_seconds, "seconds")},
      {"l1-read-ttl-seconds", integer(&C::l1_read_ttl_seconds, "seconds")},
      {"eviction-policy", as_is(&C::eviction_policy)},
      {"eviction-trigger-watermark", real(&C::eviction_trigger_watermark, "ratio")},
      {"eviction-ratio", real(&C::eviction_ratio, "ratio")},
      {"l2-adapter", set_adapters},
      {"l2-adapters", set_adapters},
      {"l2-store-policy", as_is(&C::l2_store_policy)},
      {"l2-prefetch-policy", as_is(&C::l2_prefetch_policy)},
      {"l2-prefetch-max-in-flight", integer(&C::l2_prefetch_max_in_flight, "count")},
      {"eviction-tick-ms", integer(&C::eviction_tick_ms, "ms")},
      {"no-drain",
       [](C& c, const json& v) {
         c.drain_on_close = !v.get<bool>();
         return Status();
       }},
      {"drain", as_is(&C::drain_on_close)},
  };
  return kSetters;
}

// The setter's own refusal, or what nlohmann or util::json_number threw.
Status apply_flag(const FlagSetter& set, EngineConfig& cfg, const json& v) {
  try {
    return set(cfg, v);
  } catch (const json::exception& e) {
    return Status::error(e.what());
  } catch (const std::invalid_argument& e) {
    return Status::error(e.what());
  }
}
}  // namespace

Status apply_flag_json(EngineConfig& cfg, const json& j) {
  if (!j.is_object()) return Status::error("--config-file: expected a JSON object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    std::string k = it.key();
    for (auto& ch : k)
      if (ch == '_') ch = '-';
    const std::string flag = "--config-file: '" + it.key() + "'";
    const auto setter = flag_setters().find(k);
    if (setter == flag_setters().end()) return Status::error(flag + " is not an engine flag");
    if (Status s = apply_flag(setter->second, cfg, it.value()); !s)
      return Status::error(flag + ": " + s.message());
  }
  return Status();
}

}  // namespace fleet::storage
