#include "fleet/trace/header.h"

#include <algorithm>
#include <string>

#include "fleet/trace/errors.h"
#include "fleet/trace/format.h"
#include "fleet/trace/msgpack_value.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/util/utf8.h"

namespace fleet::trace {

namespace {
// msgspec decodes str fields as Python str, so invalid UTF-8 makes the header undecodable.
std::string read_utf8(MsgpackReader& r, const char* field) {
  std::string_view s = r.read_str();
  if (!util::is_valid_utf8(s)) {
    r.fail((std::string("header ") + field + " is not valid UTF-8").c_str());
  }
  return std::string(s);
}
}  // namespace

Header decode_header(const uint8_t* body, size_t size, const MsgpackLimits& limits) {
  MsgpackReader r(body, size, limits);
  if (r.peek() != MsgType::Map) r.fail("header is not a msgpack map");
  uint32_t n = r.read_map_header();
  Header h;
  bool seen_magic = false, seen_fv = false, seen_level = false, seen_schema = false,
       seen_mono = false, seen_wall = false, seen_json = false, seen_digest = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (r.peek() != MsgType::Str) r.fail("header key is not a str");
    std::string_view key = r.read_str();
    if (key == "type") {
      if (r.peek() != MsgType::Str || r.read_str() != "header")
        r.fail("header \"type\" is not \"header\"");
    } else if (key == "magic") {
      h.magic = std::string(r.read_bin());
      seen_magic = true;
    } else if (key == "format_version") {
      h.format_version = r.read_int();
      seen_fv = true;
    } else if (key == "level") {
      h.level = read_utf8(r, "level");
      seen_level = true;
    } else if (key == "trace_schema_version") {
      h.trace_schema_version = r.read_int();
      seen_schema = true;
    } else if (key == "t_mono_start") {
      h.t_mono_start = r.read_double();
      seen_mono = true;
    } else if (key == "t_wall_start") {
      h.t_wall_start = r.read_double();
      seen_wall = true;
    } else if (key == "sm_config_json") {
      h.sm_config_json = read_utf8(r, "sm_config_json");
      seen_json = true;
    } else if (key == "sm_config_digest") {
      h.sm_config_digest = read_utf8(r, "sm_config_digest");
      seen_digest = true;
    } else if (key == "level_meta") {
      if (r.peek() != MsgType::Map) r.fail("header level_meta is not a map");
      MsgpackReader probe = r;
      probe.skip(/*check_utf8=*/true);  // its strings become Python str in LMCache, too
      h.level_meta = msgpack_to_json(r, BinAs::Hex);
    } else {
      r.skip();  // unknown keys are ignored, as msgspec does (e.g. the oldest lmcache_version)
    }
  }
  if (!r.at_end()) r.fail("trailing bytes after the header object");
  const char* missing = !seen_magic    ? "magic"
                        : !seen_fv     ? "format_version"
                        : !seen_level  ? "level"
                        : !seen_schema ? "trace_schema_version"
                        : !seen_mono   ? "t_mono_start"
                        : !seen_wall   ? "t_wall_start"
                        : !seen_json   ? "sm_config_json"
                        : !seen_digest ? "sm_config_digest"
                                       : nullptr;
  if (missing) {
    throw DecodeError(0, std::string("header lacks required field \"") + missing + "\"" +
                             (seen_magic && !seen_schema ? " (an oldest-format v0 trace?)" : ""));
  }
  if (h.magic != kMagic) throw TraceError("bad magic (expected \"LMCT\")");
  if (h.format_version != kFormatVersion) {
    throw TraceError("unsupported format_version " + std::to_string(h.format_version) +
                     " (this build reads 1)");
  }
  if (std::find(std::begin(kReadableSchemas), std::end(kReadableSchemas), h.trace_schema_version) ==
      std::end(kReadableSchemas)) {
    throw TraceError("unsupported trace_schema_version " + std::to_string(h.trace_schema_version) +
                     " (readable: 1, 2)");
  }
  return h;
}

std::string encode_header(const Header& h) {
  std::string out;
  MsgpackWriter w(out);
  bool meta = !h.level_meta.empty();
  w.map(meta ? 10 : 9);
  w.str("type");
  w.str("header");
  w.str("magic");
  w.bin(h.magic);
  w.str("format_version");
  w.integer(h.format_version);
  w.str("level");
  w.str(h.level);
  w.str("trace_schema_version");
  w.integer(h.trace_schema_version);
  w.str("t_mono_start");
  w.float64(h.t_mono_start);
  w.str("t_wall_start");
  w.float64(h.t_wall_start);
  w.str("sm_config_json");
  w.str(h.sm_config_json);
  w.str("sm_config_digest");
  w.str(h.sm_config_digest);
  if (meta) {
    w.str("level_meta");
    json_to_msgpack(h.level_meta, w);
  }
  return out;
}

}  // namespace fleet::trace
