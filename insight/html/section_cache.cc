// The cache sections: where lookups were served from (L1, L2 or nowhere), what was written and
// evicted, each L2 adapter; and, when nodes shared an L2, how they shared it.
#include <algorithm>
#include <cmath>
#include <vector>

#include "fleet/insight/html/html_writer.h"
#include "fleet/insight/html/number_format.h"
#include "fleet/insight/html/report_sections.h"

namespace fleet::report::html {

namespace {

// More nodes than this and the per-node L2 table starts collapsed.
constexpr size_t kOpenNodeRows = 16;

Number share(Number part, Number whole) {
  if (!part || !whole || *whole == 0) return std::nullopt;
  return *part / *whole;
}

std::string tier_label(const char* css, const std::string& text) {
  return "<i class=\"swatch " + std::string(css) + "\"></i>" + escape(text);
}

std::string missing_reason(std::string key) {
  std::replace(key.begin(), key.end(), '_', ' ');
  return key;
}

// Lookup outcome: requested = L1 + L2 + missed, in keys and bytes, then why keys missed.
std::string lookup_tables(const Json& lookup, const std::string& caption) {
  if (lookup.empty()) return "";
  const Number req_keys = num(lookup, {"requested_keys"});
  const Number req_bytes = num(lookup, {"requested_bytes"});
  auto row = [&](std::string label, const char* prefix) {
    Number keys = num(lookup, {std::string(prefix) + "_keys"});
    Number bytes = num(lookup, {std::string(prefix) + "_bytes"});
    return std::vector<Cell>{Cell::raw(std::move(label)), Cell::number(fmt_count(keys), keys),
                             Cell::number(fmt_percent(share(keys, req_keys))),
                             Cell::number(fmt_bytes(bytes), bytes),
                             Cell::number(fmt_percent(share(bytes, req_bytes)))};
  };
  std::vector<std::vector<Cell>> rows = {row(tier_label("sw-l1", "L1 hit"), "l1"),
                                         row(tier_label("sw-l2", "L2 hit"), "l2"),
                                         row(tier_label("sw-miss", "Missed"), "missed"),
                                         row("<strong>Requested</strong>", "requested")};
  std::string out =
      table({{"Served from"}, {"Keys", true}, {"% keys", true}, {"Bytes", true}, {"% bytes", true}},
            rows, {"", "", caption});

  // Most frequent reason first: the model's object order is not kept by the JSON library.
  std::vector<std::pair<std::string, Number>> counts;
  for (const auto& [reason, n] : obj(lookup, {"missed"}).items()) {
    counts.emplace_back(reason, n.is_number() ? Number(n.get<double>()) : std::nullopt);
  }
  std::stable_sort(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
    return a.second.value_or(-1) > b.second.value_or(-1);
  });
  std::vector<std::vector<Cell>> reasons;
  const Number missed = num(lookup, {"missed_keys"});
  for (const auto& [reason, n] : counts) {
    reasons.push_back({Cell::text(missing_reason(reason)), Cell::number(fmt_count(n), n),
                       Cell::number(fmt_percent(share(n, missed)))});
  }
  if (!reasons.empty()) {
    out += table({{"Why missed"}, {"Keys", true}, {"% of missed", true}}, reasons,
                 {"", "compact", "Missed keys by reason"});
  }
  return out;
}

std::string writes_table(const Json& writes) {
  if (writes.empty()) return "";
  auto row = [&](const std::string& label, const char* prefix) {
    Number keys = num(writes, {std::string(prefix) + "_keys"});
    Number bytes = num(writes, {std::string(prefix) + "_bytes"});
    return std::vector<Cell>{Cell::text(label), Cell::number(fmt_count(keys), keys),
                             Cell::number(fmt_bytes(bytes), bytes)};
  };
  return table({{"Writes"}, {"Keys", true}, {"Bytes", true}},
               {row("Stored", "stored"), row("Refused (out of memory)", "refused_oom"),
                row("Evicted", "evicted")},
               {"", "", "Writes and evictions"});
}

// One row per adapter, joining the lookup's L2 hits with the adapter's own store/load counts.
std::string l2_adapters_table(const Json& cache) {
  std::vector<std::string> names;
  auto add_name = [&](const std::string& n) {
    if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
  };
  for (const Json& a : arr(cache, {"l2"})) add_name(str(a, {"adapter"}));
  for (const Json& a : arr(cache, {"lookup", "l2_by_adapter"})) add_name(str(a, {"adapter"}));
  auto find = [](const Json& list, const std::string& name) -> const Json& {
    for (const Json& a : list) {
      if (str(a, {"adapter"}) == name) return a;
    }
    static const Json kNone = Json::object();
    return kNone;
  };
  std::vector<std::vector<Cell>> rows;
  for (const std::string& name : names) {
    const Json& ops = find(arr(cache, {"l2"}), name);
    const Json& hits = find(arr(cache, {"lookup", "l2_by_adapter"}), name);
    auto count = [](const Json& j, const char* key) {
      return Cell::number(fmt_count(num(j, {key})), num(j, {key}));
    };
    rows.push_back({Cell::raw("<code>" + escape(name) + "</code>"), count(hits, "keys"),
                    Cell::number(fmt_bytes(num(hits, {"bytes"})), num(hits, {"bytes"})),
                    count(ops, "stores_ok"), count(ops, "stores_failed"),
                    Cell::number(fmt_us(num(ops, {"store_p99_us"}))), count(ops, "loads_ok"),
                    count(ops, "loads_failed"), Cell::number(fmt_us(num(ops, {"load_p99_us"})))});
  }
  if (rows.empty()) return "";
  return table({{"Adapter"},
                {"Hit keys", true},
                {"Hit bytes", true},
                {"Stores", true},
                {"Store fails", true},
                {"Store p99", true},
                {"Loads", true},
                {"Load fails", true},
                {"Load p99", true}},
               rows, {"l2-rows", "", "L2 adapters"});
}

bool any_hit_series(const Json& model) {
  for (const char* tier : {"l1", "l2", "miss"}) {
    if (!arr(model, {"series", "hit_rate", tier}).empty()) return true;
  }
  return false;
}

size_t nodes_with_rates(const Json& model) {
  size_t n = 0;
  for (const Json& node : arr(model, {"nodes"})) {
    if (num(node, {"l1_hit_rate"}) || num(node, {"l2_hit_rate"}) || num(node, {"miss_rate"})) ++n;
  }
  return n;
}

std::string rate_tile(const char* label, Number rate) {
  return "<div class=\"tile\"><div class=\"tile-label\">" + std::string(label) +
         "</div><div class=\"tile-value\">" + fmt_percent(rate) + "</div></div>";
}

}  // namespace

