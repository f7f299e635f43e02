#include "fleet/engine/l2_adapter_factory.h"

#include <stdexcept>

#include "fleet/engine/fault_inject_l2_adapter.h"
#include "fleet/engine/fs_l2_adapter.h"
#include "fleet/engine/l2_eviction.h"
#include "fleet/engine/mock_l2_adapter.h"
#include "fleet/engine/resp_l2_adapter.h"

namespace fleet::storage {

namespace {
std::string type_of(const nlohmann::json& spec) {
  if (!spec.is_object()) throw std::invalid_argument("adapter spec must be a JSON object");
  if (!spec.contains("type") || !spec["type"].is_string())
    throw std::invalid_argument(
        "adapter spec needs a string 'type' (mock, fs, resp, fault_inject)");
  return spec["type"].get<std::string>();
}
}  // namespace

nlohmann::json normalize_l2_adapter_json(const nlohmann::json& spec) {
  const std::string type = type_of(spec);
  nlohmann::json out = spec;
  L2EvictionConfig::from_adapter_json(spec);  // validates the optional `eviction` block
  if (type == "mock") {
    MockL2Config c = MockL2Config::from_json(spec);
    out["max_size_gb"] = c.max_size_gb;  // floats, as LMCache's config holds them
    out["mock_bandwidth_gb"] = c.mock_bandwidth_gb;
  } else if (type == "fs") {
    FsL2Config::from_json(spec);
  } else if (type == "resp") {
    RespL2Config::from_json(spec);
  } else if (type == "fault_inject") {
    FaultInjectConfig::from_json(spec);
    out["inner"] = normalize_l2_adapter_json(spec["inner"]);
  } else {
    throw std::invalid_argument("unknown adapter type '" + type +
                                "' (supported: mock, fs, resp, fault_inject)");
  }
  return out;
}

std::unique_ptr<L2Adapter> make_l2_adapter(const nlohmann::json& spec) {
  const std::string type = type_of(spec);
  if (type == "mock") return std::make_unique<MockL2Adapter>(MockL2Config::from_json(spec));
  if (type == "fs") return std::make_unique<FsL2Adapter>(FsL2Config::from_json(spec));
  if (type == "resp") return std::make_unique<RespL2Adapter>(RespL2Config::from_json(spec));
  if (type == "fault_inject") {
    FaultInjectConfig c = FaultInjectConfig::from_json(spec);
    return std::make_unique<FaultInjectL2Adapter>(c, make_l2_adapter(c.inner));
  }
  throw std::invalid_argument("unknown adapter type '" + type +
                              "' (supported: mock, fs, resp, fault_inject)");
}

}  // namespace fleet::storage
