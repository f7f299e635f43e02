#include "fleet/trace/codecs.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <string>

#include "fleet/trace/errors.h"
#include "fleet/util/fixed_bytes.h"
#include "fleet/util/utf8.h"

namespace fleet::trace {

namespace {

constexpr std::array<std::string_view, 11> kTags = {
    "ObjectKey",    "MemoryLayoutDesc", "torch.Size",     "torch.dtype",         "TrimPolicy",
    "PrefetchMode", "AttnWindowDesc",   "PrefetchHandle", "PrefetchRequestSpec", "set",
    "tuple"};

// Reads an array, or a tuple/torch.Size/set wrapper around one; returns its length.
uint32_t read_sequence(MsgpackReader& r) {
  std::string_view tag;
  if (r.remaining() > 0 && r.peek() == MsgType::Array) return r.read_array_header();
  if (enter_wrapper_in_place(r, tag)) {  // canonical: `r` ends past the wrapper with the payload
    if (tag != "tuple" && tag != "torch.Size" && tag != "set") r.fail("expected a sequence");
    return r.read_array_header();
  }
  Wrapped w{{}, r};
  if (read_wrapper(r, w)) {
    if (w.tag != "tuple" && w.tag != "torch.Size" && w.tag != "set") {
      r.fail("expected a sequence");
    }
    // The wrapper was consumed; continue reading from the payload cursor, then resync.
    r = w.payload;
  }
  return r.read_array_header();
}

std::string_view read_str_or_wrapped(MsgpackReader& r, std::string_view tag) {
  std::string_view in_place;
  if (enter_wrapper_in_place(r, in_place)) {
    if (in_place != tag) r.fail("unexpected codec tag");
    return r.read_str();
  }
  Wrapped w{{}, r};
  if (read_wrapper(r, w)) {
    if (w.tag != tag) r.fail("unexpected codec tag");
    std::string_view s = w.payload.read_str();
    return s;
  }
  return r.read_str();
}

}  // namespace

bool is_known_codec_tag(std::string_view tag) {
  for (auto t : kTags)
    if (t.size() == tag.size() && util::same_bytes(t.data(), tag.data(), t.size())) return true;
  return false;
}

bool read_wrapper(MsgpackReader& r, Wrapped& out) {
  if (r.at_end() || r.peek() != MsgType::Map) return false;
  MsgpackReader probe = r;
  uint32_t n = probe.read_map_header();
  std::string_view tag;
  bool has_tag = false;
  size_t v_offset = 0;
  bool has_v = false;
  for (uint32_t i = 0; i < n; ++i) {
    if (probe.peek() != MsgType::Str) {
      probe.skip();
      probe.skip();
      continue;
    }
    std::string_view key = probe.read_str();
    if (key == "__t__") {
      if (probe.try_nil()) continue;  // a nil tag means a plain dict
      tag = probe.read_str();
      has_tag = true;
    } else if (key == "v") {
      v_offset = probe.offset();
      has_v = true;
      probe.skip();
    } else {
      probe.skip();
    }
  }
  if (!has_tag) return false;
  if (!is_known_codec_tag(tag)) probe.fail("unknown codec tag");
  if (!has_v) probe.fail("codec wrapper lacks \"v\"");
  out.tag = tag;
  out.payload = probe.at(v_offset);
  r = probe;  // consume the whole wrapper
  return true;
}

bool enter_wrapper_in_place(MsgpackReader& r, std::string_view& tag) {
  static constexpr unsigned char kHead[] = {0x82, 0xa5, '_', '_', 't', '_', '_'};
  if (r.remaining() < sizeof kHead + 3) return false;
  const uint8_t* p = r.data() + r.offset();
  if (!util::fixed_bytes_equal<sizeof kHead>(p, kHead)) return false;
  MsgpackReader q = r.at(r.offset() + sizeof kHead);
  if (q.peek() != MsgType::Str) return false;  // e.g. a nil tag: a plain dict
  std::string_view t = q.read_str();
  if (q.remaining() < 2 || q.data()[q.offset()] != 0xa1 || q.data()[q.offset() + 1] != 'v') {
    return false;
  }
  if (!is_known_codec_tag(t)) q.fail("unknown codec tag");
  tag = t;
  r = q.at(q.offset() + 2);
  return true;
}

namespace {
// Positions a cursor at the payload of a wrapper with tag `want`: in place when canonical
// (then `r` ends past the wrapper once the payload is read), else through read_wrapper.
MsgpackReader* payload_of(MsgpackReader& r, Wrapped& w, std::string_view want, const char* what) {
  std::string_view tag;
  if (enter_wrapper_in_place(r, tag)) {
    if (tag != want) r.fail(what);
    return &r;
  }
  if (!read_wrapper(r, w) || w.tag != want) r.fail(what);
  return &w.payload;
}
}  // namespace

ObjectKey decode_object_key(MsgpackReader& r) {
  ObjectKey k;
  decode_object_key_into(r, k);
  return k;
}

namespace {
// The fields of an ObjectKey map read into a reused key, and whether the required ones came.
struct KeyFields {
  MsgpackReader& p;
  ObjectKey& k;
  bool hash = false, model = false, rank = false;

