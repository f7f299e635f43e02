// The Compression section: why keys missed, class by class, whom each class blames, and, with
// --baseline, which misses only this run has (docs/causal-pacing.md "Miss attribution").
#include <string>
#include <vector>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"
#include "fleet/stats/miss_attribution.h"

namespace fleet::report::html {

namespace {

using stats::MissClass;

Number count_at(const Json& counts, stats::MissWhere w, MissClass c) {
  const Number n = num(counts, {stats::miss_where_name(w), stats::miss_class_name(c)});
  return n ? n : Number(0.0);
}

Number both_wheres(const Json& counts, MissClass c) {
  return *count_at(counts, stats::MissWhere::Prefetch, c) +
         *count_at(counts, stats::MissWhere::Read, c);
}

std::string tile(const char* label, const std::string& value) {
  return "<div class=\"tile\"><div class=\"tile-label\">" + std::string(label) +
         "</div><div class=\"tile-value\">" + value + "</div></div>";
}

Cell count_cell(Number n) { return Cell::number(fmt_count(n), n); }

}  // namespace

std::string compression_section(const Json& model) {
  const Json& m = obj(model, {"misses"});
  if (m.empty()) return "";
  const bool sped_up = flag(m, {"sped_up"}), follows = flag(m, {"engine_follows_trace"}),
             partial = flag(m, {"partial_schedule"});
  const Json& pairing = obj(m, {"baseline"});
  const bool paired = !pairing.empty();
  std::string body = "<div class=\"tiles\">" + tile("Misses", fmt_count(num(m, {"total"}))) +
                     tile("Blamed on the speed-up", fmt_count(num(m, {"blame", "compression"})));
  if (paired) {
    body += tile("Only this run", fmt_count(num(pairing, {"only_this_run", "total"}))) +
            tile("Only the baseline", fmt_count(num(pairing, {"only_baseline", "total"})));
    // --noise-baseline: how far two reference runs are apart, what the verdict tolerates.
    if (const Json& noise = obj(pairing, {"noise"}); !noise.empty()) {
      body += tile("Two baselines apart", "prefetch " + fmt_count(num(noise, {"prefetch"})) +
                                              ", read " + fmt_count(num(noise, {"read"})));
    }
  }
  body += "</div>";
  std::vector<std::vector<Cell>> rows;
  for (size_t k = 0; k < stats::kMissClassCount; ++k) {
    const auto c = static_cast<MissClass>(k);
    const Number here = both_wheres(m, c);
    const Number only_here = paired ? both_wheres(obj(pairing, {"only_this_run"}), c) : 0.0;
    const Number only_base = paired ? both_wheres(obj(pairing, {"only_baseline"}), c) : 0.0;
    if (*here == 0 && *only_here == 0 && *only_base == 0) continue;
    std::vector<Cell> row = {
        Cell::raw("<code>" + escape(stats::miss_class_name(c)) + "</code>"),
        Cell::text(stats::miss_class_meaning(c)),
        count_cell(count_at(m, stats::MissWhere::Prefetch, c)),
        count_cell(count_at(m, stats::MissWhere::Read, c)),
        Cell::text(stats::miss_blame_name(stats::blame_of(c, sped_up, follows, partial)))};
    if (paired) {
      row.push_back(count_cell(only_here));
      row.push_back(count_cell(only_base));
    }
    rows.push_back(std::move(row));
  }
  std::vector<Column> columns = {{"Class"},
                                 {"Why"},
                                 {"Prefetch", true, "keys a LOOKUP prefetch left unserved"},
                                 {"Read", true, "keys __enter__ found not readable in L1"},
                                 {"Blame"}};
  if (paired) {
    columns.push_back({"Only this run", true, "not missed by the baseline at the same record"});
    columns.push_back({"Only baseline", true, "missed by the baseline only"});
  }
  body += rows.empty() ? no_data("No key missed.")
                       : table(columns, rows, {"miss-rows", "", "Misses by class"});
  std::string intro =
      "Each miss is labelled as the engine decides it. Compression: the speed-up left the work a "
      "key needed still running, or starved L1. Environment: the machine or the config. Trace: "
      "the recorded server missed it too. Follows: the consequence of another miss.";
  if (paired) {
    intro += " Paired key by key with the baseline <code>" + escape(str(pairing, {"run"})) +
             "</code>: " + fmt_count(num(pairing, {"both"})) + " misses in both.";
    if (flag(pairing, {"fell_behind"})) {
      const Number p99 = num(pairing, {"lateness_p99_us"});
      intro += " <strong>The baseline fell behind its recording</strong>" +
               (p99 ? " (lateness p99 " + fmt_us(*p99) + ")" : std::string()) +
               ": some of its misses are its backend's or its CPU's, not the trace's.";
    }
  }
  return section("compression", "Compression", intro, body);
}

}  // namespace fleet::report::html
