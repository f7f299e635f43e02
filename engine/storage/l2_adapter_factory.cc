#include "fleet/engine/l2_adapter_factory.h"

#include "fleet/engine/fault_inject_l2_adapter.h"
#include "fleet/engine/fs_l2_adapter.h"
#include "fleet/engine/l2_eviction.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "fleet/engine/resp_l2_adapter.h"

namespace fleet::storage {

namespace {
using Built = Result<std::unique_ptr<L2Adapter>>;

Result<std::string> type_of(const nlohmann::json& spec) {
  if (!spec.is_object()) return Status::error("adapter spec must be a JSON object");
  if (!spec.contains("type") || !spec["type"].is_string())
    return Status::error("adapter spec needs a string 'type' (mock, fs, resp, fault_inject)");
  return spec["type"].get<std::string>();
}

Status unknown_type(const std::string& type) {
  return Status::error("unknown adapter type '" + type +
                       "' (supported: mock, fs, resp, fault_inject)");
}

// An adapter that open() built (or refused), as the base type.
template <class A>
Built as_l2_adapter(Result<std::unique_ptr<A>> opened) {
  if (!opened) return opened.status();
  return std::unique_ptr<L2Adapter>(std::move(opened).value());
}

// `build` applied to the parsed config, or why the spec is not one.
template <class Config, class Build>
Built build_from(const Result<Config>& cfg, Build build) {
  if (!cfg) return cfg.status();
  return build(cfg.value());
}

Built make_fault_inject(const FaultInjectConfig& c) {
  Built inner = make_l2_adapter(c.inner);
  if (!inner) return inner.status();
  return std::unique_ptr<L2Adapter>(
      std::make_unique<FaultInjectL2Adapter>(c, std::move(inner).value()));
}
}  // namespace

Result<nlohmann::json> normalize_l2_adapter_json(const nlohmann::json& spec) {
  const Result<std::string> type = type_of(spec);
  if (!type) return type.status();
  nlohmann::json out = spec;
  if (auto eviction = L2EvictionConfig::from_adapter_json(spec); !eviction)
    return eviction.status();
  if (type.value() == "mock") {
    const Result<MockL2Config> c = MockL2Config::from_json(spec);
    if (!c) return c.status();
    out["max_size_gb"] = c->max_size_gb;  // floats, as LMCache's config holds them
    out["mock_bandwidth_gb"] = c->mock_bandwidth_gb;
  } else if (type.value() == "fs") {
    if (auto c = FsL2Config::from_json(spec); !c) return c.status();
  } else if (type.value() == "resp") {
    if (auto c = RespL2Config::from_json(spec); !c) return c.status();
  } else if (type.value() == "fault_inject") {
    const Result<FaultInjectConfig> c = FaultInjectConfig::from_json(spec);
    if (!c) return c.status();
    Result<nlohmann::json> inner = normalize_l2_adapter_json(c->inner);
    if (!inner) return inner.status();
    out["inner"] = std::move(inner).value();
  } else {
    return unknown_type(type.value());
  }
  return out;
}

Result<std::unique_ptr<L2Adapter>> make_l2_adapter(const nlohmann::json& spec) {
  const Result<std::string> type = type_of(spec);
  if (!type) return type.status();
  if (type.value() == "mock")
    return build_from(MockL2Config::from_json(spec), [](const MockL2Config& c) -> Built {
      return std::unique_ptr<L2Adapter>(std::make_unique<MockL2Adapter>(c));
    });
  if (type.value() == "fs")
    return build_from(FsL2Config::from_json(spec),
                      [](const FsL2Config& c) { return as_l2_adapter(FsL2Adapter::open(c)); });
  if (type.value() == "resp")
    return build_from(RespL2Config::from_json(spec),
                      [](const RespL2Config& c) { return as_l2_adapter(RespL2Adapter::open(c)); });
  if (type.value() == "fault_inject")
    return build_from(FaultInjectConfig::from_json(spec), make_fault_inject);
  return unknown_type(type.value());
}

}  // namespace fleet::storage
