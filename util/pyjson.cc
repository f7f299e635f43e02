#include "fleet/util/pyjson.h"

#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace fleet::util {

std::size_t py_float_repr_to(char* out, double v) {
  auto put = [&](const char* s) {
    std::size_t n = std::strlen(s);
    std::memcpy(out, s, n);
    return n;
  };
  if (std::isnan(v)) return put("NaN");
  if (std::isinf(v)) return put(v > 0 ? "Infinity" : "-Infinity");
  // Shortest round-trip digits, then Python's layout: fixed when -4 <= exp < 16.
  char sci[32];
  auto res = std::to_chars(sci, sci + sizeof sci, v, std::chars_format::scientific);
  const char* p = sci;
  char* o = out;
  if (*p == '-') *o++ = *p++;
  char digits[24];
  std::size_t nd = 0;
  while (*p != 'e') {
    if (*p != '.') digits[nd++] = *p;
    ++p;
  }
  int exp10 = 0;
  std::from_chars(p + 1 + (p[1] == '+' ? 1 : 0), res.ptr, exp10);
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      *o++ = '0';
      *o++ = '.';
      for (int k = 0; k < -exp10 - 1; ++k) *o++ = '0';
      std::memcpy(o, digits, nd);
      o += nd;
    } else {
      const std::size_t int_digits = static_cast<std::size_t>(exp10) + 1;
      if (int_digits >= nd) {
        std::memcpy(o, digits, nd);
        o += nd;
        for (std::size_t k = nd; k < int_digits; ++k) *o++ = '0';
        *o++ = '.';
        *o++ = '0';
      } else {
        std::memcpy(o, digits, int_digits);
        o += int_digits;
        *o++ = '.';
        std::memcpy(o, digits + int_digits, nd - int_digits);
        o += nd - int_digits;
      }
    }
  } else {
    *o++ = digits[0];
    if (nd > 1) {
      *o++ = '.';
      std::memcpy(o, digits + 1, nd - 1);
      o += nd - 1;
    }
    *o++ = 'e';
    *o++ = exp10 < 0 ? '-' : '+';
    const int a = std::abs(exp10);
    if (a >= 100) *o++ = static_cast<char>('0' + a / 100);
    *o++ = static_cast<char>('0' + (a / 10) % 10);
    *o++ = static_cast<char>('0' + a % 10);
  }
  return static_cast<std::size_t>(o - out);
}

void append_py_float_repr(std::string& out, double v) {
  char b[kPyReprMax];
  out.append(b, py_float_repr_to(b, v));
}

std::string py_float_repr(double v) {
  std::string out;
  append_py_float_repr(out, v);
  return out;
}

void append_py_json_string(std::string& out, std::string_view s) {
  out += '"';
  size_t i = 0;
  auto put_u = [&](unsigned cp) {
    static constexpr char kHex[] = "0123456789abcdef";
    const char b[6] = {
        '\\',         'u', kHex[(cp >> 12) & 15], kHex[(cp >> 8) & 15], kHex[(cp >> 4) & 15],
        kHex[cp & 15]};
    out.append(b, sizeof b);
  };
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '"':
          out += "\\\"";
          break;
        case '\\':
          out += "\\\\";
          break;
        case '\n':
          out += "\\n";
          break;
        case '\r':
          out += "\\r";
          break;
        case '\t':
          out += "\\t";
          break;
        case '\b':
          out += "\\b";
          break;
        case '\f':
          out += "\\f";
          break;
        default:
          if (c < 0x20 || c == 0x7f) {  // Python escapes everything outside ' '..'~'
            put_u(c);
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Decode one UTF-8 sequence; invalid bytes become U+FFFD as Python's surrogateescape
    // cannot occur in a str that came from valid JSON input.
    unsigned cp = 0xfffd;
    size_t len = 1;
    if ((c & 0xe0) == 0xc0 && i + 1 < s.size()) {
      cp = ((c & 0x1f) << 6) | (s[i + 1] & 0x3f);
      len = 2;
    } else if ((c & 0xf0) == 0xe0 && i + 2 < s.size()) {
      cp = ((c & 0x0f) << 12) | ((s[i + 1] & 0x3f) << 6) | (s[i + 2] & 0x3f);
      len = 3;
    } else if ((c & 0xf8) == 0xf0 && i + 3 < s.size()) {
      cp = ((c & 0x07) << 18) | ((s[i + 1] & 0x3f) << 12) | ((s[i + 2] & 0x3f) << 6) |
           (s[i + 3] & 0x3f);
      len = 4;
    }
    i += len;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      put_u(0xd800 + (cp >> 10));
      put_u(0xdc00 + (cp & 0x3ff));
    } else {
      put_u(cp);
    }
  }
  out += '"';
}

