// Builds L2 adapters from `--l2-adapter` JSON (types mock, fs, resp, fault_inject) and checks
// that JSON up front with messages that name the offending field.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "fleet/engine/l2_adapter.h"
#include "fleet/util/status.h"

namespace fleet::storage {

// Validates an adapter spec and returns it as it enters LMCache's config dict (mock sizes as
// floats), or why it is not an adapter, naming the field.
Result<nlohmann::json> normalize_l2_adapter_json(const nlohmann::json& spec);
// The adapter a spec names, or why it cannot be built: a field (as above), an fs base_path that
// is not a usable directory, a Redis that refuses the credentials.
Result<std::unique_ptr<L2Adapter>> make_l2_adapter(const nlohmann::json& spec);

}  // namespace fleet::storage
