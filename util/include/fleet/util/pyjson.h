// JSON text exactly as CPython's json module writes it, so digests and LMCache-compatible
// output files are byte-identical: float repr (shortest round-trip, `1e-05`, `20.0`),
// ensure_ascii escapes, `", "`/`": "` separators, optional indent and sorted keys.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace fleet::util {

// Python repr() of a float: `0.8`, `20.0`, `1e-05`, `1.2345678901234567e+19`, `NaN`.
std::string py_float_repr(double v);
void append_py_float_repr(std::string& out, double v);  // the same, appended
// The same written into `out` (needs kPyReprMax bytes), without allocating; returns its length.
inline constexpr std::size_t kPyReprMax = 32;
std::size_t py_float_repr_to(char* out, double v);

// json.dumps(obj, sort_keys=True). nlohmann::json keeps keys sorted by code point already.
std::string py_json_dumps(const nlohmann::json& obj);
// json.dumps(obj) keeping insertion order.
std::string py_json_dumps(const nlohmann::ordered_json& obj);
// json.dumps(obj, indent=N[, sort_keys]) — separators "," + newline and ": ".
std::string py_json_dumps_indent(const nlohmann::json& obj, int indent);
std::string py_json_dumps_indent(const nlohmann::ordered_json& obj, int indent);

// A JSON string literal with Python's ensure_ascii escaping.
std::string py_json_string(const std::string& utf8);
void append_py_json_string(std::string& out, std::string_view utf8);  // the same, appended

}  // namespace fleet::util
