// The trace header (frame 0) and its strict decode/validation (docs/trace-format.md §1.4-§1.5,
// §2.1): msgspec rules (map, str keys, unknown keys ignored, "type" optional but checked),
// then magic, format_version and readable schema.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "fleet/trace/msgpack_reader.h"

namespace fleet::trace {

struct Header {
  std::string magic = "LMCT";
  int64_t format_version = 1;
  std::string level = "storage";
  int64_t trace_schema_version = 2;
  double t_mono_start = 0.0;
  double t_wall_start = 0.0;
  std::string sm_config_json;
  std::string sm_config_digest;
  nlohmann::ordered_json level_meta = nlohmann::ordered_json::object();  // events level only
};

// Decodes and validates a header frame body. Throws DecodeError (shape) or TraceError (magic,
// format_version, schema) with a message naming the field.
Header decode_header(const uint8_t* body, size_t size, const MsgpackLimits& limits = {});

// The exact bytes of LMCache's recorder for this header (level_meta omitted when empty).
std::string encode_header(const Header& h);

}  // namespace fleet::trace
