// LMCache's codec registry on the replay side (docs/trace-format.md §4): decoding of the
// {"__t__": tag, "v": payload} wrappers into first-class types, with the defaults and legacy
// variants of §4.3, and the matching encoders for the writer. An unknown tag, a missing "v" or
// a malformed payload throws DecodeError; the replay then counts the record as skipped.
#pragma once

#include <string_view>

#include "fleet/trace/msgpack_reader.h"
#include "fleet/trace/msgpack_writer.h"
#include "fleet/trace/types.h"

namespace fleet::trace {

bool is_known_codec_tag(std::string_view tag);

// If the next value is a codec wrapper, returns its tag and a cursor at its payload and
// consumes the wrapper; otherwise returns an empty tag and consumes nothing.
struct Wrapped {
  std::string_view tag;
  MsgpackReader payload;
};
bool read_wrapper(MsgpackReader& r, Wrapped& out);
// Fast path for the form LMCache always writes, fixmap(2) {"__t__": tag, "v": payload} in that
// order: positions `r` at the payload, so reading the payload leaves `r` at the wrapper's end
// (no second walk). Returns false, consuming nothing, for any other form (then use
// read_wrapper). An unknown tag throws DecodeError, as read_wrapper does.
bool enter_wrapper_in_place(MsgpackReader& r, std::string_view& tag);

ObjectKey decode_object_key(MsgpackReader& r);
void decode_object_keys(MsgpackReader& r, std::vector<ObjectKey>& out);

// Key sharding's part of a call (RecordView::key_mask): bit i, least significant first, keeps
// key i of the record's `keys`. Empty: the whole record.
struct KeyMask {
  std::string_view bits;
  uint32_t keys = 0;
  bool empty() const { return bits.empty(); }
};
// Only the keys `mask` keeps, in order. The others are walked past without a copy when they are
// LMCache's canonical key of the model last seen (such a key holds no string to check) and
// decoded as a kept key otherwise, so a key that does not decode fails the record with or
// without a mask. MalformedRecord (offset 0: the mask, not the bytes) when the mask covers
// another number of keys than the record has, or keeps none.
void decode_object_keys(MsgpackReader& r, std::vector<ObjectKey>& out, const KeyMask& mask);
MemoryLayout decode_layout(MsgpackReader& r);
TrimPolicy decode_trim_policy(MsgpackReader& r);
PrefetchMode decode_prefetch_mode(MsgpackReader& r);
AttnWindowDesc decode_attn(MsgpackReader& r);
PrefetchSpec decode_prefetch_spec(MsgpackReader& r);
// Validates any value: every wrapper's tag must be known (the generic decode of §4.2).
void validate_value(MsgpackReader& r, uint32_t depth = 0);

// The same decoders writing into existing objects, reusing their strings and vectors: the
// replay decodes millions of records, and this keeps the steady state free of allocations.
void decode_object_key_into(MsgpackReader& r, ObjectKey& out);
void decode_layout_into(MsgpackReader& r, MemoryLayout& out);
void decode_attn_into(MsgpackReader& r, AttnWindowDesc& out);
void decode_prefetch_spec_into(MsgpackReader& r, PrefetchSpec& out, const KeyMask& mask = {});
// Resets the fields a recorded spec may omit to their defaults (era 1/2 submits have none),
// keeping the buffers of `keys` and of the layouts for the next decode.
void reset_prefetch_spec_defaults(PrefetchSpec& s);

void encode_object_key(const ObjectKey& k, MsgpackWriter& w, int64_t schema = 2);
void encode_object_keys(const std::vector<ObjectKey>& keys, MsgpackWriter& w, int64_t schema = 2);
void encode_layout(const MemoryLayout& l, MsgpackWriter& w);
void encode_trim_policy(TrimPolicy p, MsgpackWriter& w);
void encode_prefetch_mode(PrefetchMode m, MsgpackWriter& w);
void encode_attn(const AttnWindowDesc& a, MsgpackWriter& w);
void encode_prefetch_spec(const PrefetchSpec& s, MsgpackWriter& w, int64_t schema = 2);

}  // namespace fleet::trace
