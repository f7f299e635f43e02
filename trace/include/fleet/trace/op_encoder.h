// Typed Op -> record args bytes, in the argument order of the chosen LMCache era, exactly as
// LMCache's recorder encodes them. `lct gen` and the tests use it to write traces.
#pragma once

#include <string>

#include "fleet/trace/op.h"

namespace fleet::trace {

enum class Era : int { One = 1, Three = 3, Four = 4 };

// Appends the msgpack `args` map of `op` to `out`. The qualname for the record is
// op.qualname(); era-4 prefetches have no known codec and are not supported (throws).
void encode_op_args(const Op& op, Era era, std::string& out, int64_t schema = 2);

// A complete record frame body (map with type, t_mono, t_wall, qualname, args).
std::string encode_record_body(const Op& op, Era era, int64_t schema = 2);

}  // namespace fleet::trace
