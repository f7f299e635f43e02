// Typed reads of one L2 adapter's JSON options. A failure names the adapter and the field
// ("fs adapter: 'use_odirect' must be a boolean"), so every adapter reports bad options the same
// way. The first failure is kept and every read after it is skipped (a required read then gives
// the type's empty value), so a reader states its fields one per line and asks status() once:
// the same first failure a throw per field would have reported, as a value.
// A missing or null optional field leaves `out` as is.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "fleet/util/status.h"

namespace fleet::storage {

class JsonOptions {
 public:
  JsonOptions(const nlohmann::json& j, std::string who) : j_(j), who_(std::move(who)) {}

  std::string required_string(const char* field, bool non_empty = false);
  int64_t required_int(const char* field);
  void optional_string(const char* field, std::string& out);
  void optional_string(const char* field, std::optional<std::string>& out);
  void optional_bool(const char* field, bool& out);
  // Integers and numbers with an inclusive lower bound (and an upper bound for numbers).
  void optional_int(const char* field, int64_t& out, int64_t min);
  void optional_int(const char* field, int& out, int min);
  void optional_number(const char* field, double& out, double min, double max = 1e300);
  // Records "<who>: '<field>' <what>" unless a failure is recorded already.
  void fail(const char* field, const std::string& what);

  bool ok() const { return status_.ok(); }
  const Status& status() const { return status_; }

 private:
  const nlohmann::json* get(const char* field) const;  // null when absent, JSON null, or failed
  const nlohmann::json& j_;
  std::string who_;
  Status status_;
};

}  // namespace fleet::storage
