#include "fleet/insight/html/model_fields.h"

#include <cmath>

namespace fleet::report::html {

const Json* at(const Json& j, Path path) {
  const Json* node = &j;
  for (std::string_view key : path) {
    if (!node->is_object()) return nullptr;
    auto it = node->find(std::string(key));
    if (it == node->end()) return nullptr;
    node = &*it;
  }
  return node;
}

std::optional<double> num(const Json& j, Path path) {
  const Json* v = at(j, path);
  if (!v || !v->is_number()) return std::nullopt;
  double d = v->get<double>();
  if (!std::isfinite(d)) return std::nullopt;
  return d;
}

std::string str(const Json& j, Path path) {
  const Json* v = at(j, path);
  if (!v) return "";
  if (v->is_string()) return v->get<std::string>();
  if (v->is_number()) return v->dump();
  return "";
}

bool flag(const Json& j, Path path) {
  const Json* v = at(j, path);
  return v && v->is_boolean() && v->get<bool>();
}

const Json& arr(const Json& j, Path path) {
  static const Json kEmpty = Json::array();
  const Json* v = at(j, path);
  return v && v->is_array() ? *v : kEmpty;
}

const Json& obj(const Json& j, Path path) {
  static const Json kEmpty = Json::object();
  const Json* v = at(j, path);
  return v && v->is_object() ? *v : kEmpty;
}

}  // namespace fleet::report::html
