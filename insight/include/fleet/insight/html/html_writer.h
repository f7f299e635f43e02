// The page's HTML building blocks: escaping (every model string goes through `escape`), safe
// inlining of scripts and JSON, tables with right-aligned numeric columns, chart figures and
// sections. Everything returns HTML text, so sections compose by concatenation.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fleet::report::html {

// & < > " ' as entities: safe in text and in quoted attributes.
std::string escape(std::string_view text);
// JSON for <script type="application/json">: every '<' as \u003c, so neither "</script" nor
// "<!--" can end or confuse the element; invalid UTF-8 is replaced, never thrown on.
std::string json_for_script(const nlohmann::json& value);
// Script or style text with every "</script" / "</style" (any case) as "<\/...", so the
// element ends only at its real closing tag.
std::string inline_safe(std::string_view code, std::string_view tag);
// Whether inline_safe would change CODE (it contains "</TAG", any case).
bool needs_inline_escape(std::string_view code, std::string_view tag);

// One table cell: HTML content, right-aligned when numeric; `title` is the hover text (the
// exact value behind a rounded one); `sort` the key report.js sorts a sortable column by.
struct Cell {
  std::string html;
  bool numeric = false;
  std::string title;
  std::optional<double> sort;

  static Cell text(std::string_view s) { return raw(escape(s)); }
  static Cell raw(std::string html) {
    Cell c;
    c.html = std::move(html);
    return c;
  }
  // A formatted number; `exact` (when known) becomes the hover text and the sort key.
  static Cell number(std::string shown, std::optional<double> exact = std::nullopt);
};

struct Column {
  Column(std::string label, bool numeric = false, std::string hint = "")
      : label(std::move(label)), numeric(numeric), hint(std::move(hint)) {}
  std::string label;
  bool numeric;
  std::string hint;  // header hover text: what the column means
};

struct TableOptions {
  TableOptions(std::string tbody_id = "", std::string css_class = "", std::string caption = "")
      : tbody_id(std::move(tbody_id)),
        css_class(std::move(css_class)),
        caption(std::move(caption)) {}
  std::string tbody_id;   // e.g. "nodes-rows": tests and anchors find the rows by it
  std::string css_class;  // extra classes: "compact", "sortable"
  std::string caption;    // shown above the table
};

std::string table(const std::vector<Column>& columns, const std::vector<std::vector<Cell>>& rows,
                  const TableOptions& options = {});
// A two-column label/value table; values are HTML.
std::string kv_table(const std::vector<std::pair<std::string, std::string>>& rows,
                     const std::string& css_class = "kv");

// A chart: a <canvas data-chart=KIND> report.js draws into, a <noscript> note for readers
// without JavaScript, and a caption that says how to read the chart.
struct Figure {
  Figure(std::string chart, std::string title, std::string how_to_read, int height_px = 280,
         bool wide = false)
      : chart(std::move(chart)),
        title(std::move(title)),
        how_to_read(std::move(how_to_read)),
        height_px(height_px),
        wide(wide) {}
  std::string chart;        // report.js drawer name
  std::string title;        // shown above the chart
  std::string how_to_read;  // caption (HTML)
  int height_px;
  bool wide;  // spans both columns of a chart grid
};
std::string figure(const Figure& f);

// <section id=ID class="card"><h2>TITLE</h2><p class="intro">INTRO</p>BODY</section>
std::string section(const std::string& id, const std::string& title, const std::string& intro,
                    const std::string& body);
// A muted line standing in for a chart or table the run has no data for.
std::string no_data(const std::string& what);
// Charts side by side on a wide screen.
std::string chart_grid(const std::string& figures);
// A JSON scalar as text (numbers with digit grouping, null as "—"); objects and arrays as
// compact JSON in <code>.
std::string json_value_html(const nlohmann::json& value);
// Any JSON as HTML: objects as nested two-column tables, arrays of objects as one table with a
// column per key, anything deeper than a few levels (and other arrays) as compact JSON text.
std::string json_html(const nlohmann::json& value, int depth = 0);
// <span class="badge CLASS">TEXT</span>
std::string badge(const std::string& css_class, const std::string& text);

}  // namespace fleet::report::html
