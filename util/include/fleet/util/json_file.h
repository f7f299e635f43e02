// Reading a JSON file someone else wrote (a run directory handed to `coordinator report`,
// `compare` or a sweep): bounded in size and nesting, so a hostile or damaged file is a clear
// error naming it, never a stack overflow or an unbounded allocation.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "fleet/util/status.h"

namespace fleet::util {

// A 64-node summary is a few MB; parsed, a JSON file takes up to ~40x its size (a 99-MB file of
// empty arrays took 3.8 GB), so the bound is what this machine class can parse.
inline constexpr size_t kMaxJsonFileBytes = 256ull << 20;
inline constexpr int kMaxJsonDepth = 64;  // ours nest fewer than 10 levels

// OK when `path` is a regular file (a symlink to one) of at most `max_bytes`; else "PATH: ..."
// naming what it is. Checked before opening: a FIFO would block the open, /dev/zero never ends.
Status check_regular_file(const std::string& path, uint64_t max_bytes);

// The file's JSON, or an error "PATH: ..." when the file cannot be read, is too large, is not
// JSON, or nests deeper than kMaxJsonDepth.
Result<nlohmann::json> read_json_file(const std::string& path);
// The same for text already read; an error starts with `what`.
Result<nlohmann::json> parse_json_bounded(const std::string& text, const std::string& what);

}  // namespace fleet::util
