#include "fleet/trace/msgpack_value.h"

#include <string>

namespace fleet::trace {

std::string to_hex(std::string_view bytes) {
  static const char* kHex = "0123456789abcdef";
  std::string out(bytes.size() * 2, '0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    auto c = static_cast<unsigned char>(bytes[i]);
    out[2 * i] = kHex[c >> 4];
    out[2 * i + 1] = kHex[c & 15];
  }
  return out;
}

namespace {

nlohmann::ordered_json convert(MsgpackReader& r, BinAs bin_as, uint32_t depth) {
  if (depth > 64) r.fail("msgpack nesting exceeds the depth limit");
  switch (r.peek()) {
    case MsgType::Nil:
      r.read_nil();
      return nullptr;
    case MsgType::Bool:
      return r.read_bool();
    case MsgType::UInt:
      return r.read_uint();
    case MsgType::Int:
      return r.read_int();
    case MsgType::Float:
      return r.read_double();
    case MsgType::Str:
      return std::string(r.read_str());
    case MsgType::Bin: {
      std::string hex = to_hex(r.read_bin());
      if (bin_as == BinAs::Hex) return hex;
      return nlohmann::ordered_json{{"__bin__", hex}};
    }
    case MsgType::Array: {
      uint32_t n = r.read_array_header();
      auto a = nlohmann::ordered_json::array();
      for (uint32_t i = 0; i < n; ++i) a.push_back(convert(r, bin_as, depth + 1));
      return a;
    }
    case MsgType::Map: {
      uint32_t n = r.read_map_header();
      auto m = nlohmann::ordered_json::object();
      for (uint32_t i = 0; i < n; ++i) {
        std::string key;
        if (r.peek() == MsgType::Str) {
          key = std::string(r.read_str());
        } else {
          key = convert(r, BinAs::Hex, depth + 1).dump();
        }
        m[key] = convert(r, bin_as, depth + 1);
      }
      return m;
    }
    case MsgType::Ext:
      r.fail("msgpack ext types are not used by .lct files");
  }
  r.fail("unreachable");
}

}  // namespace

nlohmann::ordered_json msgpack_to_json(MsgpackReader& r, BinAs bin_as) {
  return convert(r, bin_as, 0);
}

void json_to_msgpack(const nlohmann::ordered_json& j, MsgpackWriter& w) {
  switch (j.type()) {
    case nlohmann::json::value_t::null:
      w.nil();
      break;
    case nlohmann::json::value_t::boolean:
      w.boolean(j.get<bool>());
      break;
    case nlohmann::json::value_t::number_integer:
      w.integer(j.get<int64_t>());
      break;
    case nlohmann::json::value_t::number_unsigned:
      w.uinteger(j.get<uint64_t>());
      break;
    case nlohmann::json::value_t::number_float:
      w.float64(j.get<double>());
      break;
    case nlohmann::json::value_t::string:
      w.str(j.get_ref<const std::string&>());
      break;
    case nlohmann::json::value_t::array:
      w.array(static_cast<uint32_t>(j.size()));
      for (const auto& v : j) json_to_msgpack(v, w);
      break;
    case nlohmann::json::value_t::object:
      w.map(static_cast<uint32_t>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        w.str(it.key());
        json_to_msgpack(it.value(), w);
      }
      break;
    default:
      w.nil();
      break;
  }
}

}  // namespace fleet::trace