  void chunk_hash() {
    k.chunk_hash.assign(p.peek() == MsgType::Str ? p.read_str() : p.read_bin());
    hash = true;
  }
  void model_name() {
    // The decoder reuses its keys, so the model name is nearly always the one the key holds,
    // whose bytes were checked when they were first decoded: only a new name is checked.
    std::string_view m = p.read_str_unchecked();
    if (!(k.model_name == m)) {
      if (p.checks_all_strings() && !util::is_valid_utf8(m)) p.fail("str is not valid UTF-8");
      if (!k.model_name.try_assign(m)) p.fail("too many distinct model names");
    }
    model = true;
  }
  void kv_rank() {
    k.kv_rank = p.read_int();
    rank = true;
  }
  // LMCache writes the fields in this order: match them as raw bytes one after the other.
  // Returns how many matched; the rest (another order, spelling or width) is for any_field.
  uint32_t in_lmcache_order(uint32_t n) {
    if (n < 1 || !p.try_literal("\xaa"
                                "chunk_hash")) {
      return 0;
    }
    chunk_hash();
    if (n < 2 || !p.try_literal("\xaamodel_name")) return 1;
    model_name();
    if (n < 3 || !p.try_literal("\xa7kv_rank")) return 2;
    kv_rank();
    if (n < 4 || !p.try_literal("\xafobject_group_id")) return 3;
    k.object_group_id = p.read_int();
    if (n < 5 || !p.try_literal("\xaa"
                                "cache_salt")) {
      return 4;
    }
    if (!p.try_literal("\xa0") &&  // "" (no salt), as k.cache_salt already is
        !k.cache_salt.try_assign(p.read_str()))
      p.fail("too many distinct cache salts");
    return 5;
  }
  void any_field(std::string_view key) {
    if (key == "chunk_hash") {
      chunk_hash();
    } else if (key == "model_name") {
      model_name();
    } else if (key == "kv_rank") {
      kv_rank();
    } else if (key == "object_group_id") {
      k.object_group_id = p.read_int();
    } else if (key == "cache_salt") {
      if (!k.cache_salt.try_assign(p.read_str())) p.fail("too many distinct cache salts");
    } else {
      p.skip();
    }
  }
};
}  // namespace

void decode_object_key_into(MsgpackReader& r, ObjectKey& k) {
  // Nearly every key of a trace is canonical and names the model this (reused) key holds.
  MsgpackReader::CanonicalKey canonical;
  if (r.try_canonical_key_values(k.model_name, canonical)) {
    k.chunk_hash.assign(canonical.hash);
    k.kv_rank = canonical.kv_rank;
    k.object_group_id = canonical.object_group_id;
    k.cache_salt = Symbol();
    return;
  }
  Wrapped w{{}, r};
  // Keys are most of a trace's bytes: LMCache's canonical wrapper and field names are matched
  // as raw bytes, anything else takes the general path.
  MsgpackReader& p = r.try_literal("\x82\xa5__t__\xa9ObjectKey\xa1v")
                         ? r
                         : *payload_of(r, w, "ObjectKey", "expected an ObjectKey");
  uint32_t n = p.read_map_header();
  k.object_group_id = 0;
  k.cache_salt = Symbol();
  KeyFields fields{p, k};
  for (uint32_t i = fields.in_lmcache_order(n); i < n; ++i) fields.any_field(p.read_str());
  if (!fields.hash || !fields.model || !fields.rank) {
    p.fail("ObjectKey lacks chunk_hash, model_name or kv_rank");
  }
}

namespace {

// The model name last decoded on this thread. Keys own no heap memory: a key vector's capacity
// is all that is reused, and a key the vector did not hold yet starts with this model, which it
// most likely shares: the canonical path (try_canonical_key_values) then takes it too.
Symbol& last_model() {
  thread_local Symbol model;
  return model;
}

// `out` holds `n` keys, those it did not hold before starting with the last model.
void size_keys(std::vector<ObjectKey>& out, size_t n) {
  const size_t held = out.size();
  out.resize(n);
  for (size_t i = held; i < n; ++i) out[i].model_name = last_model();
}

bool keeps(const KeyMask& mask, uint32_t i) {
  return (static_cast<uint8_t>(mask.bits[i / 8]) >> (i % 8)) & 1u;
}

// How many keys `mask` keeps of the record's `n`; MalformedRecord when it was made for another.
uint32_t kept_by(const KeyMask& mask, uint32_t n) {
  if (mask.keys != n || mask.bits.size() != (n + 7) / 8ull) {
    throw MalformedRecord(0, "its key mask covers " + std::to_string(mask.keys) +
                                 " keys, the record has " + std::to_string(n));
  }
  uint32_t kept = 0;
  for (uint32_t i = 0; i < n; ++i) kept += keeps(mask, i);
  if (kept == 0) throw MalformedRecord(0, "its key mask keeps no key");
  return kept;
}

// Walks past a key the mask drops: a canonical key of `scratch`'s model without a copy,
// anything else decoded into `scratch`.
void skip_object_key(MsgpackReader& r, ObjectKey& scratch) {
  MsgpackReader::CanonicalKey canonical;
  if (!r.try_canonical_key_values(scratch.model_name, canonical))
    decode_object_key_into(r, scratch);
}

// An encoded ObjectKey takes at least 35 bytes (a map of chunk_hash, model_name and kv_rank with
// their names); a decoded one ~72. A count beyond what the bytes left can hold is refused before
// its keys are allocated, so a frame cannot make the decoder allocate more than ~2x its size. A
// small count is left to its keys' own errors (an unknown codec tag says more).
constexpr size_t kMinEncodedKeyBytes = 32;
constexpr uint32_t kKeysAlwaysAllocated = 1024;

uint32_t read_key_count(MsgpackReader& r) {
  const uint32_t n = read_sequence(r);
  if (n > kKeysAlwaysAllocated && n > r.remaining() / kMinEncodedKeyBytes) {
    r.fail(("keys: " + std::to_string(n) + " keys cannot fit in the " +
            std::to_string(r.remaining()) + " bytes left")
               .c_str());
  }
  return n;
}

}  // namespace

void decode_object_keys(MsgpackReader& r, std::vector<ObjectKey>& out) {
  const uint32_t n = read_key_count(r);
  size_keys(out, n);
  for (uint32_t i = 0; i < n; ++i) decode_object_key_into(r, out[i]);
  if (n > 0) last_model() = out[n - 1].model_name;
}

void decode_object_keys(MsgpackReader& r, std::vector<ObjectKey>& out, const KeyMask& mask) {
  if (mask.empty()) return decode_object_keys(r, out);
  const uint32_t n = read_key_count(r);
  size_keys(out, kept_by(mask, n));
  thread_local ObjectKey scratch;
  scratch.model_name = last_model();
  size_t k = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (!keeps(mask, i)) {
      skip_object_key(r, scratch);
      continue;
    }
    decode_object_key_into(r, out[k]);
    scratch.model_name = out[k++].model_name;
  }
  last_model() = scratch.model_name;
}

