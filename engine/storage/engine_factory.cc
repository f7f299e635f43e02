#include "fleet/engine/engine_factory.h"

#include "fleet/engine/noop_engine.h"
#include "fleet/engine/storage_manager.h"

namespace fleet::storage {

Result<std::unique_ptr<engine::Engine>> make_engine(const EngineConfig& cfg, util::Clock& clock) {
  if (cfg.engine_name == "noop") return std::unique_ptr<engine::Engine>(new NoopEngine(cfg));
  if (cfg.engine_name != "native")
    return Status::error("--engine: unknown engine '" + cfg.engine_name +
                         "' (choices: native, noop)");
  Result<std::unique_ptr<StorageManager>> sm = StorageManager::open(cfg, clock);
  if (!sm) return sm.status();
  return std::unique_ptr<engine::Engine>(std::move(sm).value());
}

}  // namespace fleet::storage
