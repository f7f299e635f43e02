// Typed reads of one L2 adapter's JSON options, each failing with std::invalid_argument that
// names the adapter and the field ("fs adapter: 'use_odirect' must be a boolean"), so every
// adapter reports bad options the same way. A missing or null optional field leaves `out` as is.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

namespace fleet::storage {

class JsonOptions {
 public:
  JsonOptions(const nlohmann::json& j, std::string who) : j_(j), who_(std::move(who)) {}

  std::string required_string(const char* field, bool non_empty = false) const;
  int64_t required_int(const char* field) const;
  void optional_string(const char* field, std::string& out) const;
  void optional_string(const char* field, std::optional<std::string>& out) const;
  void optional_bool(const char* field, bool& out) const;
  // Integers and numbers with an inclusive lower bound (and an upper bound for numbers).
  void optional_int(const char* field, int64_t& out, int64_t min) const;
  void optional_int(const char* field, int& out, int min) const;
  void optional_number(const char* field, double& out, double min, double max = 1e300) const;
  [[noreturn]] void fail(const char* field, const std::string& what) const;

 private:
  const nlohmann::json* get(const char* field) const;  // null when absent or JSON null
  const nlohmann::json& j_;
  std::string who_;
};

}  // namespace fleet::storage
