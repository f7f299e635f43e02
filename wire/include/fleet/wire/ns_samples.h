// A qualname's sorted latency samples as DONE carries them when each is a whole number of
// nanoseconds (docs/protocol.md § 6): the replay measures `(end_ns - start_ns) / 1e6` ms, so a
// sample is k / 1e6 for an integer k, and sorted samples differ by a few ns. LEB128 of the first
// k, then of each difference: ~1-2 bytes a sample instead of 8, which the worker sends, CURVE
// encrypts and the coordinator receives and decrypts (4 MB per worker at 500k calls before).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace fleet::wire {

// The largest k that travels: every integer up to it is exact in a double.
inline constexpr uint64_t kMaxSampleNs = uint64_t{1} << 53;

// nullopt when some sample is not exactly k / 1e6 for an integer 0 <= k <= kMaxSampleNs (a
// negative zero, NaN, a fraction of a ns): those samples travel as raw doubles instead.
// `sorted` must be ascending.
std::optional<std::string> encode_ns_samples(const double* sorted, std::size_t n);

// Exactly `n` samples from exactly `bytes` into `out`, each k / 1e6 as encode_ns_samples read
// it; throws ProtocolError naming `what` when `n` exceeds the byte count (every sample takes a
// byte), the bytes end early or run on, or a k passes kMaxSampleNs.
void decode_ns_samples(std::string_view bytes, double* out, uint64_t n, const std::string& what);

}  // namespace fleet::wire
