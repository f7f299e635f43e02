// EngineConfig <-> JSON, for the edges only (CLI --config-file, a trace header's sm_config_json,
// the coordinator's START, reports): LMCache's StorageManagerConfig dict and Fleet's config
// files. engine_config.h itself stays free of nlohmann/json.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/engine/engine_config.h"
#include "fleet/util/status.h"

namespace fleet::storage {

// Engine config JSON text from outside (--config-file, --l2-adapter, a START's
// engine_config_json, a trace header's sm_config_json), nesting bounded as
// util::parse_json_bounded bounds it: nlohmann recurses per level when it copies or dumps a
// value, so a deeply nested text would overflow the stack. Refused, naming `what`, when the
// text is not JSON or nests too deep.
Result<nlohmann::json> parse_engine_config_json(const std::string& text, const std::string& what);

// Each reader below refuses malformed input with its first problem, naming the field.
// Rebuilt from a header's sm_config_json (the StorageManagerConfig dict).
Result<EngineConfig> engine_config_from_lmcache_json(const nlohmann::json& j);
// A Fleet config file: either that dict, or an object keyed by flag names
// ({"l1-size-gb": 8, "l2-adapter": [{...}], "eviction-tick-ms": 1000, ...}).
Result<EngineConfig> engine_config_from_config_file_json(const nlohmann::json& j);
// --config-file PATH: the file read and converted as above; the error names the flag or the
// file (cannot open, not JSON, a key that is not an engine flag, a bad value).
Result<EngineConfig> load_engine_config_file(const std::string& path);
// --l2-adapter JSON: the spec validated and normalised (compact JSON text, as EngineConfig keeps
// it), or why it is not an adapter.
Result<std::string> parse_l2_adapter_spec(const std::string& text);
// Applies {"flag-name": value, ...} on top of `cfg` (engine_config_flags.cc), stopping at the
// first key that is not an engine flag or whose value is not one.
Status apply_flag_json(EngineConfig& cfg, const nlohmann::json& j);

// LMCache's StorageManagerConfig as `safe_storage_config_dict` produces it (what
// EngineConfig::lmcache_json_text() dumps and digest() hashes).
nlohmann::json to_lmcache_json(const EngineConfig& cfg);
// Everything, including Fleet-only knobs (reports).
nlohmann::json to_report_json(const EngineConfig& cfg);

// The adapter specs, which EngineConfig keeps as JSON text: append one (stored verbatim, as it
// enters LMCache's dict) and read one back.
void add_l2_adapter(EngineConfig& cfg, const nlohmann::json& spec);
nlohmann::json l2_adapter_json(const EngineConfig& cfg, size_t i);

}  // namespace fleet::storage
