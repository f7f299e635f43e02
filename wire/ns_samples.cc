#include "fleet/wire/ns_samples.h"

#include <cmath>

#include "fleet/util/leb128.h"
#include "fleet/wire/protocol.h"

namespace fleet::wire {

namespace {

// The sample's k, when it is exactly k / 1e6 (the replay's own division, so the decoder's
// k / 1e6 gives back the same bits).
std::optional<uint64_t> whole_ns(double ms) {
  if (!(ms >= 0.0) || std::signbit(ms)) return std::nullopt;  // NaN, negative, -0.0
  const double k = std::nearbyint(ms * 1e6);
  if (k > static_cast<double>(kMaxSampleNs)) return std::nullopt;
  const auto ns = static_cast<uint64_t>(k);
  if (static_cast<double>(ns) / 1e6 != ms) return std::nullopt;
  return ns;
}

}  // namespace

std::optional<std::string> encode_ns_samples(const double* sorted, std::size_t n) {
  std::string out;
  out.reserve(n * 2);
  uint64_t previous = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::optional<uint64_t> ns = whole_ns(sorted[i]);
    if (!ns || *ns < previous) return std::nullopt;
    util::append_leb128(out, *ns - previous);
    previous = *ns;
  }
  return out;
}

void decode_ns_samples(std::string_view bytes, double* out, uint64_t n, const std::string& what) {
  // Every sample takes at least a byte: a count beyond the bytes is refused before allocating.
  if (n > bytes.size())
    throw ProtocolError("samples of " + what + ": " + std::to_string(n) + " announced in " +
                        std::to_string(bytes.size()) + " bytes");
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data());
  std::size_t pos = 0;
  uint64_t ns = 0;
  for (uint64_t i = 0; i < n; ++i) {
    const std::optional<uint64_t> delta = util::read_leb128(data, bytes.size(), pos);
    if (!delta) throw ProtocolError("samples of " + what + ": a number cut short or too long");
    if (*delta > kMaxSampleNs - ns)
      throw ProtocolError("samples of " + what + ": a sample beyond 2^53 ns");
    ns += *delta;
    out[i] = static_cast<double>(ns) / 1e6;
  }
  if (pos != bytes.size())
    throw ProtocolError("samples of " + what + ": " + std::to_string(bytes.size() - pos) +
                        " bytes after the last sample");
}

}  // namespace fleet::wire
