// A zero-copy msgpack cursor with hard limits. It reads one value at a time from a buffer,
// accepts every valid width (float32, str16, map32, signed ints for positives, ...), and never
// allocates: strings and bins are views into the buffer. Used by the trace decoder and the
// planner's fast scan; any malformed or over-limit input throws DecodeError with the offset.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/util/fixed_bytes.h"

namespace fleet::trace {

enum class MsgType : uint8_t { Nil, Bool, UInt, Int, Float, Str, Bin, Array, Map, Ext };

const char* to_string(MsgType t);

struct MsgpackLimits {
  uint32_t max_depth = 64;            // nesting of arrays/maps
  uint32_t max_container = 1u << 24;  // elements in one array or map
};

class MsgpackReader {
 public:
  MsgpackReader(const uint8_t* data, size_t size, MsgpackLimits limits = {})
      : begin_(data), p_(data), end_(data + size), limits_(limits) {}

  size_t offset() const { return static_cast<size_t>(p_ - begin_); }
  // A cursor over the same buffer positioned at `offset` (e.g. a codec payload seen earlier).
  MsgpackReader at(size_t offset) const {
    MsgpackReader r(*this);
    r.p_ = begin_ + offset;
    return r;
  }
  const uint8_t* data() const { return begin_; }
  bool at_end() const { return p_ == end_; }
  size_t remaining() const { return static_cast<size_t>(end_ - p_); }

  MsgType peek() const;
  // The next byte as it is (a type byte, for a caller matching known encodings); not at_end().
  uint8_t peek_byte() const { return *p_; }

  void read_nil();
  bool read_bool();
  // Any integer that fits int64 (positive uint64 above INT64_MAX is an error).
  int64_t read_int();
  // An array of integers into `out` (resized to its length), each as read_int reads it: the
  // encodings L2 traces fill their size and index arrays with (positive fixint, uint16,
  // uint32) in a tight loop, every other one through read_int.
  void read_int_array(std::vector<int64_t>& out);
  uint64_t read_uint();
  // float32, float64 or any integer, as msgspec accepts for `float` fields.
  double read_double();
  std::string_view read_str();
  // read_str without the check_all_strings check: the caller checks (or knows) the bytes.
  std::string_view read_str_unchecked();
  std::string_view read_bin();
  uint32_t read_array_header();
  uint32_t read_map_header();
  // Skips one complete value of any type, enforcing the depth limit. With check_utf8, every
  // str inside must be valid UTF-8 (msgspec decodes them as Python str and rejects the frame).
  void skip(bool check_utf8 = false);
  // From now on every str read or skipped must be valid UTF-8 (msgspec's rule for a Record),
  // for callers that validate while they decode instead of in a separate pass.
  void check_all_strings(bool on) { check_utf8_ = on; }
  bool checks_all_strings() const { return check_utf8_; }
  // True and consumed if the next bytes are exactly `encoded` (a pre-encoded msgpack value such
  // as a field name): the canonical encodings LMCache writes skip the generic read and check.
  template <size_t N>
  bool try_literal(const char (&encoded)[N]) {
    constexpr size_t n = N - 1;
    if (static_cast<size_t>(end_ - p_) < n || !util::fixed_bytes_equal<n>(p_, encoded))
      return false;
    p_ += n;
    return true;
  }
  // try_literal for bytes known only at run time (e.g. a value seen earlier in the buffer).
  bool try_bytes(std::string_view encoded) {
    const size_t n = encoded.size();
    if (n == 0 || static_cast<size_t>(end_ - p_) < n || std::memcmp(p_, encoded.data(), n) != 0)
      return false;
    p_ += n;
    return true;
  }
  // LMCache's canonical ObjectKey, {"__t__": "ObjectKey", "v": {"chunk_hash": bin8,
  // "model_name": str, "kv_rank": fixint, "object_group_id": fixint, "cache_salt": str}}: true
  // and consumed when the next value is exactly that (its strings valid UTF-8 while every
  // string is checked), with `hash` the chunk hash's bytes and `model_str` the model name's
  // whole msgpack str (header included). False, nothing consumed, for anything else.
  bool try_canonical_object_key(std::string_view& hash, std::string_view& model_str) {
    return canonical_object_key(check_utf8_, hash, model_str);
  }
  // The same canonical ObjectKey with its values, for the decoder: true and consumed only when
  // the chunk hash is a bin8, the model name's bytes equal `model` (a name the caller already
  // holds, so already checked), kv_rank and object_group_id are positive fixints and the cache
  // salt is empty. False, nothing consumed, for anything else (the general path decides).
  struct CanonicalKey {
    std::string_view hash;
    int64_t kv_rank = 0;
    int64_t object_group_id = 0;
  };
  bool try_canonical_key_values(std::string_view model, CanonicalKey& out);
  // True and consumed if the next value is nil.
  bool try_nil();

  [[noreturn]] void fail(const char* what) const;

 private:
  uint8_t byte();
  uint64_t be(int n);
  const uint8_t* take(size_t n);
  uint32_t checked_count(uint64_t n, size_t min_bytes_each);
  void skip_depth(uint32_t depth, bool check_utf8);
  void take_str(size_t n, bool check_utf8);
  bool canonical_object_key(bool check_utf8, std::string_view& hash, std::string_view& model_str);
  bool skip_short_str(bool check_utf8);
  bool skip_fixint();

  const uint8_t* begin_;
  const uint8_t* p_;
  const uint8_t* end_;
  MsgpackLimits limits_;
  bool check_utf8_ = false;
};

}  // namespace fleet::trace

#include "fleet/trace/msgpack_reader_inl.h"  // IWYU pragma: export
