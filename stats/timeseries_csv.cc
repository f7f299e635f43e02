#include "fleet/stats/timeseries_csv.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "fleet/stats/ops_csv.h"
#include "fleet/util/bounded_line.h"
#include "fleet/util/json_file.h"
#include "fleet/util/output_file.h"

namespace fleet::stats {

double l1_hit_rate(const RunWindow& w) {
  return w.lookup_keys ? static_cast<double>(w.l1_hit_keys) / static_cast<double>(w.lookup_keys)
                       : 0.0;
}

double l1_l2_hit_rate(const RunWindow& w) {
  return w.lookup_keys ? static_cast<double>(w.l1_hit_keys + w.l2_hit_keys) /
                             static_cast<double>(w.lookup_keys)
                       : 0.0;
}

namespace {

void put_u(std::string& s, uint64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
  s += ',';
}

void put_i(std::string& s, int64_t v) {
  char buf[24];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  s.append(buf, r.ptr);
  s += ',';
}

// Fixed decimals: plots and spreadsheets read them, and the file stays diffable.
void put_f(std::string& s, double v, int decimals) {
  char buf[48];
  int n = std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  s.append(buf, static_cast<size_t>(n));
  s += ',';
}

double us(int64_t ns) { return static_cast<double>(ns) / 1e3; }

}  // namespace

Result<std::unique_ptr<TimeseriesCsvWriter>> TimeseriesCsvWriter::create(const std::string& path) {
  std::FILE* f = util::open_for_rewrite(path);
  if (!f) return Status::error(path + ": cannot create: " + std::strerror(errno));
  return std::unique_ptr<TimeseriesCsvWriter>(new TimeseriesCsvWriter(path, f));
}

TimeseriesCsvWriter::TimeseriesCsvWriter(const std::string& path, std::FILE* f)
    : path_(path), f_(f) {
  line_.assign(kHeader);
  line_ += "\r\n";
  std::fwrite(line_.data(), 1, line_.size(), f_);
  std::fflush(f_);
}

TimeseriesCsvWriter::~TimeseriesCsvWriter() {
  if (f_) std::fclose(f_);
}

void TimeseriesCsvWriter::append(std::string_view node, const RunWindow& w) {
  line_.clear();
  put_i(line_, w.index);
  append_csv_field(line_, node);
  line_ += ',';
  put_u(line_, w.records);
  put_f(line_, static_cast<double>(w.records) * 1e9 / static_cast<double>(kRunWindowNs), 1);
  put_u(line_, w.failed);
  put_u(line_, w.skipped);
  put_u(line_, w.paced);
  put_f(line_, us(w.lateness_p50_ns), 3);
  put_f(line_, us(w.lateness_p99_ns), 3);
  put_f(line_, us(w.lateness_max_ns), 3);
  put_u(line_, w.lookup_keys);
  put_u(line_, w.l1_hit_keys);
  put_u(line_, w.l2_hit_keys);
  put_u(line_, w.missed_keys);
  const double l1 = l1_hit_rate(w), l12 = l1_l2_hit_rate(w);
  put_f(line_, l1, 6);
  put_f(line_, l12, 6);
  put_f(line_, w.lookup_keys ? 1.0 - l12 : 0.0, 6);
  put_u(line_, w.lookup_bytes);
  put_u(line_, w.l1_hit_bytes);
  put_u(line_, w.l2_hit_bytes);
  put_u(line_, w.stored_keys);
  put_u(line_, w.evicted_keys);
  put_u(line_, w.refused_oom_keys);
  put_u(line_, w.l2_ops);
  put_u(line_, w.l2_failed);
  put_u(line_, w.l2_bytes);
  put_f(line_, us(w.l2_p99_ns), 3);
  line_.back() = '\r';
  line_ += '\n';
  std::fwrite(line_.data(), 1, line_.size(), f_);
  std::fflush(f_);  // a crash or Ctrl-C keeps every window written so far
  ++rows_;
}

namespace {

// Splits one CSV row (csv.QUOTE_MINIMAL) into fields; false on an unterminated quote.
bool split_row(std::string_view row, std::vector<std::string>& out) {
  out.clear();
  std::string cur;
  bool quoted = false;
  for (size_t i = 0; i < row.size(); ++i) {
    const char c = row[i];
    if (quoted) {
      if (c != '"') {
        cur += c;
      } else if (i + 1 < row.size() && row[i + 1] == '"') {
        cur += '"';
        ++i;
      } else {
        quoted = false;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      out.push_back(std::move(cur));
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(std::move(cur));
  return !quoted;
}

template <class T>
bool parse_int(const std::string& s, T& v) {
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool parse_us(const std::string& s, int64_t& ns) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno) return false;
  // NaN, inf or a value past int64 ns is a damaged row, not an undefined conversion.
  if (!std::isfinite(v) || std::fabs(v) > 9.2e15) return false;
  ns = static_cast<int64_t>(v * 1e3 + (v >= 0 ? 0.5 : -0.5));
  return true;
}

bool parse_row(const std::vector<std::string>& f, TimeseriesRow& row) {
  if (f.size() != 27) return false;
  RunWindow& w = row.w;
  row.node = f[1];
  return parse_int(f[0], w.index) && parse_int(f[2], w.records) && parse_int(f[4], w.failed) &&
         parse_int(f[5], w.skipped) && parse_int(f[6], w.paced) &&
         parse_us(f[7], w.lateness_p50_ns) && parse_us(f[8], w.lateness_p99_ns) &&
         parse_us(f[9], w.lateness_max_ns) && parse_int(f[10], w.lookup_keys) &&
         parse_int(f[11], w.l1_hit_keys) && parse_int(f[12], w.l2_hit_keys) &&
         parse_int(f[13], w.missed_keys) && parse_int(f[17], w.lookup_bytes) &&
         parse_int(f[18], w.l1_hit_bytes) && parse_int(f[19], w.l2_hit_bytes) &&
         parse_int(f[20], w.stored_keys) && parse_int(f[21], w.evicted_keys) &&
         parse_int(f[22], w.refused_oom_keys) && parse_int(f[23], w.l2_ops) &&
         parse_int(f[24], w.l2_failed) && parse_int(f[25], w.l2_bytes) &&
         parse_us(f[26], w.l2_p99_ns);
}

}  // namespace

Result<TimeseriesFile> read_timeseries_csv(const std::string& path) {
  // A row is ~200 bytes: 1 GiB is millions of node-seconds. Lines are bounded too.
  constexpr uint64_t kMaxFileBytes = 1ull << 30;
  constexpr size_t kMaxLineBytes = 4096;
  if (Status s = util::check_regular_file(path, kMaxFileBytes); !s) return s;
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::error(path + ": cannot open: " + std::strerror(errno));
  std::string line;
  bool too_long = false;
  util::read_line_bounded(in, line, kMaxLineBytes, too_long);
  if (!line.empty() && line.back() == '\r') line.pop_back();
  if (line != TimeseriesCsvWriter::kHeader) {
    return Status::error(path + ": not a fleet_timeseries.csv (unexpected header)");
  }
  TimeseriesFile file;
  std::vector<std::string> fields;
  while (util::read_line_bounded(in, line, kMaxLineBytes, too_long)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    TimeseriesRow row;
    if (!too_long && split_row(line, fields) && parse_row(fields, row)) {
      file.rows.push_back(std::move(row));
    } else {
      ++file.bad_rows;
    }
  }
  return file;
}

}  // namespace fleet::stats
