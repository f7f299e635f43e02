// Numbers out of JSON (or msgpack read as JSON) that someone else wrote. nlohmann's get<T>()
// converts with a plain static_cast, so a float where an integer belongs (8.6e98 as a size)
// is undefined behaviour and a negative one wraps. These check type and range first: a value
// that does not fit is std::invalid_argument naming the field, never a silent wrong number.
#pragma once

#include <cmath>
#include <concepts>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <string_view>

namespace fleet::util {

namespace detail {
template <class T>
[[noreturn]] void json_number_error(const nlohmann::json& v, std::string_view what) {
  std::string got = v.dump();
  if (got.size() > 40) got = got.substr(0, 40) + "...";
  throw std::invalid_argument(std::string(what) + ": expected an integer in [" +
                              std::to_string(std::numeric_limits<T>::min()) + ", " +
                              std::to_string(std::numeric_limits<T>::max()) + "], got " + got);
}
}  // namespace detail

// An integer of type T: an integer value in range, or a float that is a whole number in range
// (a hand-written config saying 2.0). Anything else throws.
template <std::integral T>
T json_integer(const nlohmann::json& v, std::string_view what) {
  using L = std::numeric_limits<T>;
  if (v.is_number_unsigned()) {
    const auto u = v.get<uint64_t>();
    if (u > static_cast<uint64_t>(L::max())) detail::json_number_error<T>(v, what);
    return static_cast<T>(u);
  }
  if (v.is_number_integer()) {
    const auto i = v.get<int64_t>();
    if constexpr (std::is_unsigned_v<T>) {
      if (i < 0 || static_cast<uint64_t>(i) > static_cast<uint64_t>(L::max()))
        detail::json_number_error<T>(v, what);
    } else {
      if (i < static_cast<int64_t>(L::min()) || i > static_cast<int64_t>(L::max()))
        detail::json_number_error<T>(v, what);
    }
    return static_cast<T>(i);
  }
  if (v.is_number_float()) {
    const double d = v.get<double>();
    // 2^64 and 2^63 are exact doubles; L::max() + 1.0 rounds to them for the 64-bit types.
    if (!std::isfinite(d) || d != std::trunc(d) || d < static_cast<double>(L::min()) ||
        d >= static_cast<double>(L::max()) + 1.0)
      detail::json_number_error<T>(v, what);
    return static_cast<T>(d);
  }
  detail::json_number_error<T>(v, what);
}

// obj[key] as json_integer when present, else `fallback`.
template <std::integral T>
T json_integer_or(const nlohmann::json& obj, const char* key, T fallback, std::string_view what) {
  const auto it = obj.find(key);
  return it == obj.end() ? fallback : json_integer<T>(*it, what);
}

// A finite number of any JSON number type.
inline double json_real(const nlohmann::json& v, std::string_view what) {
  if (!v.is_number() || !std::isfinite(v.get<double>()))
    throw std::invalid_argument(std::string(what) + ": expected a finite number, got " +
                                v.dump().substr(0, 40));
  return v.get<double>();
}

}  // namespace fleet::util
