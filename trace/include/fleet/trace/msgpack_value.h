// Conversions between msgpack values and JSON documents, for headers' level_meta, `lct cat`
// and events-level args. bin has no JSON form: it becomes lowercase hex (or a {"__bin__": hex}
// object when the distinction must survive).
#pragma once

#include <nlohmann/json.hpp>

#include "fleet/trace/msgpack_reader.h"
#include "fleet/trace/msgpack_writer.h"

namespace fleet::trace {

enum class BinAs { Hex, TaggedHex };

// Reads one value (any type; map keys of any type are stringified) within the reader's limits.
nlohmann::ordered_json msgpack_to_json(MsgpackReader& r, BinAs bin_as);
void json_to_msgpack(const nlohmann::ordered_json& j, MsgpackWriter& w);

std::string to_hex(std::string_view bytes);

}  // namespace fleet::trace
