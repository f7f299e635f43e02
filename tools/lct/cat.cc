// `lct cat FILE [--head N]`: one JSON object per record with codec wrappers rendered as readable
// objects (ObjectKey -> {chunk_hash hex, ...}, enums by name). Lines are built in a string and
// written in large blocks; a record whose args do not decode keeps its raw args plus
// "decode_error", so nothing is silently hidden.
#include <cmath>
#include <cstdio>
#include <string>

#include "fleet/trace/codecs.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_decoder.h"
#include "fleet/trace/msgpack_value.h"
#include "fleet/trace/op_decoder.h"
#include "fleet/util/pyjson.h"
#include "fleet/util/utf8.h"
#include "lct.h"

namespace fleet::lct {

namespace {

using trace::MsgpackReader;
using trace::MsgType;

void put_str(std::string& out, std::string_view s) {
  // Strings from the trace are UTF-8 (validated below); only JSON's mandatory escapes.
  if (!util::is_valid_utf8(s)) {
    out += "\"\\ufffd(invalid utf-8: " + trace::to_hex(s) + ")\"";
    return;
  }
  out += '"';
  for (unsigned char c : s) {
    if (c == '"')
      out += "\\\"";
    else if (c == '\\')
      out += "\\\\";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20) {
      char b[8];
      std::snprintf(b, sizeof b, "\\u%04x", c);
      out += b;
    } else
      out += static_cast<char>(c);
  }
  out += '"';
}

void put_double(std::string& out, double d) {
  if (std::isfinite(d))
    out += util::py_float_repr(d);
  else
    out += "null";  // JSON has no NaN/Infinity
}

void put_int(std::string& out, int64_t v) { out += std::to_string(v); }

void put_key(std::string& out, const trace::ObjectKey& k) {
  out += "{\"chunk_hash\":\"" + trace::to_hex(k.chunk_hash) + "\",\"model_name\":";
  put_str(out, k.model_name);
  out += ",\"kv_rank\":";
  put_int(out, k.kv_rank);
  out += ",\"object_group_id\":";
  put_int(out, k.object_group_id);
  out += ",\"cache_salt\":";
  put_str(out, k.cache_salt);
  out += '}';
}

void put_keys(std::string& out, const std::vector<trace::ObjectKey>& keys) {
  out += '[';
  for (size_t i = 0; i < keys.size(); ++i) {
    if (i) out += ',';
    put_key(out, keys[i]);
  }
  out += ']';
}

void put_layout(std::string& out, const trace::MemoryLayout& l) {
  out += "{\"shapes\":[";
  for (size_t g = 0; g < l.shapes.size(); ++g) {
    out += g ? ",[" : "[";
    for (size_t d = 0; d < l.shapes[g].size(); ++d) {
      if (d) out += ',';
      put_int(out, l.shapes[g][d]);
    }
    out += ']';
  }
  out += "],\"dtypes\":[";
  for (size_t g = 0; g < l.dtypes.size(); ++g) {
    if (g) out += ',';
    put_str(out, trace::dtype_name(l.dtypes[g]));
  }
  out += "]}";
}

void put_attn(std::string& out, const trace::AttnWindowDesc& a) {
  out += "{\"num_chunks_in_sw\":[";
  for (size_t i = 0; i < a.num_chunks_in_sw.size(); ++i) {
    if (i) out += ',';
    put_int(out, a.num_chunks_in_sw[i]);
  }
  out += "],\"world_size\":";
  put_int(out, a.world_size);
  out += '}';
}

void put_spec(std::string& out, const trace::PrefetchSpec& s) {
  out += "{\"keys\":";
  put_keys(out, s.keys);
  out += ",\"num_kv_readers\":";
  put_int(out, s.num_kv_readers);
  out += ",\"policy\":";
  put_str(out, trace::trim_policy_name(s.policy));
  out += ",\"attn_desc\":";
  put_attn(out, s.attn);
  out += ",\"group_layout_descs\":{";
  bool first = true;
  for (const auto& [gid, l] : s.group_layouts) {
    if (!first) out += ',';
    first = false;
    out += "\"" + std::to_string(gid) + "\":";
    put_layout(out, l);
  }
  out += "},\"mode\":";
  put_str(out, trace::prefetch_mode_name(s.mode));
  out += ",\"generation\":";
  put_int(out, s.generation);
  out += '}';
}

void put_value(std::string& out, MsgpackReader& r, uint32_t depth);

// Renders a codec wrapper (already recognised by read_wrapper) by tag.
void put_wrapped(std::string& out, const MsgpackReader& start, trace::Wrapped& w, uint32_t depth) {
  // The typed decoders re-read the whole wrapper from `start` (the caller is already past it)
  // and apply the defaults and legacy variants of docs/trace-format.md §4.3.
  MsgpackReader c = start;
  if (w.tag == "ObjectKey") {
    put_key(out, trace::decode_object_key(c));
  } else if (w.tag == "MemoryLayoutDesc") {
    put_layout(out, trace::decode_layout(c));
  } else if (w.tag == "PrefetchRequestSpec") {
    put_spec(out, trace::decode_prefetch_spec(c));
  } else if (w.tag == "AttnWindowDesc") {
    put_attn(out, trace::decode_attn(c));
  } else if (w.tag == "TrimPolicy") {
    put_str(out, trace::trim_policy_name(trace::decode_trim_policy(c)));
  } else if (w.tag == "PrefetchMode") {
    put_str(out, trace::prefetch_mode_name(trace::decode_prefetch_mode(c)));
  } else if (w.tag == "torch.dtype") {
    std::string_view name = w.payload.read_str();
    if (!trace::parse_dtype(name)) w.payload.fail("unknown torch dtype");
    put_str(out, name);
  } else {
    // tuple, torch.Size, set: arrays; PrefetchHandle: its payload map, values decoded.
    put_value(out, w.payload, depth + 1);
  }
}

void put_value(std::string& out, MsgpackReader& r, uint32_t depth) {
  if (depth > 64) r.fail("msgpack nesting exceeds the depth limit");
  switch (r.peek()) {
    case MsgType::Nil:
      r.read_nil();
      out += "null";
      return;
    case MsgType::Bool:
      out += r.read_bool() ? "true" : "false";
      return;
    case MsgType::UInt:
      out += std::to_string(r.read_uint());
      return;
    case MsgType::Int:
      put_int(out, r.read_int());
      return;
    case MsgType::Float:
      put_double(out, r.read_double());
      return;
    case MsgType::Str:
      put_str(out, r.read_str());
      return;
    case MsgType::Bin:
      out += "\"" + trace::to_hex(r.read_bin()) + "\"";
      return;
    case MsgType::Ext:
      r.fail("msgpack ext types are not used by .lct files");
    case MsgType::Array: {
      uint32_t n = r.read_array_header();
      out += '[';
      for (uint32_t i = 0; i < n; ++i) {
        if (i) out += ',';
        put_value(out, r, depth + 1);
      }
      out += ']';
      return;
    }
    case MsgType::Map: {
      MsgpackReader start = r;
      trace::Wrapped w{{}, r};
      if (trace::read_wrapper(r, w)) {
        put_wrapped(out, start, w, depth);
        return;
      }
      uint32_t n = r.read_map_header();
      out += '{';
      for (uint32_t i = 0; i < n; ++i) {
        if (i) out += ',';
        if (r.peek() == MsgType::Str) {
          put_str(out, r.read_str());
        } else {
          std::string k;
          put_value(k, r, depth + 1);
          put_str(out, k);
        }
        out += ':';
        put_value(out, r, depth + 1);
      }
      out += '}';
      return;
    }
  }
}

// Raw args without codec interpretation, for records whose decode failed.
void put_raw(std::string& out, const trace::RecordView& rec) {
  try {
    MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
    out += trace::msgpack_to_json(r, trace::BinAs::Hex)
               .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  } catch (const std::exception&) {
    out += "null";
  }
}

// The typed decode catches what the generic rendering accepts (e.g. a missing arg): the storage
// ops, or the L2 record kinds for a trace whose level is "l2".
void check_typed(const trace::RecordView& rec, bool l2, trace::Op& op, trace::L2Record& l2rec) {
  if (l2) {
    trace::decode_l2_record(rec, l2rec);
  } else if (trace::op_kind_from_qualname(rec.qualname) != trace::OpKind::Unknown) {
    trace::decode_op(rec, op);
  }
}

}  // namespace