MemoryLayout decode_layout(MsgpackReader& r) {
  MemoryLayout l;
  decode_layout_into(r, l);
  return l;
}

namespace {

// The last value one decode site read, kept with its bytes. LMCache writes the same layout and
// attention descriptor record after record, and a msgpack value is self-delimiting: bytes that
// repeat a whole earlier encoding are that same value, so they need no second parse. A memo
// filled while strings were not being checked serves only readers that do not check either.
template <class T>
struct ValueMemo {
  static constexpr size_t kMaxBytes = 1024;
  std::string bytes;
  T value{};
  bool utf8_checked = false;

  bool replay(MsgpackReader& r, T& out) const {
    if (bytes.empty() || (r.checks_all_strings() && !utf8_checked) || !r.try_bytes(bytes))
      return false;
    out = value;
    return true;
  }
  void remember(const MsgpackReader& r, size_t start, const T& v) {
    const size_t n = r.offset() - start;
    if (n == 0 || n > kMaxBytes) return;
    bytes.assign(reinterpret_cast<const char*>(r.data() + start), n);
    value = v;
    utf8_checked = r.checks_all_strings();
  }
};

// decode(r, out) through the memo of its call site.
template <class T, class Decode>
void decode_memoized(ValueMemo<T>& memo, MsgpackReader& r, T& out, Decode decode) {
  if (memo.replay(r, out)) return;
  const size_t start = r.offset();
  decode(r, out);
  memo.remember(r, start, out);
}

void decode_layout_fields(MsgpackReader& r, MemoryLayout& l);
void decode_attn_fields(MsgpackReader& r, AttnWindowDesc& a);

}  // namespace