std::string cache_section(const Json& model) {
  const Json& cache = obj(model, {"cache"});
  // A bar per node: many nodes get a taller chart, and both charts a row of their own.
  const size_t nodes = nodes_with_rates(model);
  const bool many = nodes > 16;
  std::string figures;
  if (any_hit_series(model)) {
    figures += figure({"hit_rate", "Where lookups were served, over time",
                       "Stacked to 100 % per window, all nodes merged: green L1 hits, blue L2 "
                       "hits, red misses. A growing green band is the cache warming up.",
                       280, many});
  }
  if (nodes > 0) {
    int height = static_cast<int>(std::max<size_t>(160, 56 + (many ? 14 : 18) * nodes));
    figures += figure({"node_hits", "Hit rate per node",
                       "One bar per node, stacked to 100 % of its lookups: green L1, blue L2, "
                       "red missed. Bars of different shape mean nodes saw different reuse.",
                       height, many});
  }
  std::string body = "<div class=\"tiles\">" +
                     rate_tile("L1 hit rate", num(cache, {"lookup", "l1_hit_rate"})) +
                     rate_tile("L1 + L2 hit rate", num(cache, {"lookup", "l1_l2_hit_rate"})) +
                     rate_tile("Miss rate", num(cache, {"lookup", "miss_rate"})) + "</div>";
  if (!figures.empty()) body += chart_grid(figures);
  std::string tables = lookup_tables(obj(cache, {"lookup"}), "Lookups in the measured run");
  tables += lookup_tables(obj(cache, {"warm"}), "Warm-up lookups (before the measured run)");
  tables += writes_table(obj(cache, {"writes"}));
  // The adapters table is wide: it gets the full width under the grid.
  const std::string adapters = l2_adapters_table(cache);
  if (tables.empty() && adapters.empty()) {
    body += no_data("No cache statistics were recorded.");
  } else {
    body += "<div class=\"table-grid\">" + tables + "</div>" + adapters;
  }
  return section("cache", "Cache", "", body);
}

