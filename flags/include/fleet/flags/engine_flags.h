// The flags that configure an engine: LMCache's StorageManager flags plus --eviction-tick-ms,
// --no-drain, --l2-key-namespace and --config-file. Both processes declare them (the coordinator
// for an embedded run or to send its config to workers, the worker for its defaults), so they
// live here, at the edge, and the engine itself takes a finished EngineConfig and links no CLI11.
#pragma once

#include <CLI/CLI.hpp>

#include "fleet/engine/engine_config.h"

namespace fleet::flags {

// --config-file is applied first; flags given on the command line override it.
void add_engine_flags(CLI::App& app, storage::EngineConfig& cfg);

}  // namespace fleet::flags
