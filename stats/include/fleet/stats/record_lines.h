// The per-record lines of `lmcache trace replay`: the --verbose stdout line and the
// --jsonl-out line. Formatted into one reusable buffer (no iostreams, no allocation once
// warm) because they are written for every record of the replay loop.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace fleet::stats {

class RecordLineFormatter {
 public:
  // `  [N/total]  OK       0.123ms  qualname\n` (status "%-4s", latency "%8.3f").
  // Skipped records are reported as failed with latency 0.0.
  std::string_view verbose_line(uint64_t n, uint64_t total, bool failed, double latency_ms,
                                std::string_view qualname);
  // `{"qualname": "x", "latency_ms": 0.123, "failed": false}\n` (json.dumps, float repr).
  std::string_view jsonl_line(std::string_view qualname, double latency_ms, bool failed);

 private:
  std::string buf_;
};

}  // namespace fleet::stats
