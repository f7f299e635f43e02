#include "fleet/trace/l2_decoder.h"

#include <charconv>
#include <string>

#include "fleet/trace/codecs.h"
#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::trace {

namespace {

// The args a kind cannot do without, as bits of this enum.
enum Arg : uint32_t {
  kAdapter = 1u << 0,
  kTask = 1u << 1,
  kRequest = 1u << 2,
  kKeys = 1u << 3,
  kSizes = 1u << 4,
  kHits = 1u << 5,
  kSuccesses = 1u << 6,
  kSucceeded = 1u << 7,
  kFailed = 1u << 8,
  kRecorderDrops = 1u << 9,
  kBusDrops = 1u << 10,
};

uint32_t required_args(L2Kind k) {
  switch (k) {
    case L2Kind::StoreSubmitted:
      return kAdapter | kTask | kKeys | kSizes;
    case L2Kind::StoreCompleted:
      return kAdapter | kTask | kSucceeded | kFailed;
    case L2Kind::LookupSubmitted:
      return kRequest | kAdapter | kTask | kKeys;
    case L2Kind::LookupCompleted:
      return kRequest | kAdapter | kTask | kHits;
    case L2Kind::LoadSubmitted:
      return kRequest | kAdapter | kTask | kKeys | kSizes;
    case L2Kind::LoadCompleted:
      return kRequest | kAdapter | kTask | kSuccesses;
    case L2Kind::UnlockSubmitted:
      return kRequest | kAdapter | kKeys;
    case L2Kind::DeleteSubmitted:
      return kAdapter | kKeys;
    case L2Kind::TraceEnd:
      return kRecorderDrops | kBusDrops;
    case L2Kind::Unknown:
      break;
  }
  return 0;
}

const char* arg_name(uint32_t bit) {
  switch (bit) {
    case kAdapter:
      return "adapter_index";
    case kTask:
      return "task_id";
    case kRequest:
      return "request_id";
    case kKeys:
      return "keys";
    case kSizes:
      return "object_sizes";
    case kHits:
      return "hit_indices";
    case kSuccesses:
      return "success_indices";
    case kSucceeded:
      return "succeeded_count";
    case kFailed:
      return "failed_count";
    case kRecorderDrops:
      return "recorder_dropped_count";
    default:
      return "event_bus_dropped_count";
  }
}

void read_ints(MsgpackReader& r, std::vector<int64_t>& out) {
  uint32_t n = r.read_array_header();
  out.resize(n);
  for (uint32_t i = 0; i < n; ++i) out[i] = r.read_int();
}

void read_salt_counts(MsgpackReader& r, std::vector<std::pair<std::string, int64_t>>& out) {
  out.clear();
  if (r.try_nil()) return;
  uint32_t n = r.read_map_header();
  for (uint32_t i = 0; i < n; ++i) {
    std::string salt(r.read_str());
    out.emplace_back(std::move(salt), r.read_int());
  }
}

// group_layout_descs: object group id -> MemoryLayoutDesc. The codec encodes dict values only,
// so the keys are msgpack ints; a decimal string is accepted too (docs/l2-traces.md).
void read_group_layouts(MsgpackReader& r, std::map<int64_t, MemoryLayout>& out) {
  out.clear();
  if (r.try_nil()) return;
  uint32_t n = r.read_map_header();
  for (uint32_t i = 0; i < n; ++i) {
    int64_t gid = 0;
    if (r.peek() == MsgType::Str) {
      std::string_view s = r.read_str();
      auto res = std::from_chars(s.data(), s.data() + s.size(), gid);
      if (res.ec != std::errc() || res.ptr != s.data() + s.size())
        r.fail("group_layout_descs key is not an integer");
    } else {
      gid = r.read_int();
    }
    decode_layout_into(r, out[gid]);
  }
}

// One named arg into `out`; returns its bit (0 for args that are optional or unknown).
uint32_t read_arg(MsgpackReader& r, std::string_view name, L2Record& out, MemoryLayout& legacy,
                  bool& has_legacy) {
  auto int_arg = [&](int64_t& field, uint32_t bit) {
    field = r.read_int();
    return bit;
  };
  if (name == "adapter_index") return int_arg(out.adapter_index, kAdapter);
  if (name == "task_id") return (out.task_id = r.read_int(), kTask);
  if (name == "request_id") return (out.request_id = r.read_int(), kRequest);
  if (name == "l2_name") return (out.l2_name.assign(r.read_str()), 0u);
  if (name == "keys") return (decode_object_keys(r, out.keys), kKeys);
  if (name == "object_sizes") return (read_ints(r, out.object_sizes), kSizes);
  if (name == "key_count") return int_arg(out.key_count, 0);
  if (name == "total_bytes") return int_arg(out.total_bytes, 0);
  if (name == "key_count_per_salt") return (read_salt_counts(r, out.key_count_per_salt), 0u);
  if (name == "group_layout_descs") return (read_group_layouts(r, out.group_layouts), 0u);
  if (name == "hit_indices") return (read_ints(r, out.indices), kHits);
  if (name == "success_indices") return (read_ints(r, out.indices), kSuccesses);
  if (name == "bytes_transferred") return int_arg(out.bytes_transferred, 0);
  if (name == "succeeded_count") return int_arg(out.succeeded_count, kSucceeded);
  if (name == "failed_count") return int_arg(out.failed_count, kFailed);
  if (name == "recorder_dropped_count") return int_arg(out.recorder_dropped_count, kRecorderDrops);
  if (name == "event_bus_dropped_count") return int_arg(out.event_bus_dropped_count, kBusDrops);
  if (name == "layout_desc") {
    if (!r.try_nil()) {
      decode_layout_into(r, legacy);
      has_legacy = true;
    }
    return 0;
  }
  validate_value(r);  // unknown arg: kept out of the model, but its codec tags must be known
  return 0;
}

void reset(L2Record& out) {
  out.unknown_qualname.clear();
  out.request_id.reset();
  out.adapter_index = 0;
  out.task_id.reset();
  out.l2_name.clear();
  out.keys.clear();
  out.object_sizes.clear();
  out.key_count = out.total_bytes = 0;
  out.key_count_per_salt.clear();
  out.group_layouts.clear();
  out.legacy_layout_desc = false;
  out.indices.clear();
  out.bytes_transferred = out.succeeded_count = out.failed_count = 0;
  out.recorder_dropped_count = out.event_bus_dropped_count = 0;
}

void decode_args(MsgpackReader& r, L2Record& out) {
  MemoryLayout legacy;
  bool has_legacy = false;
  uint32_t seen = 0;
  const uint32_t n = r.read_map_header();
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view name = r.read_str();
    seen |= read_arg(r, name, out, legacy, has_legacy);
  }
  if (out.kind == L2Kind::Unknown) return;
  const uint32_t missing = required_args(out.kind) & ~seen;
  if (missing != 0) {
    r.fail((std::string("lacks ") + arg_name(missing & -missing)).c_str());
  }
  if ((seen & kSizes) && out.object_sizes.size() != out.keys.size())
    r.fail("keys and object_sizes differ in length");
  for (int64_t s : out.object_sizes)
    if (s < 0) r.fail("object_sizes holds a negative size");
  // `group_layout_descs` wins when non-empty; the older single layout is group 0.
  if (out.group_layouts.empty() && has_legacy) {
    out.group_layouts[0] = std::move(legacy);
    out.legacy_layout_desc = true;
  }
}

}  // namespace

void decode_l2_record(const RecordView& rec, L2Record& out) {
  reset(out);
  out.t_mono = rec.t_mono;
  out.t_wall = rec.t_wall;
  out.kind = l2_kind_from_qualname(rec.qualname);
  if (out.kind == L2Kind::Unknown) out.unknown_qualname.assign(rec.qualname);
  MsgpackReader r(rec.body + rec.args_offset, rec.args_size);
  // A deferred check (the reader did not walk the args) happens here, in the decode's one walk:
  // every string is checked as it is read, and the args must end the frame. Only a failure
  // takes the strict parse, which says whether the frame is malformed (MalformedRecord: the
  // reader skips it) or a valid Record whose L2 args do not decode.
  if (!rec.args_checked) r.check_all_strings(true);
  try {
    decode_args(r, out);
    if (!rec.args_checked && !r.at_end()) r.fail("trailing bytes after the record object");
  } catch (const DecodeError& e) {
    if (!rec.args_checked) check_deferred_args(rec);
    // Rebased onto the frame body, and named by qualname, as decode_op does.
    throw DecodeError(rec.args_offset + e.offset(),
                      std::string(rec.qualname) + " args: " + e.message());
  }
}

}  // namespace fleet::trace
