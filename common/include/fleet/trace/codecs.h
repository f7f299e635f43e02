// LMCache's codec registry on the replay side (spec/trace-format.md §4): decoding of the
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

ObjectKey decode_object_key(MsgpackReader& r);
void decode_object_keys(MsgpackReader& r, std::vector<ObjectKey>& out);
MemoryLayout decode_layout(MsgpackReader& r);
TrimPolicy decode_trim_policy(MsgpackReader& r);
PrefetchMode decode_prefetch_mode(MsgpackReader& r);
AttnWindowDesc decode_attn(MsgpackReader& r);
PrefetchSpec decode_prefetch_spec(MsgpackReader& r);
// Validates any value: every wrapper's tag must be known (the generic decode of §4.2).
void validate_value(MsgpackReader& r, uint32_t depth = 0);

void encode_object_key(const ObjectKey& k, MsgpackWriter& w, int64_t schema = 2);
void encode_object_keys(const std::vector<ObjectKey>& keys, MsgpackWriter& w, int64_t schema = 2);
void encode_layout(const MemoryLayout& l, MsgpackWriter& w);
void encode_trim_policy(TrimPolicy p, MsgpackWriter& w);
void encode_prefetch_mode(PrefetchMode m, MsgpackWriter& w);
void encode_attn(const AttnWindowDesc& a, MsgpackWriter& w);
void encode_prefetch_spec(const PrefetchSpec& s, MsgpackWriter& w, int64_t schema = 2);

}  // namespace fleet::trace
