#include "fleet/engine/engine_factory.h"

#include <stdexcept>

#include "fleet/engine/noop_engine.h"
#include "fleet/engine/storage_manager.h"

namespace fleet::storage {

std::unique_ptr<engine::Engine> make_engine(const EngineConfig& cfg, util::Clock& clock) {
  if (cfg.engine_name == "noop") return std::make_unique<NoopEngine>(cfg);
  if (cfg.engine_name == "native") return std::make_unique<StorageManager>(cfg, clock);
  throw std::invalid_argument("--engine: unknown engine '" + cfg.engine_name +
                              "' (choices: native, noop)");
}

}  // namespace fleet::storage
