// Builds the engine a config names: the native StorageManager or the noop engine.
#pragma once

#include <memory>

#include "fleet/engine/engine.h"
#include "fleet/engine/engine_config.h"
#include "fleet/util/clock.h"

namespace fleet::storage {

// Throws std::invalid_argument (naming the flag) for an invalid config.
std::unique_ptr<engine::Engine> make_engine(const EngineConfig& cfg, util::Clock& clock);

}  // namespace fleet::storage