void decode_layout_into(MsgpackReader& r, MemoryLayout& l) {
  thread_local ValueMemo<MemoryLayout> memo;
  decode_memoized(memo, r, l, decode_layout_fields);
}

void decode_attn_into(MsgpackReader& r, AttnWindowDesc& a) {
  thread_local ValueMemo<AttnWindowDesc> memo;
  decode_memoized(memo, r, a, decode_attn_fields);
}

namespace {

// LMCache's layouts have a tensor or two per object: a bound keeps a frame of empty shapes
// (1 byte each, 24 decoded) from allocating 24x its size.
constexpr uint32_t kMaxLayoutGroups = 65536;

// The object size the layout describes must be a size: no negative dimension, and a product
// that fits (it was silently 0 or wrapped before, and an L2 replay seeded objects of that size).
void check_layout_size(MsgpackReader& p, const MemoryLayout& l) {
  uint64_t total = 0;
  for (size_t g = 0; g < l.shapes.size(); ++g) {
    uint64_t n = dtype_itemsize(l.dtypes[g]);
    for (int64_t d : l.shapes[g]) {
      if (d < 0) p.fail("MemoryLayoutDesc has a negative dimension");
      if (__builtin_mul_overflow(n, static_cast<uint64_t>(d), &n))
        p.fail("MemoryLayoutDesc describes more than 2^64 bytes");
    }
    if (__builtin_add_overflow(total, n, &total) || total > uint64_t{INT64_MAX})
      p.fail("MemoryLayoutDesc describes more than 2^63 bytes");
  }
}

void decode_layout_fields(MsgpackReader& r, MemoryLayout& l) {
  Wrapped w{{}, r};
  MsgpackReader& p = *payload_of(r, w, "MemoryLayoutDesc", "expected a MemoryLayoutDesc");
  uint32_t n = p.read_map_header();
  l.dtypes.clear();
  bool shapes = false, dtypes = false;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view key = p.read_str();
    if (key == "shapes") {
      uint32_t groups = read_sequence(p);
      if (groups > kMaxLayoutGroups) p.fail("MemoryLayoutDesc has more than 65536 shapes");
      l.shapes.resize(groups);
      for (uint32_t g = 0; g < groups; ++g) {
        uint32_t dims = read_sequence(p);
        l.shapes[g].clear();
        l.shapes[g].reserve(dims);
        for (uint32_t d = 0; d < dims; ++d) l.shapes[g].push_back(p.read_int());
      }
      shapes = true;
    } else if (key == "dtypes") {
      l.dtypes.clear();
      uint32_t groups = read_sequence(p);
      for (uint32_t g = 0; g < groups; ++g) {
        auto dt = parse_dtype(read_str_or_wrapped(p, "torch.dtype"));
        if (!dt) p.fail("unknown torch dtype");
        l.dtypes.push_back(*dt);
      }
      dtypes = true;
    } else {
      p.skip();
    }
  }
  if (!shapes || !dtypes) p.fail("MemoryLayoutDesc lacks shapes or dtypes");
  if (l.shapes.size() != l.dtypes.size()) p.fail("MemoryLayoutDesc shapes/dtypes lengths differ");
  check_layout_size(p, l);
}

}  // namespace

TrimPolicy decode_trim_policy(MsgpackReader& r) {
  auto p = parse_trim_policy(read_str_or_wrapped(r, "TrimPolicy"));
  if (!p) r.fail("unknown TrimPolicy member");
  return *p;
}

PrefetchMode decode_prefetch_mode(MsgpackReader& r) {
  auto m = parse_prefetch_mode(read_str_or_wrapped(r, "PrefetchMode"));
  if (!m) r.fail("unknown PrefetchMode member");
  return *m;
}