namespace {

// The contention charts that have data: shares, fairness and the L2's p99 per window.
std::string contention_figures(const Json& c) {
  std::string figures;
  const auto add = [&](const char* key, Figure f) {
    if (!arr(c, {key}).empty()) figures += figure(f);
  };
  add("share_ops", {"share_ops", "Share of L2 operations per node",
                    "Stacked to 100 % per window: each band is one node's share of all L2 "
                    "operations. Equal bands mean the L2 served nodes evenly."});
  add("share_bytes", {"share_bytes", "Share of L2 bytes per node",
                      "As on the left, by bytes moved instead of operations."});
  add("fairness_series", {"fairness", "Jain fairness over time",
                          "Jain's index of L2 operations across nodes per window: 1 means "
                          "every node got the same number; 1/n means one node got them all."});
  add("l2_p99_us", {"l2_p99", "L2 latency p99 over time",
                    "The p99 latency of L2 operations in each window, all nodes merged. Rising "
                    "while shares stay even points at the L2 itself saturating."});

  return figures;
}

// The headline tiles: fairness, its worst window, the L2's worst p99.
std::string contention_tiles(const Json& c) {
  std::string body =
      "<div class=\"tiles\"><div class=\"tile\"><div class=\"tile-label\">Jain "
      "fairness</div><div class=\"tile-value\">" +
      fmt_ratio(num(c, {"fairness"})) +
      "</div><div class=\"tile-sub\">1 = every node the same share</div></div>";
  auto fairness = series_stats(arr(c, {"fairness_series"}));
  if (fairness) {
    body +=
        "<div class=\"tile\"><div class=\"tile-label\">Worst window</div><div "
        "class=\"tile-value\">" +
        fmt_ratio(fairness->min) + "</div><div class=\"tile-sub\">lowest fairness</div></div>";
  }
  auto p99 = series_stats(arr(c, {"l2_p99_us"}));
  if (p99) {
    body +=
        "<div class=\"tile\"><div class=\"tile-label\">L2 p99, worst window</div><div "
        "class=\"tile-value\">" +
        fmt_us(p99->max) + "</div><div class=\"tile-sub\">at " + fmt_seconds(p99->max_at) +
        "</div></div>";
  }
  body += "</div>";
  return body;
}

// L2 use per node and per operation.
std::string contention_tables(const Json& c, const SeriesColours& colours) {
  std::vector<std::vector<Cell>> node_rows;
  for (const Json& n : arr(c, {"per_node"})) {
    std::string name = str(n, {"name"});
    node_rows.push_back({Cell::raw(swatch(colours, name) + escape(name)),
                         Cell::number(fmt_count(num(n, {"ops"})), num(n, {"ops"})),
                         Cell::number(fmt_bytes(num(n, {"bytes"})), num(n, {"bytes"})),
                         Cell::number(fmt_percent(num(n, {"share_ops"}))),
                         Cell::number(fmt_percent(num(n, {"share_bytes"})))});
  }
  std::vector<std::vector<Cell>> op_rows;
  for (const Json& op : arr(c, {"per_op"})) {
    op_rows.push_back(
        {Cell::text(str(op, {"kind"})), Cell::number(fmt_count(num(op, {"n"})), num(op, {"n"})),
         Cell::number(fmt_bytes(num(op, {"bytes"})), num(op, {"bytes"})),
         Cell::number(fmt_rate(num(op, {"ops_per_s"}))), Cell::number(fmt_us(num(op, {"p50_us"}))),
         Cell::number(fmt_us(num(op, {"p99_us"})))});
  }
  std::string tables;
  if (!node_rows.empty()) {
    std::string per_node = table({{"Node"},
                                  {"L2 ops", true},
                                  {"L2 bytes", true},
                                  {"Share of ops", true},
                                  {"Share of bytes", true}},
                                 node_rows, {"contention-rows", "compact", "L2 use per node"});
    // A big fleet's rows stay one click away, as the nodes table below has them all.
    if (node_rows.size() > kOpenNodeRows) {
      per_node = "<details class=\"rows\"><summary>L2 use per node (" +
                 std::to_string(node_rows.size()) + " nodes)</summary>" + per_node + "</details>";
    }
    tables += per_node;
  }
  if (!op_rows.empty()) {
    tables += table({{"Operation"},
                     {"Count", true},
                     {"Bytes", true},
                     {"Rate", true},
                     {"p50", true},
                     {"p99", true}},
                    op_rows, {"", "compact", "L2 operations, all nodes"});
  }
  return tables;
}

}  // namespace

std::string contention_section(const Json& model, const SeriesColours& colours) {
  const Json* c = at(model, {"contention"});
  if (!c || !c->is_object()) return "";
  std::string body = contention_tiles(*c);
  const std::string figures = contention_figures(*c);
  if (!figures.empty()) body += chart_grid(figures);
  const std::string tables = contention_tables(*c, colours);
  if (!tables.empty()) body += "<div class=\"table-grid\">" + tables + "</div>";
  return section("contention", "L2 contention",
                 "How the nodes shared the L2: each node's share of operations and bytes, and "
                 "whether sharing cost latency.",
                 body);
}

}  // namespace fleet::report::html
