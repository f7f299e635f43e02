#include "fleet/trace/op_decoder.h"

#include "fleet/trace/codecs.h"

namespace fleet::trace {

namespace {

void decode_reserve_write(MsgpackReader& r, uint32_t nargs, Op& op, const KeyMask& mask) {
  bool keys = false, layout = false;
  op.mode = WriteMode::New;  // era 4 has no mode: "new"
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys, mask);
      keys = true;
    } else if (name == "layout_desc") {
      decode_layout_into(r, op.layout);
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

void decode_keys_only(MsgpackReader& r, uint32_t nargs, Op& op, const KeyMask& mask) {
  bool keys = false;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys, mask);
      keys = true;
    } else {
      // e.g. recover_expired / extra_count on __enter__ (docs/trace-format.md §8 [OPEN] 3)
      validate_value(r);
    }
  }
  if (!keys) r.fail("record lacks keys");
}

void decode_finish_read(MsgpackReader& r, uint32_t nargs, Op& op, const KeyMask& mask) {
  bool keys = false;
  op.read_locks = 1;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "keys") {
      decode_object_keys(r, op.keys, mask);
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

void decode_submit_prefetch(MsgpackReader& r, uint32_t nargs, Op& op, const KeyMask& mask) {
  bool spec = false, legacy_keys = false;
  MemoryLayout legacy_layout;
  bool has_layout = false;
  int64_t extra_count = 0;
  PrefetchSpec& s = op.spec;
  reset_prefetch_spec_defaults(s);  // era 1/2; an era-3 "spec" argument overwrites them
  op.external_request_id.clear();
  op.skip_l2 = false;
  for (uint32_t i = 0; i < nargs; ++i) {
    std::string_view name = r.read_str();
    if (name == "spec") {
      decode_prefetch_spec_into(r, s, mask);
      spec = true;
    } else if (name == "external_request_id") {
      op.external_request_id.assign(r.read_str());
    } else if (name == "skip_l2") {
      op.skip_l2 = r.read_bool();
    } else if (name == "keys") {  // era 1/2 signature
      decode_object_keys(r, s.keys, mask);
      legacy_keys = true;
    } else if (name == "layout_desc") {
      decode_layout_into(r, legacy_layout);
      has_layout = true;
    } else if (name == "extra_count") {
      extra_count = r.read_int();
    } else if (name == "policy") {
      s.policy = decode_trim_policy(r);
    } else if (name == "attn_desc") {
      decode_attn_into(r, s.attn);
    } else if (name == "mode") {
      s.mode = decode_prefetch_mode(r);
    } else {
      validate_value(r);
    }
  }
  if (spec) return;
  if (!legacy_keys || !has_layout) r.fail("submit_prefetch_task lacks spec (or keys+layout_desc)");
  s.num_kv_readers = extra_count + 1;
  s.group_layouts.clear();
  s.group_layouts[0] = std::move(legacy_layout);
}

}  // namespace

namespace {

// Only the keys `mask` keeps are decoded into the op (a split call's part).
void decode_args(MsgpackReader& r, Op& op, const KeyMask& mask) {
  uint32_t nargs = r.read_map_header();
  switch (op.kind) {
    case OpKind::ReserveWrite:
      decode_reserve_write(r, nargs, op, mask);
      break;
    case OpKind::FinishWrite:
    case OpKind::AbortWrite:
    case OpKind::ReadEnter:
    case OpKind::ReadExit:
      decode_keys_only(r, nargs, op, mask);
      break;
    case OpKind::FinishRead:
      decode_finish_read(r, nargs, op, mask);
      break;
    case OpKind::SubmitPrefetch:
      decode_submit_prefetch(r, nargs, op, mask);
      break;
    case OpKind::Unknown:
      break;
  }
}

// The deferred Record check, run only when something failed or was never decoded: a frame
// msgspec would reject becomes MalformedRecord with the strict parser's own message.
void check_record_strictly(const RecordView& rec) {
  RecordView strict;
  try {
    parse_record(rec.body, rec.body_size, strict);
  } catch (const DecodeError& e) {
    throw MalformedRecord(e.offset(), e.message());
  }
}

}  // namespace

void decode_op(const RecordView& rec, Op& op) {
  op.kind = op_kind_from_qualname(rec.qualname);
  op.t_mono = rec.t_mono;
  op.t_wall = rec.t_wall;
  if (op.kind == OpKind::SubmitPrefetch) op.keys.clear();  // its keys live in op.spec
  if (op.kind == OpKind::Unknown) {
    if (!rec.args_checked) check_record_strictly(rec);
    op.unknown_qualname = std::string(rec.qualname);
    return;
  }
  MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
  // Deferred check: validate every string while decoding, and the frame's end after args.
  if (!rec.args_checked) r.check_all_strings(true);
  try {
    decode_args(r, op, KeyMask{rec.key_mask, rec.key_mask_keys});
    if (!rec.args_checked && !r.at_end()) r.fail("trailing bytes after the record object");
  } catch (const MalformedRecord&) {
    throw;  // a key mask made for another record: the record's bytes are not in question
  } catch (const DecodeError& e) {
    if (!rec.args_checked) check_record_strictly(rec);
    // Rebase the offset onto the frame body so messages point into the file.
    throw DecodeError(rec.args_offset + e.offset(),
                      std::string(op_kind_name(op.kind)) + " args: " + e.message());
  }
}

