#include "fleet/trace/msgpack_writer.h"

#include <cstring>

namespace fleet::trace {

// A marker byte and its big-endian argument in one append: the byte-by-byte push_back this
// replaced was a fifth of the coordinator's key routing, which re-encodes every sub-call.
void MsgpackWriter::marker_be(uint8_t marker, uint64_t v, int bytes) {
  char buf[9];
  buf[0] = static_cast<char>(marker);
  for (int i = 0; i < bytes; ++i) {
    buf[1 + i] = static_cast<char>((v >> (8 * (bytes - 1 - i))) & 0xff);
  }
  out_.append(buf, static_cast<size_t>(bytes) + 1);
}

void MsgpackWriter::uinteger(uint64_t v) {
  if (v <= 0x7f) {
    out_.push_back(static_cast<char>(v));
  } else if (v <= 0xff) {
    marker_be(0xcc, v, 1);
  } else if (v <= 0xffff) {
    marker_be(0xcd, v, 2);
  } else if (v <= 0xffffffffull) {
    marker_be(0xce, v, 4);
  } else {
    marker_be(0xcf, v, 8);
  }
}

void MsgpackWriter::integer(int64_t v) {
  if (v >= 0) return uinteger(static_cast<uint64_t>(v));
  if (v >= -32) {
    out_.push_back(static_cast<char>(static_cast<int8_t>(v)));
  } else if (v >= INT8_MIN) {
    marker_be(0xd0, static_cast<uint8_t>(v), 1);
  } else if (v >= INT16_MIN) {
    marker_be(0xd1, static_cast<uint16_t>(v), 2);
  } else if (v >= INT32_MIN) {
    marker_be(0xd2, static_cast<uint32_t>(v), 4);
  } else {
    marker_be(0xd3, static_cast<uint64_t>(v), 8);
  }
}

void MsgpackWriter::float64(double v) {
  uint64_t bits;
  std::memcpy(&bits, &v, 8);
  marker_be(0xcb, bits, 8);
}

void MsgpackWriter::str(std::string_view s) {
  size_t n = s.size();
  if (n < 32) {
    out_.push_back(static_cast<char>(0xa0 | n));
  } else if (n < 256) {
    marker_be(0xd9, n, 1);
  } else if (n < 65536) {
    marker_be(0xda, n, 2);
  } else {
    marker_be(0xdb, n, 4);
  }
  out_.append(s);
}

void MsgpackWriter::bin(std::string_view b) {
  size_t n = b.size();
  if (n < 256) {
    marker_be(0xc4, n, 1);
  } else if (n < 65536) {
    marker_be(0xc5, n, 2);
  } else {
    marker_be(0xc6, n, 4);
  }
  out_.append(b);
}

void MsgpackWriter::array(uint32_t n) {
  if (n < 16) {
    out_.push_back(static_cast<char>(0x90 | n));
  } else if (n < 65536) {
    marker_be(0xdc, n, 2);
  } else {
    marker_be(0xdd, n, 4);
  }
}

void MsgpackWriter::map(uint32_t n) {
  if (n < 16) {
    out_.push_back(static_cast<char>(0x80 | n));
  } else if (n < 65536) {
    marker_be(0xde, n, 2);
  } else {
    marker_be(0xdf, n, 4);
  }
}

}  // namespace fleet::trace