AttnWindowDesc decode_attn(MsgpackReader& r) {
  AttnWindowDesc a;
  decode_attn_into(r, a);
  return a;
}

namespace {
void decode_attn_fields(MsgpackReader& r, AttnWindowDesc& a) {
  Wrapped w{{}, r};
  MsgpackReader* p = &r;
  std::string_view tag;
  if (enter_wrapper_in_place(r, tag)) {
    if (tag != "AttnWindowDesc") r.fail("expected an AttnWindowDesc");
  } else if (read_wrapper(r, w)) {
    if (w.tag != "AttnWindowDesc") r.fail("expected an AttnWindowDesc");
    p = &w.payload;
  }
  a.num_chunks_in_sw.assign(1, -1);
  a.world_size = 1;
  auto read_windows = [&](MsgpackReader& q) {
    uint32_t n = read_sequence(q);
    a.num_chunks_in_sw.clear();
    for (uint32_t i = 0; i < n; ++i) a.num_chunks_in_sw.push_back(q.read_int());
  };
  if (p->peek() == MsgType::Map) {
    uint32_t n = p->read_map_header();
    for (uint32_t i = 0; i < n; ++i) {
      std::string_view key = p->read_str();
      if (key == "num_chunks_in_sw")
        read_windows(*p);
      else if (key == "world_size")
        a.world_size = p->read_int();
      else
        p->skip();
    }
  } else {
    read_windows(*p);  // older encoders wrote the bare array (world_size 1)
  }
}
}  // namespace

PrefetchSpec decode_prefetch_spec(MsgpackReader& r) {
  PrefetchSpec s;
  decode_prefetch_spec_into(r, s);
  return s;
}

void reset_prefetch_spec_defaults(PrefetchSpec& s) {
  s.num_kv_readers = 1;
  s.policy = TrimPolicy::Prefix;
  s.attn.num_chunks_in_sw.assign(1, -1);
  s.attn.world_size = 1;
  s.mode = PrefetchMode::Lookup;
  s.generation = 0;
}

void decode_prefetch_spec_into(MsgpackReader& r, PrefetchSpec& s, const KeyMask& mask) {
  Wrapped w{{}, r};
  MsgpackReader& p = *payload_of(r, w, "PrefetchRequestSpec", "expected a PrefetchRequestSpec");
  uint32_t n = p.read_map_header();
  reset_prefetch_spec_defaults(s);
  int64_t seen_groups[64];
  size_t n_seen = 0;
  bool keys = false, readers = false, layouts_many = false;
  int64_t extra_count = 0;
  MemoryLayout legacy_layout;
  bool has_legacy_layout = false;
  for (uint32_t i = 0; i < n; ++i) {
    std::string_view key = p.read_str();
    if (key == "keys") {
      decode_object_keys(p, s.keys, mask);
      keys = true;
    } else if (key == "num_kv_readers") {
      s.num_kv_readers = p.read_int();
      readers = true;
    } else if (key == "extra_count") {
      extra_count = p.read_int();
    } else if (key == "policy") {
      s.policy = decode_trim_policy(p);
    } else if (key == "attn_desc") {
      decode_attn_into(p, s.attn);
    } else if (key == "group_layout_descs") {
      if (p.try_nil()) continue;
      uint32_t groups = p.read_map_header();
      if (groups > std::size(seen_groups)) {
        s.group_layouts.clear();  // too many to track which are stale: start afresh
        layouts_many = true;
      }
      for (uint32_t g = 0; g < groups; ++g) {
        int64_t gid = 0;
        if (p.peek() == MsgType::Str) {
          std::string_view gs = p.read_str();
          auto res = std::from_chars(gs.data(), gs.data() + gs.size(), gid);
          if (res.ec != std::errc() || res.ptr != gs.data() + gs.size()) {
            p.fail("group_layout_descs key is not an integer");
          }
        } else {
          gid = p.read_int();
        }
        decode_layout_into(p, s.group_layouts[gid]);
        if (!layouts_many && n_seen < std::size(seen_groups)) seen_groups[n_seen++] = gid;
      }
    } else if (key == "layout_desc") {
      if (p.try_nil()) continue;
      decode_layout_into(p, legacy_layout);
      has_legacy_layout = true;
    } else if (key == "mode") {
      s.mode = decode_prefetch_mode(p);
    } else if (key == "generation") {
      s.generation = p.read_int();
    } else {
      validate_value(p);
    }
  }
  if (!keys) p.fail("PrefetchRequestSpec lacks keys");
  if (!layouts_many) {  // drop groups left over from the previous record
    for (auto it = s.group_layouts.begin(); it != s.group_layouts.end();) {
      bool seen = std::find(seen_groups, seen_groups + n_seen, it->first) != seen_groups + n_seen;
      it = seen ? std::next(it) : s.group_layouts.erase(it);
    }
  }
  if (!readers) s.num_kv_readers = extra_count + 1;
  if (s.group_layouts.empty() && has_legacy_layout) s.group_layouts[0] = legacy_layout;
}

