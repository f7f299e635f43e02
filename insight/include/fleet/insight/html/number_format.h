// Human-readable numbers for the page's tables: three significant digits and a unit (1.23 M,
// 4.5 µs, 12.3 %, 1.5 MiB), "—" when the value is missing. report.js has the same rules for
// its axes and tooltips (its `fmt` object), so a chart and its table read alike.
#pragma once

#include <optional>
#include <string>

namespace fleet::report::html {

using Number = std::optional<double>;

inline constexpr const char* kMissing = "—";

std::string fmt_count(Number v);       // 987, 12.3 k, 1.23 M, 4.56 G
std::string fmt_exact(Number v);       // 1,234,567 (integers) or 6 significant digits
std::string fmt_percent(Number frac);  // 0.123 -> 12.3 %
std::string fmt_us(Number us);         // 850 ns, 4.5 µs, 1.23 ms, 2.5 s
std::string fmt_ms(Number ms);         // as fmt_us, from milliseconds
std::string fmt_seconds(Number s);     // 12.3 s, 2 min 05 s, 1 h 02 min
std::string fmt_bytes(Number bytes);   // 512 B, 1.5 KiB, 3.25 GiB
std::string fmt_rate(Number per_s);    // fmt_count + "/s"
std::string fmt_ratio(Number v);       // 0.983 (fairness, speed)

}  // namespace fleet::report::html
