#include "fleet/trace/msgpack_writer.h"

#include <cstring>

namespace fleet::trace {

void MsgpackWriter::put_be(uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

void MsgpackWriter::uinteger(uint64_t v) {
  if (v <= 0x7f) {
    out_.push_back(static_cast<char>(v));
  } else if (v <= 0xff) {
    out_.push_back(static_cast<char>(0xcc));
    put_be(v, 1);
  } else if (v <= 0xffff) {
    out_.push_back(static_cast<char>(0xcd));
    put_be(v, 2);
  } else if (v <= 0xffffffffull) {
    out_.push_back(static_cast<char>(0xce));
    put_be(v, 4);
  } else {
    out_.push_back(static_cast<char>(0xcf));
    put_be(v, 8);
  }
}

void MsgpackWriter::integer(int64_t v) {
  if (v >= 0) return uinteger(static_cast<uint64_t>(v));
  if (v >= -32) {
    out_.push_back(static_cast<char>(static_cast<int8_t>(v)));
  } else if (v >= INT8_MIN) {
    out_.push_back(static_cast<char>(0xd0));
    put_be(static_cast<uint8_t>(v), 1);
  } else if (v >= INT16_MIN) {
    out_.push_back(static_cast<char>(0xd1));
    put_be(static_cast<uint16_t>(v), 2);
  } else if (v >= INT32_MIN) {
    out_.push_back(static_cast<char>(0xd2));
    put_be(static_cast<uint32_t>(v), 4);
  } else {
    out_.push_back(static_cast<char>(0xd3));
    put_be(static_cast<uint64_t>(v), 8);
  }
}

void MsgpackWriter::float64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  out_.push_back(static_cast<char>(0xcb));
  put_be(bits, 8);
}

void MsgpackWriter::str(std::string_view s) {
  size_t n = s.size();
  if (n < 32) {
    out_.push_back(static_cast<char>(0xa0 | n));
  } else if (n < 256) {
    out_.push_back(static_cast<char>(0xd9));
    put_be(n, 1);
  } else if (n < 65536) {
    out_.push_back(static_cast<char>(0xda));
    put_be(n, 2);
  } else {
    out_.push_back(static_cast<char>(0xdb));
    put_be(n, 4);
  }
  out_.append(s);
}

void MsgpackWriter::bin(std::string_view b) {
  size_t n = b.size();
  if (n < 256) {
    out_.push_back(static_cast<char>(0xc4));
    put_be(n, 1);
  } else if (n < 65536) {
    out_.push_back(static_cast<char>(0xc5));
    put_be(n, 2);
  } else {
    out_.push_back(static_cast<char>(0xc6));
    put_be(n, 4);
  }
  out_.append(b);
}

void MsgpackWriter::array(uint32_t n) {
  if (n < 16) {
    out_.push_back(static_cast<char>(0x90 | n));
  } else if (n < 65536) {
    out_.push_back(static_cast<char>(0xdc));
    put_be(n, 2);
  } else {
    out_.push_back(static_cast<char>(0xdd));
    put_be(n, 4);
  }
}

void MsgpackWriter::map(uint32_t n) {
  if (n < 16) {
    out_.push_back(static_cast<char>(0x80 | n));
  } else if (n < 65536) {
    out_.push_back(static_cast<char>(0xde));
    put_be(n, 2);
  } else {
    out_.push_back(static_cast<char>(0xdf));
    put_be(n, 4);
  }
}

}  // namespace fleet::trace
