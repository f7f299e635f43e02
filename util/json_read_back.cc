#include "fleet/util/json_read_back.h"

#include <cmath>
#include <string>

#include "fleet/util/json_file.h"
#include "fleet/util/utf8.h"

namespace fleet::util {

namespace {

using ordered = nlohmann::ordered_json;
using json = nlohmann::json;

bool convert(const ordered& in, json& out, int depth) {
  // The reader refuses depth > kMaxJsonDepth; one level short of it is left to the reader too.
  if (depth >= kMaxJsonDepth) return false;
  switch (in.type()) {
    case ordered::value_t::null:
      out = nullptr;
      return true;
    case ordered::value_t::boolean:
      out = in.get<bool>();
      return true;
    case ordered::value_t::number_integer: {
      const auto v = in.get<int64_t>();
      if (v >= 0) {
        out = static_cast<uint64_t>(v);
      } else {
        out = v;
      }
      return true;
    }
    case ordered::value_t::number_unsigned:
      out = in.get<uint64_t>();
      return true;
    case ordered::value_t::number_float: {
      const auto v = in.get<double>();
      if (!std::isfinite(v)) return false;
      out = v;
      return true;
    }
    case ordered::value_t::string: {
      const auto& s = in.get_ref<const std::string&>();
      if (!is_valid_utf8(s)) return false;
      out = s;
      return true;
    }
    case ordered::value_t::array: {
      out = json::array();
      auto& items = out.get_ref<json::array_t&>();
      items.reserve(in.size());
      for (const auto& v : in) {
        if (!convert(v, items.emplace_back(), depth + 1)) return false;
      }
      return true;
    }
    case ordered::value_t::object: {
      out = json::object();
      auto& members = out.get_ref<json::object_t&>();
      for (auto it = in.begin(); it != in.end(); ++it) {
        if (!is_valid_utf8(it.key())) return false;
        if (!convert(it.value(), members[it.key()], depth + 1)) return false;
      }
      return true;
    }
    default:  // binary or discarded: never written by py_json
      return false;
  }
}

}  // namespace

std::optional<json> json_as_read_back(const ordered& written, std::size_t text_bytes) {
  if (text_bytes > kMaxJsonFileBytes) return std::nullopt;
  json out;
  if (!convert(written, out, 0)) return std::nullopt;
  return out;
}

}  // namespace fleet::util
