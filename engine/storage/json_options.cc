#include "fleet/engine/json_options.h"

#include <stdexcept>

namespace fleet::storage {

void JsonOptions::fail(const char* field, const std::string& what) const {
  throw std::invalid_argument(who_ + ": '" + field + "' " + what);
}

const nlohmann::json* JsonOptions::get(const char* field) const {
  if (!j_.is_object() || !j_.contains(field) || j_[field].is_null()) return nullptr;
  return &j_[field];
}

std::string JsonOptions::required_string(const char* field, bool non_empty) const {
  const nlohmann::json* v = get(field);
  if (!v || !v->is_string() || (non_empty && v->get<std::string>().empty()))
    fail(field, non_empty ? "(non-empty string) is required" : "(string) is required");
  return v->get<std::string>();
}

int64_t JsonOptions::required_int(const char* field) const {
  const nlohmann::json* v = get(field);
  if (!v || !v->is_number_integer()) fail(field, "(integer) is required");
  return v->get<int64_t>();
}

void JsonOptions::optional_string(const char* field, std::string& out) const {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_string()) fail(field, "must be a string");
    out = v->get<std::string>();
  }
}

void JsonOptions::optional_string(const char* field, std::optional<std::string>& out) const {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_string()) fail(field, "must be a string");
    out = v->get<std::string>();
  }
}

void JsonOptions::optional_bool(const char* field, bool& out) const {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_boolean()) fail(field, "must be a boolean");
    out = v->get<bool>();
  }
}

void JsonOptions::optional_int(const char* field, int64_t& out, int64_t min) const {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_number_integer() || v->get<int64_t>() < min)
      fail(field, "must be an integer >= " + std::to_string(min));
    out = v->get<int64_t>();
  }
}

void JsonOptions::optional_int(const char* field, int& out, int min) const {
  int64_t wide = out;
  optional_int(field, wide, min);
  if (wide > INT32_MAX) fail(field, "is too large");
  out = static_cast<int>(wide);
}

void JsonOptions::optional_number(const char* field, double& out, double min, double max) const {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_number() || v->get<double>() < min || v->get<double>() > max)
      fail(field, max < 1e300 ? "must be a number in [" + nlohmann::json(min).dump() + ", " +
                                    nlohmann::json(max).dump() + "]"
                              : "must be a number >= " + nlohmann::json(min).dump());
    out = v->get<double>();
  }
}

}  // namespace fleet::storage
