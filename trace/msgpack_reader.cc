#include "fleet/trace/msgpack_reader.h"

#include <cstring>
#include <string>

namespace fleet::trace {

const char* to_string(MsgType t) {
  switch (t) {
    case MsgType::Nil:
      return "nil";
    case MsgType::Bool:
      return "bool";
    case MsgType::UInt:
      return "uint";
    case MsgType::Int:
      return "int";
    case MsgType::Float:
      return "float";
    case MsgType::Str:
      return "str";
    case MsgType::Bin:
      return "bin";
    case MsgType::Array:
      return "array";
    case MsgType::Map:
      return "map";
    case MsgType::Ext:
      return "ext";
  }
  return "?";
}

void MsgpackReader::fail(const char* what) const { throw DecodeError(offset(), what); }

void MsgpackReader::skip(bool check_utf8) { skip_depth(0, check_utf8 || check_utf8_); }

// Iterative (an explicit stack of values still to skip per nesting level): this is the hottest
// loop of the reader, and a hostile nesting depth can never reach the C++ stack.
void MsgpackReader::skip_depth(uint32_t depth, bool check_utf8) {
  constexpr uint32_t kCap = 256;
  const uint32_t max_depth = limits_.max_depth < kCap - 1 ? limits_.max_depth : kCap - 1;
  if (depth > max_depth) fail("msgpack nesting exceeds the depth limit");
  uint64_t pending[kCap];
  uint32_t d = 0;
  pending[0] = 1;
  for (;;) {
    while (pending[d] == 0) {
      if (d == 0) return;
      --d;
    }
    --pending[d];
    uint8_t b = byte();
    if (b <= 0x7f || b >= 0xe0) continue;
    if ((b & 0xe0) == 0xa0) {
      take_str(b & 0x1f, check_utf8);
      continue;
    }
    uint64_t count;
    if (b == 0x82 && depth + d + 2 <= max_depth) {
      --p_;
      std::string_view hash, model_str;
      if (canonical_object_key(check_utf8, hash, model_str)) continue;
      ++p_;
    }
    if ((b & 0xf0) == 0x80) {
      count = uint64_t{b & 0x0fu} * 2;
    } else if ((b & 0xf0) == 0x90) {
      count = b & 0x0f;
    } else {
      switch (b) {
        case 0xc0:
        case 0xc2:
        case 0xc3:
          continue;
        case 0xc4:
          take(be(1));
          continue;
        case 0xc5:
          take(be(2));
          continue;
        case 0xc6:
          take(be(4));
          continue;
        case 0xd9:
          take_str(be(1), check_utf8);
          continue;
        case 0xda:
          take_str(be(2), check_utf8);
          continue;
        case 0xdb:
          take_str(be(4), check_utf8);
          continue;
        case 0xc7: {
          uint64_t n = be(1);
          take(n + 1);
          continue;
        }
        case 0xc8: {
          uint64_t n = be(2);
          take(n + 1);
          continue;
        }
        case 0xc9: {
          uint64_t n = be(4);
          take(n + 1);
          continue;
        }
        case 0xca:
          take(4);
          continue;
        case 0xcb:
          take(8);
          continue;
        case 0xcc:
        case 0xd0:
          take(1);
          continue;
        case 0xcd:
        case 0xd1:
          take(2);
          continue;
        case 0xce:
        case 0xd2:
          take(4);
          continue;
        case 0xcf:
        case 0xd3:
          take(8);
          continue;
        case 0xd4:
          take(2);
          continue;
        case 0xd5:
          take(3);
          continue;
        case 0xd6:
          take(5);
          continue;
        case 0xd7:
          take(9);
          continue;
        case 0xd8:
          take(17);
          continue;
        case 0xdc:
          count = checked_count(be(2), 1);
          break;
        case 0xdd:
          count = checked_count(be(4), 1);
          break;
        case 0xde:
          count = uint64_t{checked_count(be(2), 2)} * 2;
          break;
        case 0xdf:
          count = uint64_t{checked_count(be(4), 2)} * 2;
          break;
        default:
          --p_;
          fail("invalid msgpack type byte 0xc1");
      }
    }
    if (count == 0) continue;
    if (depth + d + 1 > max_depth) fail("msgpack nesting exceeds the depth limit");
    pending[++d] = count;
  }
}

// LMCache's canonical ObjectKey is most of a trace's bytes and 15 values each: matched by its
// constant bytes, with its values checked exactly as the general loop checks them. Any other
// shape or width (and any value the general loop would refuse, so that it reports it) returns
// false, p_ unchanged.
bool MsgpackReader::canonical_object_key(bool check_utf8, std::string_view& hash,
                                         std::string_view& model_str) {
  const uint8_t* const start = p_;
  if (try_literal("\x82\xa5__t__\xa9ObjectKey\xa1v\x85\xaa"
                  "chunk_hash") &&
      remaining() >= 2 && p_[0] == 0xc4 && remaining() - 2 >= p_[1]) {
    hash = {reinterpret_cast<const char*>(p_ + 2), p_[1]};
    p_ += 2 + p_[1];
    const uint8_t* const model = p_ + 11;  // past "\xaamodel_name"
    if (try_literal("\xaamodel_name") && skip_short_str(check_utf8)) {
      model_str = {reinterpret_cast<const char*>(model), static_cast<size_t>(p_ - model)};
      if (try_literal("\xa7kv_rank") && skip_fixint() && try_literal("\xafobject_group_id") &&
          skip_fixint() &&
          try_literal("\xaa"
                      "cache_salt") &&
          skip_short_str(check_utf8)) {
        return true;
      }
    }
  }
  p_ = start;
  return false;
}

// A fixstr or str8 that is whole (and valid UTF-8 when checked); p_ is only moved past it.
bool MsgpackReader::skip_short_str(bool check_utf8) {
  if (p_ == end_) return false;
  size_t header = 1, n;
  if ((*p_ & 0xe0) == 0xa0) {
    n = *p_ & 0x1f;
  } else if (*p_ == 0xd9 && remaining() >= 2) {
    header = 2;
    n = p_[1];
  } else {
    return false;
  }
  if (remaining() - header < n) return false;
  const char* s = reinterpret_cast<const char*>(p_ + header);
  if (check_utf8 && !util::is_valid_utf8({s, n})) return false;
  p_ += header + n;
  return true;
}

bool MsgpackReader::skip_fixint() {
  if (p_ == end_ || !(*p_ <= 0x7f || *p_ >= 0xe0)) return false;
  ++p_;
  return true;
}

}  // namespace fleet::trace
