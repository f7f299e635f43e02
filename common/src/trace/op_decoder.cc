#include "fleet/trace/op_decoder.h"

#include "fleet/trace/codecs.h"

namespace fleet::trace {

namespace {

void decode_reserve_write(MsgpackReader& r, uint32_t nargs, Op& op) {
  bool keys = false, layout = false;
  op.mode = WriteMode::New;  // era 4 has no mode: "new"
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys);
      keys = true;
    } else if (name == "layout_desc") {
      op.layout = decode_layout(r);
      layout = true;
    } else if (name == "mode") {
      auto m = parse_write_mode(r.read_str());
      if (!m) r.fail("reserve_write mode is not new/update/all");
      op.mode = *m;
    } else {
      validate_value(r);
    }
  }
  if (!keys || !layout) r.fail("reserve_write lacks keys or layout_desc");
}

void decode_keys_only(MsgpackReader& r, uint32_t nargs, Op& op) {
  bool keys = false;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys);
      keys = true;
    } else {
      validate_value(r);  // e.g. recover_expired / extra_count on __enter__ ([OPEN] 3)
    }
  }
  if (!keys) r.fail("record lacks keys");
}

void decode_finish_read(MsgpackReader& r, uint32_t nargs, Op& op) {
  bool keys = false;
  op.read_locks = 1;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys);
      keys = true;
    } else if (name == "read_locks") {
      op.read_locks = r.read_int();
    } else if (name == "extra_count") {
      op.read_locks = r.read_int() + 1;  // era 1
    } else {
      validate_value(r);
    }
  }
  if (!keys) r.fail("finish_read_prefetched lacks keys");
}

void decode_submit_prefetch(MsgpackReader& r, uint32_t nargs, Op& op) {
  bool spec = false, legacy_keys = false;
  MemoryLayout legacy_layout;
  bool has_layout = false;
  int64_t extra_count = 0;
  op.spec = PrefetchSpec{};
  op.external_request_id.clear();
  op.skip_l2 = false;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "spec") {
      op.spec = decode_prefetch_spec(r);
      spec = true;
    } else if (name == "external_request_id") {
      op.external_request_id = std::string(r.read_str());
    } else if (name == "skip_l2") {
      op.skip_l2 = r.read_bool();
    } else if (name == "keys") {  // era 1/2 signature
      decode_object_keys(r, op.spec.keys);
      legacy_keys = true;
    } else if (name == "layout_desc") {
      legacy_layout = decode_layout(r);
      has_layout = true;
    } else if (name == "extra_count") {
      extra_count = r.read_int();
    } else if (name == "policy") {
      op.spec.policy = decode_trim_policy(r);
    } else if (name == "attn_desc") {
      op.spec.attn = decode_attn(r);
    } else if (name == "mode") {
      op.spec.mode = decode_prefetch_mode(r);
    } else {
      validate_value(r);
    }
  }
  if (spec) return;
  if (!legacy_keys || !has_layout) r.fail("submit_prefetch_task lacks spec (or keys+layout_desc)");
  op.spec.num_kv_readers = extra_count + 1;
  op.spec.group_layouts[0] = legacy_layout;
}

}  // namespace

void decode_op(const RecordView& rec, Op& op) {
  op.kind = op_kind_from_qualname(rec.qualname);
  op.t_mono = rec.t_mono;
  op.t_wall = rec.t_wall;
  op.keys.clear();
  if (op.kind == OpKind::Unknown) {
    op.unknown_qualname = std::string(rec.qualname);
    return;
  }
  MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
  try {
    uint32_t nargs = r.read_map_header();
    switch (op.kind) {
      case OpKind::ReserveWrite: decode_reserve_write(r, nargs, op); break;
      case OpKind::FinishWrite:
      case OpKind::AbortWrite:
      case OpKind::ReadEnter:
      case OpKind::ReadExit: decode_keys_only(r, nargs, op); break;
      case OpKind::FinishRead: decode_finish_read(r, nargs, op); break;
      case OpKind::SubmitPrefetch: decode_submit_prefetch(r, nargs, op); break;
      case OpKind::Unknown: break;
    }
  } catch (const DecodeError& e) {
    // Rebase the offset onto the frame body so messages point into the file.
    throw DecodeError(rec.args_offset + e.offset(), std::string(op_kind_name(op.kind)) +
                                                        " args: " + e.what());
  }
}

namespace {

// Walks an ObjectKey wrapper and appends its chunk identity without allocating.
void scan_key(MsgpackReader& r, std::vector<uint64_t>& ids) {
  Wrapped w{{}, r};
  if (!read_wrapper(r, w) || w.tag != "ObjectKey") r.fail("expected an ObjectKey");
  MsgpackReader& p = w.payload;
  uint32_t n = p.read_map_header();
  std::string_view hash, model;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view key = p.read_str();
    if (key == "chunk_hash") hash = p.peek() == MsgType::Str ? p.read_str() : p.read_bin();
    else if (key == "model_name") model = p.read_str();
    else p.skip();
  }
  ids.push_back(chunk_identity_hash(model, hash));
}

void scan_keys(MsgpackReader& r, std::vector<uint64_t>& ids) {
  uint32_t n = r.read_array_header();
  for (uint32_t i = 0; i < n; ++i) scan_key(r, ids);
}

}  // namespace

void scan_record(const RecordView& rec, ScanInfo& out) {
  out.t_mono = rec.t_mono;
  out.kind = op_kind_from_qualname(rec.qualname);
  out.chunk_ids.clear();
  out.decode_failed = false;
  if (out.kind == OpKind::Unknown) return;
  try {
    MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
    uint32_t nargs = r.read_map_header();
    for (uint32_t i = 0; i < nargs; ++i) {
      std::string_view name = r.read_str();
      if (name == "keys") {
        scan_keys(r, out.chunk_ids);
      } else if (name == "spec") {
        Wrapped w{{}, r};
        if (!read_wrapper(r, w)) r.fail("spec is not a codec wrapper");
        uint32_t n = w.payload.read_map_header();
        for (uint32_t j = 0; j < n; ++j) {
          std::string_view f = w.payload.read_str();
          if (f == "keys") scan_keys(w.payload, out.chunk_ids);
          else w.payload.skip();
        }
      } else {
        r.skip();
      }
    }
  } catch (const DecodeError&) {
    out.decode_failed = true;
  }
}

}  // namespace fleet::trace
