#include "mrc/mrc_report.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "fleet/util/pyjson.h"
#include "mrc/byte_size.h"

namespace fleet::mrc {

namespace {

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

std::string percent(uint64_t part, uint64_t whole) {
  return whole == 0 ? "0.00 %" : fmt("%.2f %%", 100.0 * part / static_cast<double>(whole));
}

std::string row(const char* label, const std::string& value) {
  std::string l = std::string(label) + ":";
  l.resize(std::max<size_t>(l.size() + 1, 18), ' ');
  return "  " + l + value + "\n";
}

}  // namespace

std::string render_table(const MrcReport& r) {
  const AccessStream& s = r.stream;
  const MissRatioCurve& c = r.curve;
  const bool sampled = c.sample_rate() < 1.0;
  const std::string est = sampled ? " (estimated)" : "";
  std::string out = "lct mrc " + r.file + "\n";
  out += row("accesses", std::to_string(c.trace_accesses()) + " (writes " +
                             std::to_string(s.trace_counts.writes) + ", lookups " +
                             std::to_string(s.trace_counts.lookups) + ", reads " +
                             std::to_string(s.trace_counts.reads) + ")");
  if (s.warm_keys_skipped) out += row("WARM keys skipped", std::to_string(s.warm_keys_skipped));
  out += row("sampling", sampled ? "SHARDS rate " + util::py_float_repr(c.sample_rate()) + ", " +
                                       std::to_string(c.sampled_accesses()) +
                                       " accesses sampled; counts and sizes scaled by 1/rate"
                                 : std::string("none (exact)"));
  out += row("distinct keys", std::to_string(c.distinct_keys()) + est);
  out += row("working set", format_byte_size(c.working_set_bytes()) + " (" +
                                std::to_string(c.working_set_bytes()) + " B)" + est);
  out += row("smallest object", format_byte_size(c.smallest_object()) + ", most common " +
                                    format_byte_size(s.most_common_size));
  out += row("cold misses", std::to_string(c.cold_misses()) + " (" +
                                percent(c.cold_misses(), c.trace_accesses()) + ")" + est);
  if (s.sized_by_fallback) {
    out += row("unsized reads", std::to_string(s.sized_by_fallback) +
                                    " read before any layout of their key (sized as documented)");
  }
  if (s.undecodable_records) {
    out += row("skipped records", std::to_string(s.undecodable_records) +
                                      " (args do not decode; LMCache's replay skips them)");
  }
  if (r.points.empty()) {
    out += c.sampled_accesses() == 0 ? "\nno accesses: no curve\n" : "\nno sizes: no curve\n";
    return out;
  }
  char line[160];
  std::snprintf(line, sizeof line, "\n%12s %16s %11s %16s %10s %17s\n", "size", "size_bytes",
                "miss_ratio", "byte_miss_ratio", "hit_ratio", "lookup_hit_ratio");
  out += line;
  const bool lookups = c.histogram().total().lookups > 0;
  for (const CurvePoint& p : r.points) {
    std::string lookup = lookups ? fmt("%.4f", 1.0 - p.lookup_miss_ratio) : "-";
    std::snprintf(line, sizeof line, "%12s %16llu %11.4f %16.4f %10.4f %17s\n",
                  format_byte_size(p.size_bytes).c_str(),
                  static_cast<unsigned long long>(p.size_bytes), p.miss_ratio, p.byte_miss_ratio,
                  1.0 - p.miss_ratio, lookup.c_str());
    out += line;
  }
  out += "\nknees (largest miss-ratio drop over one doubling of L1):\n";
  if (r.knees.empty()) out += "  none (the curve is flat)\n";
  for (size_t i = 0; i < r.knees.size(); ++i) {
    const Knee& k = r.knees[i];
    out += "  " + std::to_string(i + 1) + ". " + format_byte_size(k.size_bytes) + " (" +
           std::to_string(k.size_bytes) + " B): miss ratio " + fmt("%.4f", k.miss_ratio) + ", " +
           fmt("%.4f", k.miss_ratio_at_half) + " at " + format_byte_size(k.size_bytes / 2) + " (-" +
           fmt("%.4f", k.drop()) + ")\n";
  }
  return out;
}

std::string render_csv(const MrcReport& r) {
  std::string out = "size_bytes,miss_ratio,byte_miss_ratio,accesses,misses\n";
  for (const CurvePoint& p : r.points) {
    out += std::to_string(p.size_bytes) + "," + util::py_float_repr(p.miss_ratio) + "," +
           util::py_float_repr(p.byte_miss_ratio) + "," + std::to_string(p.accesses) + "," +
           std::to_string(p.misses) + "\n";
  }
  return out;
}

std::string render_json(const MrcReport& r) {
  using J = nlohmann::ordered_json;
  const MissRatioCurve& c = r.curve;
  const bool lookups = c.histogram().total().lookups > 0;
  J curve = J::array();
  for (const CurvePoint& p : r.points) {
    curve.push_back({{"size_bytes", p.size_bytes},
                     {"miss_ratio", p.miss_ratio},
                     {"byte_miss_ratio", p.byte_miss_ratio},
                     {"hit_ratio", 1.0 - p.miss_ratio},
                     {"lookup_hit_ratio", lookups ? J(1.0 - p.lookup_miss_ratio) : J(nullptr)},
                     {"accesses", p.accesses},
                     {"misses", p.misses}});
  }
  J knees = J::array();
  for (const Knee& k : r.knees) {
    knees.push_back({{"size_bytes", k.size_bytes},
                     {"miss_ratio", k.miss_ratio},
                     {"miss_ratio_at_half", k.miss_ratio_at_half},
                     {"drop", k.drop()}});
  }
  const AccessStream& s = r.stream;
  J j = {{"file", r.file},
         {"accesses", c.trace_accesses()},
         {"writes", s.trace_counts.writes},
         {"lookups", s.trace_counts.lookups},
         {"reads", s.trace_counts.reads},
         {"warm_keys_skipped", s.warm_keys_skipped},
         {"sampled_rate", c.sample_rate()},
         {"sampled_accesses", c.sampled_accesses()},
         {"estimated", c.sample_rate() < 1.0},
         {"distinct_keys", c.distinct_keys()},
         {"working_set_bytes", c.working_set_bytes()},
         {"smallest_object_bytes", c.smallest_object()},
         {"most_common_object_bytes", s.most_common_size},
         {"cold_misses", c.cold_misses()},
         {"unsized_reads", s.sized_by_fallback},
         {"undecodable_records", s.undecodable_records},
         {"curve", curve},
         {"knees", knees}};
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

}  // namespace fleet::mrc
