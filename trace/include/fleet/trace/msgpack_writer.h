// msgpack encoding exactly as msgspec writes it (docs/trace-format.md §1.2): smallest forms,
// unsigned formats for non-negative ints, float64 always, str8 used, bin for bytes. The trace
// writer and `lct gen` use it so our files are byte-compatible with LMCache's recorder.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fleet::trace {

class MsgpackWriter {
 public:
  explicit MsgpackWriter(std::string& out) : out_(out) {}

  void nil() { out_.push_back(static_cast<char>(0xc0)); }
  void boolean(bool v) { out_.push_back(static_cast<char>(v ? 0xc3 : 0xc2)); }
  void integer(int64_t v);
  void uinteger(uint64_t v);
  void float64(double v);
  void str(std::string_view s);
  void bin(std::string_view b);
  void array(uint32_t n);
  void map(uint32_t n);
  // A codec wrapper {"__t__": tag, "v": <payload follows>}.
  void wrapper(std::string_view tag) {
    map(2);
    str("__t__");
    str(tag);
    str("v");
  }

 private:
  void marker_be(uint8_t marker, uint64_t v, int bytes);
  std::string& out_;
};

}  // namespace fleet::trace