void validate_value(MsgpackReader& r, uint32_t depth) {
  if (depth > 64) r.fail("msgpack nesting exceeds the depth limit");
  switch (r.peek()) {
    case MsgType::Array: {
      uint32_t n = r.read_array_header();
      for (uint32_t i = 0; i < n; ++i) validate_value(r, depth + 1);
      return;
    }
    case MsgType::Map: {
      Wrapped w{{}, r};
      if (read_wrapper(r, w)) {
        validate_value(w.payload, depth + 1);
        return;
      }
      uint32_t n = r.read_map_header();
      for (uint32_t i = 0; i < n; ++i) {
        r.skip();
        validate_value(r, depth + 1);
      }
      return;
    }
    default:
      r.skip();
  }
}

void encode_object_key(const ObjectKey& k, MsgpackWriter& w, int64_t schema) {
  w.wrapper("ObjectKey");
  w.map(schema >= 2 ? 5 : 4);
  w.str("chunk_hash");
  w.bin(k.chunk_hash);
  w.str("model_name");
  w.str(k.model_name);
  w.str("kv_rank");
  w.integer(k.kv_rank);
  w.str("object_group_id");
  w.integer(k.object_group_id);
  if (schema >= 2) {
    w.str("cache_salt");
    w.str(k.cache_salt);
  }
}

void encode_object_keys(const std::vector<ObjectKey>& keys, MsgpackWriter& w, int64_t schema) {
  w.array(static_cast<uint32_t>(keys.size()));
  for (const auto& k : keys) encode_object_key(k, w, schema);
}

void encode_layout(const MemoryLayout& l, MsgpackWriter& w) {
  w.wrapper("MemoryLayoutDesc");
  w.map(2);
  w.str("shapes");
  w.array(static_cast<uint32_t>(l.shapes.size()));
  for (const auto& s : l.shapes) {
    w.array(static_cast<uint32_t>(s.size()));
    for (int64_t d : s) w.integer(d);
  }
  w.str("dtypes");
  w.array(static_cast<uint32_t>(l.dtypes.size()));
  for (DType d : l.dtypes) w.str(dtype_name(d));
}

void encode_trim_policy(TrimPolicy p, MsgpackWriter& w) {
  w.wrapper("TrimPolicy");
  w.str(trim_policy_name(p));
}

void encode_prefetch_mode(PrefetchMode m, MsgpackWriter& w) {
  w.wrapper("PrefetchMode");
  w.str(prefetch_mode_name(m));
}

void encode_attn(const AttnWindowDesc& a, MsgpackWriter& w) {
  w.wrapper("AttnWindowDesc");
  w.map(2);
  w.str("num_chunks_in_sw");
  w.array(static_cast<uint32_t>(a.num_chunks_in_sw.size()));
  for (int64_t x : a.num_chunks_in_sw) w.integer(x);
  w.str("world_size");
  w.integer(a.world_size);
}

void encode_prefetch_spec(const PrefetchSpec& s, MsgpackWriter& w, int64_t schema) {
  w.wrapper("PrefetchRequestSpec");
  w.map(7);
  w.str("keys");
  encode_object_keys(s.keys, w, schema);
  w.str("num_kv_readers");
  w.integer(s.num_kv_readers);
  w.str("policy");
  encode_trim_policy(s.policy, w);
  w.str("attn_desc");
  encode_attn(s.attn, w);
  w.str("group_layout_descs");
  w.map(static_cast<uint32_t>(s.group_layouts.size()));
  for (const auto& [gid, layout] : s.group_layouts) {
    w.str(std::to_string(gid));
    encode_layout(layout, w);
  }
  w.str("mode");
  encode_prefetch_mode(s.mode, w);
  w.str("generation");
  w.integer(s.generation);
}

}  // namespace fleet::trace
