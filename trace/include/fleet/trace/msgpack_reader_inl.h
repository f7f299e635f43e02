// Inline definitions of MsgpackReader's per-value reads: they run for every msgpack token of
// every record, so they must inline into the codec and scan loops of other translation units.
// Included only by msgpack_reader.h.
#pragma once

#include <cstring>

#include "fleet/util/utf8.h"

namespace fleet::trace {

inline uint8_t MsgpackReader::byte() {
  if (p_ >= end_) fail("unexpected end of msgpack data");
  return *p_++;
}

inline const uint8_t* MsgpackReader::take(size_t n) {
  if (n > remaining()) fail("msgpack length runs past the end of the frame");
  const uint8_t* start = p_;
  p_ += n;
  return start;
}

inline uint64_t MsgpackReader::be(int n) {
  const uint8_t* b = take(static_cast<size_t>(n));
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = (v << 8) | b[i];
  return v;
}

// Each element takes at least one byte, so a count larger than what is left is corrupt; this
// bounds every allocation a caller might size from the count.
inline uint32_t MsgpackReader::checked_count(uint64_t n, size_t min_bytes_each) {
  if (n > limits_.max_container) fail("msgpack container exceeds the element limit");
  if (n * min_bytes_each > remaining()) fail("msgpack container count exceeds the frame size");
  return static_cast<uint32_t>(n);
}

inline MsgType MsgpackReader::peek() const {
  if (p_ >= end_) fail("unexpected end of msgpack data");
  uint8_t b = *p_;
  if (b <= 0x7f) return MsgType::UInt;
  if (b <= 0x8f) return MsgType::Map;
  if (b <= 0x9f) return MsgType::Array;
  if (b <= 0xbf) return MsgType::Str;
  if (b >= 0xe0) return MsgType::Int;
  switch (b) {
    case 0xc0:
      return MsgType::Nil;
    case 0xc2:
    case 0xc3:
      return MsgType::Bool;
    case 0xc4:
    case 0xc5:
    case 0xc6:
      return MsgType::Bin;
    case 0xc7:
    case 0xc8:
    case 0xc9:
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8:
      return MsgType::Ext;
    case 0xca:
    case 0xcb:
      return MsgType::Float;
    case 0xcc:
    case 0xcd:
    case 0xce:
    case 0xcf:
      return MsgType::UInt;
    case 0xd0:
    case 0xd1:
    case 0xd2:
    case 0xd3:
      return MsgType::Int;
    case 0xd9:
    case 0xda:
    case 0xdb:
      return MsgType::Str;
    case 0xdc:
    case 0xdd:
      return MsgType::Array;
    case 0xde:
    case 0xdf:
      return MsgType::Map;
    default:
      fail("invalid msgpack type byte 0xc1");
  }
}

inline void MsgpackReader::read_nil() {
  if (byte() != 0xc0) {
    --p_;
    fail("expected nil");
  }
}

inline bool MsgpackReader::try_nil() {
  if (p_ < end_ && *p_ == 0xc0) {
    ++p_;
    return true;
  }
  return false;
}

inline bool MsgpackReader::read_bool() {
  uint8_t b = byte();
  if (b == 0xc2) return false;
  if (b == 0xc3) return true;
  --p_;
  fail("expected bool");
}

inline int64_t MsgpackReader::read_int() {
  if (p_ < end_ && *p_ <= 0x7f) return *p_++;  // positive fixint: ranks, group ids, counts
  uint8_t b = byte();
  if (b <= 0x7f) return b;
  if (b >= 0xe0) return static_cast<int8_t>(b);
  switch (b) {
    case 0xcc:
      return static_cast<int64_t>(be(1));
    case 0xcd:
      return static_cast<int64_t>(be(2));
    case 0xce:
      return static_cast<int64_t>(be(4));
    case 0xcf: {
      uint64_t v = be(8);
      if (v > static_cast<uint64_t>(INT64_MAX)) fail("integer does not fit int64");
      return static_cast<int64_t>(v);
    }
    case 0xd0:
      return static_cast<int8_t>(be(1));
    case 0xd1:
      return static_cast<int16_t>(be(2));
    case 0xd2:
      return static_cast<int32_t>(be(4));
    case 0xd3:
      return static_cast<int64_t>(be(8));
    default:
      --p_;
      fail("expected integer");
  }
}

inline void MsgpackReader::read_int_array(std::vector<int64_t>& out) {
  const uint32_t n = read_array_header();
  out.resize(n);
  int64_t* o = out.data();
  for (uint32_t i = 0; i < n; ++i) {
    if (end_ - p_ >= 5) {  // room for the widest fast case: no bounds check per byte
      const uint8_t b = *p_;
      if (b <= 0x7f) {
        o[i] = b;
        p_ += 1;
        continue;
      }
      if (b == 0xce) {
        uint32_t v;
        std::memcpy(&v, p_ + 1, 4);
        o[i] = static_cast<int64_t>(__builtin_bswap32(v));
        p_ += 5;
        continue;
      }
      if (b == 0xcd) {
        uint16_t v;
        std::memcpy(&v, p_ + 1, 2);
        o[i] = static_cast<int64_t>(__builtin_bswap16(v));
        p_ += 3;
        continue;
      }
    }
    o[i] = read_int();
  }
}

inline uint64_t MsgpackReader::read_uint() {
  if (p_ < end_ && *p_ == 0xcf) {
    ++p_;
    return be(8);
  }
  int64_t v = read_int();
  if (v < 0) fail("expected non-negative integer");
  return static_cast<uint64_t>(v);
}

inline double MsgpackReader::read_double() {
  if (p_ >= end_) fail("unexpected end of msgpack data");
  uint8_t b = *p_;
  if (b == 0xcb) {
    ++p_;
    uint64_t bits = be(8);
    double d;
    std::memcpy(&d, &bits, 8);
    return d;
  }
  if (b == 0xca) {
    ++p_;
    uint32_t bits = static_cast<uint32_t>(be(4));
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
  }
  if (b == 0xcf) {
    ++p_;
    return static_cast<double>(be(8));
  }
  return static_cast<double>(read_int());
}

inline bool MsgpackReader::try_canonical_key_values(std::string_view model, CanonicalKey& out) {
  // {"__t__": "ObjectKey", "v": {"chunk_hash": bin8, "model_name": str, "kv_rank": fixint,
  //  "object_group_id": fixint, "cache_salt": ""}}, as LMCache writes every key.
  static constexpr char kHead[] =
      "\x82\xa5__t__\xa9ObjectKey\xa1v\x85\xaa"
      "chunk_hash";
  static constexpr char kModel[] = "\xaamodel_name";
  static constexpr char kRank[] = "\xa7kv_rank";
  static constexpr char kGroup[] = "\xafobject_group_id";
  static constexpr char kSalt[] =
      "\xaa"
      "cache_salt\xa0";
  constexpr size_t kHeadLen = sizeof kHead - 1, kModelLen = sizeof kModel - 1;
  constexpr size_t kTailLen = (sizeof kRank - 1) + 1 + (sizeof kGroup - 1) + 1 + (sizeof kSalt - 1);
  const uint8_t* p = p_;
  if (static_cast<size_t>(end_ - p) < kHeadLen + 2 ||
      !util::fixed_bytes_equal<kHeadLen>(p, kHead) || p[kHeadLen] != 0xc4)
    return false;
  const size_t hash_len = p[kHeadLen + 1];
  p += kHeadLen + 2;
  const size_t model_header = model.size() < 32 ? 1 : 2;
  if (model.size() > 0xff ||
      static_cast<size_t>(end_ - p) < hash_len + kModelLen + model_header + model.size() + kTailLen)
    return false;
  const uint8_t* hash = p;
  p += hash_len;
  if (!util::fixed_bytes_equal<kModelLen>(p, kModel)) return false;
  p += kModelLen;
  if (model_header == 1 ? p[0] != (0xa0 | model.size()) : (p[0] != 0xd9 || p[1] != model.size()))
    return false;
  p += model_header;
  if (!util::same_bytes(reinterpret_cast<const char*>(p), model.data(), model.size())) return false;
  p += model.size();
  if (!util::fixed_bytes_equal<sizeof kRank - 1>(p, kRank) || p[sizeof kRank - 1] > 0x7f)
    return false;
  const uint8_t rank = p[sizeof kRank - 1];
  p += sizeof kRank;
  if (!util::fixed_bytes_equal<sizeof kGroup - 1>(p, kGroup) || p[sizeof kGroup - 1] > 0x7f)
    return false;
  const uint8_t group = p[sizeof kGroup - 1];
  p += sizeof kGroup;
  if (!util::fixed_bytes_equal<sizeof kSalt - 1>(p, kSalt)) return false;
  p += sizeof kSalt - 1;
  out.hash = {reinterpret_cast<const char*>(hash), hash_len};
  out.kv_rank = rank;
  out.object_group_id = group;
  p_ = p;
  return true;
}

inline std::string_view MsgpackReader::read_str_unchecked() {
  uint8_t b = byte();
  uint64_t n;
  if ((b & 0xe0) == 0xa0)
    n = b & 0x1f;
  else if (b == 0xd9)
    n = be(1);
  else if (b == 0xda)
    n = be(2);
  else if (b == 0xdb)
    n = be(4);
  else {
    --p_;
    fail("expected str");
  }
  const uint8_t* s = take(n);
  return {reinterpret_cast<const char*>(s), static_cast<size_t>(n)};
}

inline std::string_view MsgpackReader::read_str() {
  std::string_view s = read_str_unchecked();
  if (check_utf8_ && !util::is_valid_utf8(s)) {
    p_ = reinterpret_cast<const uint8_t*>(s.data());
    fail("str is not valid UTF-8");
  }
  return s;
}

inline std::string_view MsgpackReader::read_bin() {
  uint8_t b = byte();
  uint64_t n;
  if (b == 0xc4)
    n = be(1);
  else if (b == 0xc5)
    n = be(2);
  else if (b == 0xc6)
    n = be(4);
  else {
    --p_;
    fail("expected bin");
  }
  const uint8_t* s = take(n);
  return {reinterpret_cast<const char*>(s), static_cast<size_t>(n)};
}

inline uint32_t MsgpackReader::read_array_header() {
  uint8_t b = byte();
  if ((b & 0xf0) == 0x90) return b & 0x0f;
  if (b == 0xdc) return checked_count(be(2), 1);
  if (b == 0xdd) return checked_count(be(4), 1);
  --p_;
  fail("expected array");
}

inline uint32_t MsgpackReader::read_map_header() {
  uint8_t b = byte();
  if ((b & 0xf0) == 0x80) return b & 0x0f;
  if (b == 0xde) return checked_count(be(2), 2);
  if (b == 0xdf) return checked_count(be(4), 2);
  --p_;
  fail("expected map");
}

inline void MsgpackReader::take_str(size_t n, bool check_utf8) {
  const uint8_t* s = take(n);
  if (check_utf8 && !util::is_valid_utf8({reinterpret_cast<const char*>(s), n})) {
    p_ = s;
    fail("str is not valid UTF-8");
  }
}

}  // namespace fleet::trace
