#include "fleet/stats/record_lines.h"

#include <charconv>
#include <cmath>
#include <cstdio>

#include "fleet/stats/py_format.h"
#include "fleet/util/pyjson.h"

namespace fleet::stats {

namespace {

// Plain printable ASCII without `"` or `\` is emitted verbatim by json.dumps; qualnames
// always are, so the escaping (and its allocation) only runs for odd input.
bool json_plain(std::string_view s) {
  for (unsigned char c : s)
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') return false;
  return true;
}

void append_u64(std::string& out, uint64_t v) {
  char b[24];
  auto r = std::to_chars(b, b + sizeof b, v);
  out.append(b, r.ptr);
}

}  // namespace

std::string_view RecordLineFormatter::verbose_line(uint64_t n, uint64_t total, bool failed,
                                                   double latency_ms, std::string_view qualname) {
  buf_.clear();
  buf_ += "  [";
  append_u64(buf_, n);
  buf_ += '/';
  append_u64(buf_, total);
  buf_ += failed ? "]  FAIL  " : "]  OK    ";
  char lat[400];
  int len;
  if (std::isfinite(latency_ms))
    len = std::snprintf(lat, sizeof lat, "%8.3f", latency_ms);
  else
    len = std::snprintf(lat, sizeof lat, "%8s", py_fixed(latency_ms, 3).c_str());
  buf_.append(lat, static_cast<std::size_t>(len));
  buf_ += "ms  ";
  buf_ += qualname;
  buf_ += '\n';
  return buf_;
}

std::string_view RecordLineFormatter::jsonl_line(std::string_view qualname, double latency_ms,
                                                 bool failed) {
  buf_.clear();
  buf_ += "{\"qualname\": ";
  if (json_plain(qualname)) {
    buf_ += '"';
    buf_ += qualname;
    buf_ += '"';
  } else {
    buf_ += util::py_json_string(std::string(qualname));
  }
  buf_ += ", \"latency_ms\": ";
  char num[util::kPyReprMax];
  buf_.append(num, util::py_float_repr_to(num, latency_ms));
  buf_ += failed ? ", \"failed\": true}\n" : ", \"failed\": false}\n";
  return buf_;
}

}  // namespace fleet::stats