ExitCode run_cat(const CatArgs& a) {
  std::unique_ptr<trace::FrameReader> reader = open_trace("cat", a.file, a.max_frame_mb);
  if (!reader) return ExitCode::kBadInput;
  std::string buf;
  buf.reserve(1 << 21);
  trace::RecordView rec;
  trace::Op op;
  trace::L2Record l2rec;
  const bool l2 = reader->header().level == trace::kLevelL2;
  int64_t printed = 0;
  try {
    while ((a.head < 0 || printed < a.head) && reader->next(rec)) {
      buf += "{\"offset\":" + std::to_string(rec.file_offset) + ",\"t_mono\":";
      put_double(buf, rec.t_mono);
      buf += ",\"t_wall\":";
      put_double(buf, rec.t_wall);
      buf += ",\"qualname\":";
      put_str(buf, rec.qualname);
      buf += ",\"args\":";
      size_t mark = buf.size();
      std::string error;
      try {
        check_typed(rec, l2, op, l2rec);
        MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
        put_value(buf, r, 0);
      } catch (const trace::DecodeError& e) {
        error = e.what();
        buf.resize(mark);
        put_raw(buf, rec);
      }
      if (!error.empty()) {
        buf += ",\"decode_error\":";
        put_str(buf, error);
      }
      buf += "}\n";
      ++printed;
      if (buf.size() >= (1u << 20)) {
        if (std::fwrite(buf.data(), 1, buf.size(), stdout) != buf.size()) {
          return ExitCode::kRecordsFailed;
        }
        buf.clear();
      }
    }
  } catch (const trace::TraceError& e) {
    std::fwrite(buf.data(), 1, buf.size(), stdout);
    std::fflush(stdout);
    print_error("cat", e.what());
    return ExitCode::kRecordsFailed;
  }
  std::fwrite(buf.data(), 1, buf.size(), stdout);
  return std::fflush(stdout) == 0 ? ExitCode::kOk : ExitCode::kRecordsFailed;
}

}  // namespace fleet::lct
