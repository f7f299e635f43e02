#include "fleet/trace/l2_decoder.h"

#include <charconv>
#include <map>
#include <string>
#include <utility>
#include <vector>

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
  kL2Name = 1u << 11,  // optional; tracked so that a record without it reads as ""
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

void read_ints(MsgpackReader& r, std::vector<int64_t>& out) { r.read_int_array(out); }

void read_salt_counts(MsgpackReader& r, std::vector<std::pair<std::string, int64_t>>& out) {
  out.clear();
  if (r.try_nil()) return;
  uint32_t n = r.read_map_header();
  for (uint32_t i = 0; i < n; ++i) {
    std::string salt(r.read_str());
    out.emplace_back(std::move(salt), r.read_int());
  }
}

// The map nodes of layouts decoded before, with their vectors' capacity: a lookup's layouts
// map is rebuilt from them, so that decoding a record allocates nothing in the steady state
// (four allocations and frees per lookup record before: the node and its three vectors).
using LayoutNodes = std::vector<std::map<int64_t, MemoryLayout>::node_type>;
LayoutNodes& spare_layout_nodes() {
  thread_local LayoutNodes nodes;
  return nodes;
}

void recycle_layouts(std::map<int64_t, MemoryLayout>& layouts) {
  LayoutNodes& spare = spare_layout_nodes();
  while (!layouts.empty() && spare.size() < 64) spare.push_back(layouts.extract(layouts.begin()));
  layouts.clear();
}

// The entry of `gid`, from a spare node when there is one.
MemoryLayout& layout_entry(std::map<int64_t, MemoryLayout>& out, int64_t gid) {
  if (auto it = out.find(gid); it != out.end()) return it->second;
  LayoutNodes& spare = spare_layout_nodes();
  if (spare.empty()) return out[gid];
  auto node = std::move(spare.back());
  spare.pop_back();
  node.key() = gid;
  return out.insert(std::move(node)).position->second;
}

// group_layout_descs: object group id -> MemoryLayoutDesc. The codec encodes dict values only,
// so the keys are msgpack ints; a decimal string is accepted too (docs/l2-traces.md).
void read_group_layouts(MsgpackReader& r, std::map<int64_t, MemoryLayout>& out) {
  recycle_layouts(out);
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
    decode_layout_into(r, layout_entry(out, gid));
  }
}

// The args the decoder knows, by name.
enum class Name {
  Adapter,
  Task,
  Request,
  L2Name,
  Keys,
  Sizes,
  KeyCount,
  TotalBytes,
  SaltCounts,
  GroupLayouts,
  Hits,
  Successes,
  BytesTransferred,
  Succeeded,
  Failed,
  RecorderDrops,
  BusDrops,
  LayoutDesc,
  Unknown,
  NotMatched,  // known_name only: not one of the canonical encodings, read the name
};

Name name_of(std::string_view name) {
  static constexpr std::pair<std::string_view, Name> kNames[] = {
      {"adapter_index", Name::Adapter},
      {"task_id", Name::Task},
      {"request_id", Name::Request},
      {"l2_name", Name::L2Name},
      {"keys", Name::Keys},
      {"object_sizes", Name::Sizes},
      {"key_count", Name::KeyCount},
      {"total_bytes", Name::TotalBytes},
      {"key_count_per_salt", Name::SaltCounts},
      {"group_layout_descs", Name::GroupLayouts},
      {"hit_indices", Name::Hits},
      {"success_indices", Name::Successes},
      {"bytes_transferred", Name::BytesTransferred},
      {"succeeded_count", Name::Succeeded},
      {"failed_count", Name::Failed},
      {"recorder_dropped_count", Name::RecorderDrops},
      {"event_bus_dropped_count", Name::BusDrops},
      {"layout_desc", Name::LayoutDesc},
  };
  for (const auto& [text, n] : kNames)
    if (text == name) return n;
  return Name::Unknown;
}

