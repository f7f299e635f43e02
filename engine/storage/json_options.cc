#include "fleet/engine/json_options.h"

namespace fleet::storage {

void JsonOptions::fail(const char* field, const std::string& what) {
  if (ok()) status_ = Status::error(who_ + ": '" + field + "' " + what);
}

const nlohmann::json* JsonOptions::get(const char* field) const {
  if (!ok() || !j_.is_object() || !j_.contains(field) || j_[field].is_null()) return nullptr;
  return &j_[field];
}

std::string JsonOptions::required_string(const char* field, bool non_empty) {
  if (!ok()) return "";
  const nlohmann::json* v = get(field);
  if (!v || !v->is_string() || (non_empty && v->get<std::string>().empty())) {
    fail(field, non_empty ? "(non-empty string) is required" : "(string) is required");
    return "";
  }
  return v->get<std::string>();
}

int64_t JsonOptions::required_int(const char* field) {
  if (!ok()) return 0;
  const nlohmann::json* v = get(field);
  if (!v || !v->is_number_integer()) {
    fail(field, "(integer) is required");
    return 0;
  }
  return v->get<int64_t>();
}

void JsonOptions::optional_string(const char* field, std::string& out) {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_string()) return fail(field, "must be a string");
    out = v->get<std::string>();
  }
}

void JsonOptions::optional_string(const char* field, std::optional<std::string>& out) {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_string()) return fail(field, "must be a string");
    out = v->get<std::string>();
  }
}

void JsonOptions::optional_bool(const char* field, bool& out) {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_boolean()) return fail(field, "must be a boolean");
    out = v->get<bool>();
  }
}

void JsonOptions::optional_int(const char* field, int64_t& out, int64_t min) {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_number_integer() || v->get<int64_t>() < min)
      return fail(field, "must be an integer >= " + std::to_string(min));
    out = v->get<int64_t>();
  }
}

void JsonOptions::optional_int(const char* field, int& out, int min) {
  int64_t wide = out;
  optional_int(field, wide, min);
  if (!ok()) return;
  if (wide > INT32_MAX) return fail(field, "is too large");
  out = static_cast<int>(wide);
}

void JsonOptions::optional_number(const char* field, double& out, double min, double max) {
  if (const nlohmann::json* v = get(field)) {
    if (!v->is_number() || v->get<double>() < min || v->get<double>() > max)
      return fail(field, max < 1e300 ? "must be a number in [" + nlohmann::json(min).dump() + ", " +
                                           nlohmann::json(max).dump() + "]"
                                     : "must be a number >= " + nlohmann::json(min).dump());
    out = v->get<double>();
  }
}

}  // namespace fleet::storage