std::string py_json_string(const std::string& s) {
  std::string out;
  out.reserve(s.size() + 2);
  append_py_json_string(out, s);
  return out;
}

namespace {

template <class Int>
void append_integer(std::string& out, Int v) {
  char b[24];
  out.append(b, std::to_chars(b, b + sizeof b, v).ptr);
}

// Summaries repeat their floats (a CDF's levels are the same for every op, a small op's
// quantiles repeat): 1,406 floats, 305 distinct, in a 369-record run's summary. Each repr is
// ~850 instructions; a direct-mapped table of the last ones costs ~20.
class ReprCache {
 public:
  void append(std::string& out, double v) {
    const uint64_t bits = std::bit_cast<uint64_t>(v);
    Entry& e = entries_[(bits * 0x9e3779b97f4a7c15ULL) >> (64 - kBits)];
    if (e.len == 0 || e.bits != bits) {
      e.bits = bits;
      e.len = static_cast<uint8_t>(py_float_repr_to(e.text, v));
    }
    out.append(e.text, e.len);
  }

 private:
  static constexpr int kBits = 8;
  struct Entry {
    uint64_t bits = 0;
    uint8_t len = 0;  // 0: empty (a repr is never empty)
    char text[kPyReprMax];
  };
  Entry entries_[1 << kBits];
};

struct Writer {
  std::string& out;
  int indent;  // < 0: one line
  ReprCache floats;
};

template <class Json>
void dump(const Json& j, Writer& w, int level) {
  std::string& out = w.out;
  const int indent = w.indent;
  auto newline = [&](int lvl) {
    out += '\n';
    out.append(static_cast<size_t>(indent * lvl), ' ');
  };
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      out += "null";
      break;
    case nlohmann::json::value_t::boolean:
      out += j.template get<bool>() ? "true" : "false";
      break;
    case nlohmann::json::value_t::number_integer:
      append_integer(out, j.template get<int64_t>());
      break;
    case nlohmann::json::value_t::number_unsigned:
      append_integer(out, j.template get<uint64_t>());
      break;
    case nlohmann::json::value_t::number_float:
      w.floats.append(out, j.template get<double>());
      break;
    case nlohmann::json::value_t::string:
      append_py_json_string(out, j.template get_ref<const std::string&>());
      break;
    case nlohmann::json::value_t::array: {
      if (j.empty()) {
        out += "[]";
        break;
      }
      out += '[';
      bool first = true;
      for (const auto& v : j) {
        if (!first) out += indent >= 0 ? "," : ", ";
        first = false;
        if (indent >= 0) newline(level + 1);
        dump(v, w, level + 1);
      }
      if (indent >= 0) newline(level);
      out += ']';
      break;
    }
    case nlohmann::json::value_t::object: {
      if (j.empty()) {
        out += "{}";
        break;
      }
      out += '{';
      bool first = true;
      for (auto it = j.begin(); it != j.end(); ++it) {
        if (!first) out += indent >= 0 ? "," : ", ";
        first = false;
        if (indent >= 0) newline(level + 1);
        append_py_json_string(out, it.key());
        out += ": ";
        dump(it.value(), w, level + 1);
      }
      if (indent >= 0) newline(level);
      out += '}';
      break;
    }
    default:
      out += "null";
      break;  // binary / discarded never occur in our documents
  }
}

template <class Json>
std::string dumps(const Json& obj, int indent) {
  std::string out;
  auto w = std::make_unique<Writer>(Writer{out, indent, {}});  // the table is 12 KiB
  dump(obj, *w, 0);
  return out;
}

}  // namespace

std::string py_json_dumps(const nlohmann::json& obj) { return dumps(obj, -1); }
std::string py_json_dumps(const nlohmann::ordered_json& obj) { return dumps(obj, -1); }
std::string py_json_dumps_indent(const nlohmann::json& obj, int indent) {
  return dumps(obj, indent);
}
std::string py_json_dumps_indent(const nlohmann::ordered_json& obj, int indent) {
  return dumps(obj, indent);
}

}  // namespace fleet::util