uint64_t ModelHashCache::get(std::string_view m) {
  if (!valid || m != model) {
    model.assign(m);
    state = chunk_identity_model_state(m);
    encoded.clear();
    valid = true;
  }
  return state;
}

namespace {

// LMCache's canonical key (MsgpackReader::try_canonical_object_key): its identity without a
// generic read; the model's state comes from the cache while its bytes are the cached ones.
bool scan_canonical_key(MsgpackReader& r, std::vector<uint64_t>& ids, ModelHashCache& cache) {
  std::string_view hash, model_str;
  if (!r.try_canonical_object_key(hash, model_str)) return false;
  if (model_str != cache.encoded) {
    const size_t header = static_cast<uint8_t>(model_str[0]) == 0xd9 ? 2 : 1;
    cache.get(model_str.substr(header));
    cache.encoded.assign(model_str);
  }
  ids.push_back(chunk_lifecycle_id(cache.state, hash));
  return true;
}

// Walks an ObjectKey wrapper and appends its chunk identity without allocating. LMCache's
// canonical field names are matched as raw bytes; anything else takes the general path.
void scan_key(MsgpackReader& r, std::vector<uint64_t>& ids, ModelHashCache& cache) {
  if (scan_canonical_key(r, ids, cache)) return;
  Wrapped w{{}, r};
  MsgpackReader* pp = &r;
  std::string_view tag;
  if (r.try_literal("\x82\xa5__t__\xa9ObjectKey\xa1v")) {
    // LMCache's canonical wrapper, matched as raw bytes (as decode_object_key_into does)
  } else if (enter_wrapper_in_place(r, tag)) {
    if (tag != "ObjectKey") r.fail("expected an ObjectKey");
  } else {
    if (!read_wrapper(r, w) || w.tag != "ObjectKey") r.fail("expected an ObjectKey");
    pp = &w.payload;
  }
  MsgpackReader& p = *pp;
  uint32_t n = p.read_map_header();
  std::string_view hash, model;
  std::string_view encoded;  // model's bytes when read canonically: the cache keeps them
  for (uint32_t i = 0; i < n; ++i) {
    if (p.try_literal("\xaa"
                      "chunk_hash")) {
      hash = p.peek() == MsgType::Str ? p.read_str() : p.read_bin();
    } else if (p.try_literal("\xaamodel_name")) {
      const uint8_t* start = p.data() + p.offset();
      model = p.read_str();
      encoded = std::string_view(reinterpret_cast<const char*>(start),
                                 static_cast<size_t>(p.data() + p.offset() - start));
    } else if (p.try_literal("\xa7kv_rank") ||
               p.try_literal("\xaf"
                             "object_group_id") ||
               p.try_literal("\xaa"
                             "cache_salt")) {
      p.skip();
    } else {
      std::string_view key = p.read_str();
      if (key == "chunk_hash") {
        hash = p.peek() == MsgType::Str ? p.read_str() : p.read_bin();
      } else if (key == "model_name") {
        model = p.read_str();
        encoded = {};
      } else {
        p.skip();
      }
    }
  }
  const uint64_t state = cache.get(model);
  // Only bytes that were read (and checked) as this very model may stand for it later.
  if (!encoded.empty()) cache.encoded.assign(encoded);
  ids.push_back(chunk_lifecycle_id(state, hash));
}

void scan_keys(MsgpackReader& r, std::vector<uint64_t>& ids, ModelHashCache& cache) {
  uint32_t n = r.read_array_header();
  for (uint32_t i = 0; i < n; ++i) scan_key(r, ids, cache);
}

}  // namespace

void scan_record(const RecordView& rec, ScanInfo& out) {
  out.t_mono = rec.t_mono;
  out.kind = op_kind_from_qualname(rec.qualname);
  out.chunk_ids.clear();
  out.decode_failed = false;
  if (out.kind == OpKind::Unknown) {
    if (!rec.args_checked) check_record_strictly(rec);
    return;
  }
  ModelHashCache& cache = out.models;
  try {
    MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
    // Deferred check, as in decode_op: the scan's one walk also validates the args.
    if (!rec.args_checked) r.check_all_strings(true);
    uint32_t nargs = r.read_map_header();
    for (uint32_t i = 0; i < nargs; ++i) {
      std::string_view name = r.read_str();
      if (name == "keys") {
        scan_keys(r, out.chunk_ids, cache);
      } else if (name == "spec") {
        Wrapped w{{}, r};
        MsgpackReader* p = &r;
        std::string_view tag;
        if (!enter_wrapper_in_place(r, tag)) {
          if (!read_wrapper(r, w)) r.fail("spec is not a codec wrapper");
          p = &w.payload;
        }
        uint32_t n = p->read_map_header();
        for (uint32_t j = 0; j < n; ++j) {
          std::string_view f = p->read_str();
          if (f == "keys")
            scan_keys(*p, out.chunk_ids, cache);
          else
            p->skip();
        }
      } else {
        r.skip();
      }
    }
    if (!rec.args_checked && !r.at_end()) r.fail("trailing bytes after the record object");
  } catch (const DecodeError&) {
    if (!rec.args_checked) check_record_strictly(rec);  // MalformedRecord if msgspec would refuse
    out.decode_failed = true;
  }
}

void check_deferred_args(const RecordView& rec) {
  // The strict parse again only for a frame that fails: it words the error as msgspec would.
  if (!deferred_args_valid(rec)) check_record_strictly(rec);
}

}  // namespace fleet::trace
