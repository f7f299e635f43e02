#include "fleet/util/pyjson.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace fleet::util {

std::string py_float_repr(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "Infinity" : "-Infinity";
  // Shortest round-trip digits in scientific form, then laid out as Python's repr does:
  // fixed notation when -4 <= exponent < 16, else d.ddde[+-]XX with at least two digits.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string s(buf, res.ptr);
  bool neg = s[0] == '-';
  if (neg) s.erase(0, 1);
  size_t e = s.find('e');
  int exp10 = std::atoi(s.c_str() + e + 1);
  std::string digits;
  for (size_t i = 0; i < e; ++i)
    if (s[i] != '.') digits += s[i];
  // Built by appending to one string: `"literal" + std::string&&` inserts at the front of the
  // temporary, which GCC 12 at -O3 flags as an overlapping memcpy (-Wrestrict; a false positive,
  // GCC bug 105329).
  std::string out;
  out.reserve(digits.size() + 24);
  if (neg) out += '-';
  if (exp10 >= -4 && exp10 < 16) {
    if (exp10 < 0) {
      out += "0.";
      out.append(static_cast<size_t>(-exp10 - 1), '0');
      out += digits;
    } else if (static_cast<size_t>(exp10) + 1 >= digits.size()) {
      out += digits;
      out.append(static_cast<size_t>(exp10) + 1 - digits.size(), '0');
      out += ".0";
    } else {
      out.append(digits, 0, static_cast<size_t>(exp10) + 1);
      out += '.';
      out.append(digits, static_cast<size_t>(exp10) + 1);
    }
  } else {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp10 < 0 ? '-' : '+', std::abs(exp10));
    out += eb;
  }
  return out;
}

std::string py_json_string(const std::string& s) {
  std::string out = "\"";
  out.reserve(s.size() + 2);
  size_t i = 0;
  auto put_u = [&](unsigned cp) {
    char b[8];
    std::snprintf(b, sizeof b, "\\u%04x", cp);
    out += b;
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
  return out;
}

namespace {

template <class Json>
void dump(const Json& j, std::string& out, int indent, int level) {
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
      out += std::to_string(j.template get<int64_t>());
      break;
    case nlohmann::json::value_t::number_unsigned:
      out += std::to_string(j.template get<uint64_t>());
      break;
    case nlohmann::json::value_t::number_float:
      out += py_float_repr(j.template get<double>());
      break;
    case nlohmann::json::value_t::string:
      out += py_json_string(j.template get_ref<const std::string&>());
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
        dump(v, out, indent, level + 1);
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
        out += py_json_string(it.key());
        out += ": ";
        dump(it.value(), out, indent, level + 1);
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

}  // namespace

std::string py_json_dumps(const nlohmann::json& obj) {
  std::string out;
  dump(obj, out, -1, 0);
  return out;
}
std::string py_json_dumps(const nlohmann::ordered_json& obj) {
  std::string out;
  dump(obj, out, -1, 0);
  return out;
}
std::string py_json_dumps_indent(const nlohmann::json& obj, int indent) {
  std::string out;
  dump(obj, out, indent, 0);
  return out;
}
std::string py_json_dumps_indent(const nlohmann::ordered_json& obj, int indent) {
  std::string out;
  dump(obj, out, indent, 0);
  return out;
}

}  // namespace fleet::util
