// Reading a JSON file someone else wrote (a run directory handed to `coordinator report`,
// `compare` or a sweep): bounded in size and nesting, so a hostile or damaged file is a clear
// error naming it, never a stack overflow or an unbounded allocation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

namespace fleet::util {

inline constexpr size_t kMaxJsonFileBytes = 1ull << 30;  // a 64-node summary is a few MB
inline constexpr int kMaxJsonDepth = 64;                 // ours nest fewer than 10 levels

// Throws std::runtime_error "PATH: ..." when the file cannot be read, is too large, is not
// JSON, or nests deeper than kMaxJsonDepth.
nlohmann::json read_json_file(const std::string& path);
// The same for text already read.
nlohmann::json parse_json_bounded(const std::string& text, const std::string& what);

}  // namespace fleet::util