// The next arg name when it is one of the above as LMCache's encoder writes it (a fixstr: its
// header byte, which holds the length, then the name), consumed; NotMatched, nothing consumed,
// otherwise. The common case needs neither read_str's UTF-8 check nor a compare per name.
Name known_name(MsgpackReader& r) {
  if (r.at_end()) return Name::NotMatched;
  switch (r.peek_byte()) {
    case 0xa4:
      if (r.try_literal("\xa4"
                        "keys"))
        return Name::Keys;
      break;
    case 0xa7:
      if (r.try_literal("\xa7"
                        "task_id"))
        return Name::Task;
      if (r.try_literal("\xa7"
                        "l2_name"))
        return Name::L2Name;
      break;
    case 0xa9:
      if (r.try_literal("\xa9"
                        "key_count"))
        return Name::KeyCount;
      break;
    case 0xaa:
      if (r.try_literal("\xaa"
                        "request_id"))
        return Name::Request;
      break;
    case 0xab:
      if (r.try_literal("\xab"
                        "hit_indices"))
        return Name::Hits;
      if (r.try_literal("\xab"
                        "total_bytes"))
        return Name::TotalBytes;
      if (r.try_literal("\xab"
                        "layout_desc"))
        return Name::LayoutDesc;
      break;
    case 0xac:
      if (r.try_literal("\xac"
                        "object_sizes"))
        return Name::Sizes;
      if (r.try_literal("\xac"
                        "failed_count"))
        return Name::Failed;
      break;
    case 0xad:
      if (r.try_literal("\xad"
                        "adapter_index"))
        return Name::Adapter;
      break;
    case 0xaf:
      if (r.try_literal("\xaf"
                        "success_indices"))
        return Name::Successes;
      if (r.try_literal("\xaf"
                        "succeeded_count"))
        return Name::Succeeded;
      break;
    case 0xb1:
      if (r.try_literal("\xb1"
                        "bytes_transferred"))
        return Name::BytesTransferred;
      break;
    case 0xb2:
      if (r.try_literal("\xb2"
                        "group_layout_descs"))
        return Name::GroupLayouts;
      if (r.try_literal("\xb2"
                        "key_count_per_salt"))
        return Name::SaltCounts;
      break;
    default:
      break;
  }
  return Name::NotMatched;
}

// One arg's value into `out`; returns its bit (0 for args that are optional or unknown).
uint32_t read_arg(MsgpackReader& r, Name name, L2Record& out, MemoryLayout& legacy,
                  bool& has_legacy) {
  auto int_arg = [&](int64_t& field, uint32_t bit) {
    field = r.read_int();
    return bit;
  };
  switch (name) {
    case Name::Adapter:
      return int_arg(out.adapter_index, kAdapter);
    case Name::Task:
      return (out.task_id = r.read_int(), kTask);
    case Name::Request:
      return (out.request_id = r.read_int(), kRequest);
    case Name::L2Name: {
      // Every record names the same adapter: the string kept from the record before is
      // compared, not assigned again (an assign per record: ~2 % of the decoding thread).
      const std::string_view name = r.read_str();
      if (out.l2_name != name) out.l2_name.assign(name);
      return kL2Name;
    }
    case Name::Keys:
      return (decode_object_keys(r, out.keys), kKeys);
    case Name::Sizes:
      return (read_ints(r, out.object_sizes), kSizes);
    case Name::KeyCount:
      return int_arg(out.key_count, 0);
    case Name::TotalBytes:
      return int_arg(out.total_bytes, 0);
    case Name::SaltCounts:
      return (read_salt_counts(r, out.key_count_per_salt), 0u);
    case Name::GroupLayouts:
      return (read_group_layouts(r, out.group_layouts), 0u);
    case Name::Hits:
      return (read_ints(r, out.indices), kHits);
    case Name::Successes:
      return (read_ints(r, out.indices), kSuccesses);
    case Name::BytesTransferred:
      return int_arg(out.bytes_transferred, 0);
    case Name::Succeeded:
      return int_arg(out.succeeded_count, kSucceeded);
    case Name::Failed:
      return int_arg(out.failed_count, kFailed);
    case Name::RecorderDrops:
      return int_arg(out.recorder_dropped_count, kRecorderDrops);
    case Name::BusDrops:
      return int_arg(out.event_bus_dropped_count, kBusDrops);
    case Name::LayoutDesc:
      if (!r.try_nil()) {
        decode_layout_into(r, legacy);
        has_legacy = true;
      }
      return 0;
    default:
      validate_value(r);  // unknown arg: kept out of the model, but its codec tags must be known
      return 0;
  }
}

void reset(L2Record& out) {
  out.unknown_qualname.clear();
  out.request_id.reset();
  out.adapter_index = 0;
  out.task_id.reset();
  // l2_name is kept: decode_args clears it when the record has none.
  out.keys.clear();
  out.object_sizes.clear();
  out.key_count = out.total_bytes = 0;
  out.key_count_per_salt.clear();
  recycle_layouts(out.group_layouts);
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
    Name name = known_name(r);
    if (name == Name::NotMatched) name = name_of(r.read_str());
    seen |= read_arg(r, name, out, legacy, has_legacy);
  }
  if (!(seen & kL2Name)) out.l2_name.clear();
  if (out.kind == L2Kind::Unknown) return;
  const uint32_t missing = required_args(out.kind) & ~seen;
  if (missing != 0) {
    r.fail((std::string("lacks ") + arg_name(missing & -missing)).c_str());
  }
  if ((seen & kSizes) && out.object_sizes.size() != out.keys.size())
    r.fail("keys and object_sizes differ in length");
  int64_t sum = 0;  // L2Record::object_bytes() of the record: it must fit
  for (int64_t s : out.object_sizes) {
    if (s < 0) r.fail("object_sizes holds a negative size");
    if (__builtin_add_overflow(sum, s, &sum)) r.fail("object_sizes sum past 2^63 bytes");
  }
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
