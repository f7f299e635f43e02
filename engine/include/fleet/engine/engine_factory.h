// Builds the engine a config names: the native StorageManager or the noop engine.
#pragma once

#include <memory>

#include "fleet/engine/engine.h"
#include "fleet/engine/engine_config.h"
#include "fleet/util/clock.h"
#include "fleet/util/status.h"

namespace fleet::storage {

// The engine, or why it cannot be built: a config that names an unknown engine or that
// validate() refuses (naming the flag), an L2 adapter that cannot be built (naming it).
Result<std::unique_ptr<engine::Engine>> make_engine(const EngineConfig& cfg, util::Clock& clock);

}  // namespace fleet::storage
