#include "fleet/stats/miss_log.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string_view>

#include "fleet/util/bounded_line.h"
#include "fleet/util/json_file.h"

namespace fleet::stats {

namespace {

constexpr std::string_view kHeader = "t_wall,key,where,class";
constexpr size_t kMaxLineBytes = 256;

bool parse_u64(std::string_view s, int base, uint64_t& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out, base);
  return ec == std::errc() && p == s.data() + s.size();
}

bool parse_time(std::string_view s, double& out) {
  if (s.empty()) return false;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && std::isfinite(out);
}

// "a,b,c,d" -> 4 fields; false on any other count.
bool split4(std::string_view line, std::string_view (&f)[4]) {
  for (int i = 0; i < 3; ++i) {
    const size_t comma = line.find(',');
    if (comma == std::string_view::npos) return false;
    f[i] = line.substr(0, comma);
    line.remove_prefix(comma + 1);
  }
  f[3] = line;
  return f[3].find(',') == std::string_view::npos;
}

}  // namespace

Status write_miss_log(const std::string& path, const std::vector<MissEvent>& events) {
  std::FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status::error(path + ": cannot write the miss log");
  std::fprintf(f, "%s\n", kHeader.data());
  for (const MissEvent& e : events) {
    const std::string_view w = miss_where_name(e.where);
    const std::string_view c = miss_class_name(e.cls);
    std::fprintf(f, "%.17g,%016llx,%.*s,%.*s\n", e.record, static_cast<unsigned long long>(e.key),
                 static_cast<int>(w.size()), w.data(), static_cast<int>(c.size()), c.data());
  }
  const bool ok = std::ferror(f) == 0;
  if (std::fclose(f) != 0 || !ok) return Status::error(path + ": writing the miss log failed");
  return {};
}

Result<std::vector<MissEvent>> read_miss_log(const std::string& path) {
  // Every line is bounded, the file is not: the line count is (kMaxMissLogLines).
  if (Status s = util::check_regular_file(path, UINT64_MAX); !s) return s;
  std::ifstream in(path);
  if (!in) return Status::error(path + ": cannot read the miss log");
  std::string line;
  bool too_long = false;
  auto at = [&](size_t n, const std::string& what) {
    return Status::error(path + ":" + std::to_string(n) + ": " + what);
  };
  if (!util::read_line_bounded(in, line, kMaxLineBytes, too_long) || line != kHeader)
    return at(1, "not a miss log (expected the header '" + std::string(kHeader) + "')");
  std::vector<MissEvent> events;
  for (size_t n = 2; util::read_line_bounded(in, line, kMaxLineBytes, too_long); ++n) {
    if (too_long) return at(n, "line longer than 256 bytes");
    if (events.size() >= kMaxMissLogLines)
      return at(n, "more than " + std::to_string(kMaxMissLogLines) + " misses");
    std::string_view f[4];
    MissEvent e;
    if (!split4(line, f)) return at(n, "expected 4 fields: " + std::string(kHeader));
    if (!parse_time(f[0], e.record)) return at(n, "t_wall is not a finite number");
    if (f[1].size() != 16 || !parse_u64(f[1], 16, e.key)) return at(n, "key is not 16 hex digits");
    const auto where = miss_where_from_name(f[2]);
    const auto cls = miss_class_from_name(f[3]);
    if (!where) return at(n, "unknown where '" + std::string(f[2]) + "'");
    if (!cls) return at(n, "unknown class '" + std::string(f[3]) + "'");
    e.where = *where;
    e.cls = *cls;
    events.push_back(e);
  }
  if (in.bad()) return Status::error(path + ": reading the miss log failed");
  return events;
}

}  // namespace fleet::stats
