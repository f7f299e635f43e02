#include "fleet/trace/record.h"

#include <cmath>

#include "fleet/util/utf8.h"

namespace fleet::trace {

namespace {
// LMCache's recorder always writes {"type": "record", "t_mono": f64, "t_wall": f64,
// "qualname": str, "args": {...}} in this order: matched as raw bytes, the deferred path needs
// no per-key string reads at all. Returns false (nothing consumed that matters) otherwise.
bool parse_canonical(MsgpackReader r, size_t size, RecordView& out) {
  if (!r.try_literal("\x85\xa4type\xa6record\xa6t_mono")) return false;
  if (r.peek() != MsgType::Float) return false;
  const double t_mono = r.read_double();
  if (!r.try_literal("\xa6t_wall") || r.peek() != MsgType::Float) return false;
  const double t_wall = r.read_double();
  // A time that is not finite takes the general path, which refuses it by name.
  if (!std::isfinite(t_mono) || !std::isfinite(t_wall)) return false;
  if (!r.try_literal("\xa8qualname") || r.peek() != MsgType::Str) return false;
  const std::string_view qualname = r.read_str();
  if (!r.try_literal("\xa4"
                     "args") ||
      r.peek() != MsgType::Map)
    return false;
  if (!util::is_valid_utf8(qualname)) r.fail("record qualname is not valid UTF-8");
  out.t_mono = t_mono;
  out.t_wall = t_wall;
  out.qualname = qualname;
  out.args_offset = r.offset();
  out.args_size = size - out.args_offset;
  out.args_checked = false;
  return true;
}
// The args map as msgspec checks it: str keys, and every str inside valid UTF-8.
void skip_args_strictly(MsgpackReader& r) {
  uint32_t nargs = r.read_map_header();
  for (uint32_t a = 0; a < nargs; ++a) {
    if (r.peek() != MsgType::Str) r.fail("args key is not a str");
    if (!util::is_valid_utf8(r.read_str())) r.fail("args key is not valid UTF-8");
    r.skip(/*check_utf8=*/true);
  }
}
}  // namespace

bool deferred_args_valid(const RecordView& rec) {
  if (rec.args_checked) return true;
  // Deferred args run to the end of the frame (the last field): the check is that walk.
  MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
  try {
    skip_args_strictly(r);
  } catch (const DecodeError&) {
    return false;
  }
  return r.at_end();
}

void parse_record(const uint8_t* body, size_t size, RecordView& out, const MsgpackLimits& limits,
                  bool defer_args_check) {
  MsgpackReader r(body, size, limits);
  if (defer_args_check && parse_canonical(r, size, out)) {
    out.body = body;
    out.body_size = size;
    return;
  }
  if (r.peek() != MsgType::Map) r.fail("record is not a msgpack map");
  uint32_t n = r.read_map_header();
  bool mono = false, wall = false, qual = false, args = false;
  out.args_checked = true;
  for (uint32_t i = 0; i < n; ++i) {
    if (r.peek() != MsgType::Str) r.fail("record key is not a str");
    std::string_view key = r.read_str();
    if (key == "t_mono") {
      out.t_mono = r.read_double();
      mono = true;
    } else if (key == "qualname") {
      out.qualname = r.read_str();
      // msgspec decodes str fields as Python str: invalid UTF-8 rejects the whole record.
      if (!util::is_valid_utf8(out.qualname)) r.fail("record qualname is not valid UTF-8");
      qual = true;
    } else if (key == "args") {
      out.args_offset = r.offset();
      if (defer_args_check && i + 1 == n) {
        if (r.peek() != MsgType::Map) r.fail("record args is not a map");
        out.args_size = size - out.args_offset;
        out.args_checked = false;
        r = r.at(size);
        args = true;
        continue;
      }
      skip_args_strictly(r);
      out.args_size = r.offset() - out.args_offset;
      args = true;
    } else if (key == "t_wall") {
      out.t_wall = r.read_double();
      wall = true;
    } else if (key == "type") {
      if (r.peek() != MsgType::Str || r.read_str() != "record")
        r.fail("record \"type\" is not \"record\"");
    } else {
      r.skip();
    }
  }
  if (!r.at_end()) r.fail("trailing bytes after the record object");
  if (!mono) r.fail("record lacks t_mono");
  if (!wall) r.fail("record lacks t_wall");
  if (!qual) r.fail("record lacks qualname");
  if (!args) r.fail("record lacks args");
  // The pacer turns t_mono into an instant; the L2 fleet aligns files on t_wall.
  if (!std::isfinite(out.t_mono)) r.fail("record t_mono is not finite");
  if (!std::isfinite(out.t_wall)) r.fail("record t_wall is not finite");
  out.body = body;
  out.body_size = size;
}

}  // namespace fleet::trace
