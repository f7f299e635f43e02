#include "fleet/insight/html/html_writer.h"

#include <algorithm>
#include <cctype>

#include "fleet/insight/html/number_format.h"

namespace fleet::report::html {

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string json_for_script(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  // '<' occurs only inside JSON strings, where \u003c is the same character.
  size_t lt = text.find('<');
  if (lt == std::string::npos) return text;
  std::string out;
  out.reserve(text.size() + 64);
  size_t from = 0;
  for (; lt != std::string::npos; from = lt + 1, lt = text.find('<', from)) {
    out.append(text, from, lt - from);
    out += "\\u003c";
  }
  out.append(text, from, std::string::npos);
  return out;
}

namespace {

// The next "</tag" (case-insensitive) at or after FROM. Only a '<' can start one: jump between
// them (Chart.js is 200 KB, and checking every byte cost a small run's report a millisecond).
size_t find_end_tag(std::string_view code, std::string_view tag, size_t from) {
  for (size_t lt = code.find('<', from); lt != std::string_view::npos;
       lt = code.find('<', lt + 1)) {
    bool match = lt + 2 + tag.size() <= code.size() && code[lt + 1] == '/';
    for (size_t k = 0; match && k < tag.size(); ++k) {
      match = std::tolower(static_cast<unsigned char>(code[lt + 2 + k])) == tag[k];
    }
    if (match) return lt;
  }
  return std::string_view::npos;
}

}  // namespace

bool needs_inline_escape(std::string_view code, std::string_view tag) {
  return find_end_tag(code, tag, 0) != std::string_view::npos;
}

std::string inline_safe(std::string_view code, std::string_view tag) {
  std::string out;
  out.reserve(code.size() + 16);
  size_t from = 0;
  for (size_t lt = find_end_tag(code, tag, 0); lt != std::string_view::npos;
       lt = find_end_tag(code, tag, lt + 1)) {
    // "<\/script" means the same in a JS string or regex and cannot end the element.
    out.append(code.substr(from, lt - from));
    out += "<\\/";
    from = lt + 2;
  }
  out.append(code.substr(from));
  return out;
}

Cell Cell::number(std::string shown, std::optional<double> exact) {
  Cell c = raw(std::move(shown));
  c.numeric = true;
  if (exact) {
    c.title = fmt_exact(exact);
    c.sort = exact;
  }
  return c;
}

namespace {

std::string cell_html(const char* tag, const Cell& c) {
  std::string out = std::string("<") + tag;
  if (c.numeric) out += " class=\"num\"";
  if (!c.title.empty() && c.title != c.html) out += " title=\"" + escape(c.title) + "\"";
  if (c.sort) out += " data-v=\"" + nlohmann::json(*c.sort).dump() + "\"";
  return out + ">" + c.html + "</" + tag + ">";
}

}  // namespace

std::string table(const std::vector<Column>& columns, const std::vector<std::vector<Cell>>& rows,
                  const TableOptions& options) {
  std::string out = "<div class=\"table-wrap\">";
  if (!options.caption.empty()) out += "<h3>" + escape(options.caption) + "</h3>";
  out += "<table class=\"data";
  if (!options.css_class.empty()) out += " " + options.css_class;
  out += "\"><thead><tr>";
  for (const Column& col : columns) {
    out += col.numeric ? "<th class=\"num\"" : "<th";
    if (!col.hint.empty()) out += " title=\"" + escape(col.hint) + "\"";
    out += ">" + escape(col.label) + "</th>";
  }
  out += "</tr></thead><tbody";
  if (!options.tbody_id.empty()) out += " id=\"" + escape(options.tbody_id) + "\"";
  out += ">";
  for (const auto& row : rows) {
    out += "<tr>";
    for (const Cell& c : row) out += cell_html("td", c);
    out += "</tr>";
  }
  return out + "</tbody></table></div>";
}

std::string kv_table(const std::vector<std::pair<std::string, std::string>>& rows,
                     const std::string& css_class) {
  std::string out = "<table class=\"" + escape(css_class) + "\"><tbody>";
  for (const auto& [label, value] : rows) {
    out += "<tr><th>" + escape(label) + "</th><td>" + value + "</td></tr>";
  }
  return out + "</tbody></table>";
}

std::string figure(const Figure& f) {
  std::string out = f.wide ? "<figure class=\"chart wide\">" : "<figure class=\"chart\">";
  out += "<div class=\"chart-title\">" + escape(f.title) + "</div>";
  out += "<div class=\"chart-box\" style=\"height:" + std::to_string(f.height_px) + "px\">";
  out += "<canvas data-chart=\"" + escape(f.chart) + "\" role=\"img\" aria-label=\"" +
         escape(f.title) + "\"></canvas></div>";
  out +=
      "<noscript><p class=\"noscript\">This chart needs JavaScript; its numbers are in the "
      "tables of this section.</p></noscript>";
  return out + "<figcaption>" + f.how_to_read + "</figcaption></figure>";
}

std::string section(const std::string& id, const std::string& title, const std::string& intro,
                    const std::string& body) {
  std::string out =
      "<section id=\"" + escape(id) + "\" class=\"card\"><h2>" + escape(title) + "</h2>";
  if (!intro.empty()) out += "<p class=\"intro\">" + intro + "</p>";
  return out + body + "</section>";
}

std::string no_data(const std::string& what) {
  return "<p class=\"no-data\">" + escape(what) + "</p>";
}

std::string chart_grid(const std::string& figures) {
  return "<div class=\"chart-grid\">" + figures + "</div>";
}

std::string json_value_html(const nlohmann::json& value) {
  if (value.is_string()) return escape(value.get<std::string>());
  if (value.is_number_integer()) {
    // Grouped from the exact text: a 64-bit counter would lose digits as a double.
    std::string digits = value.dump(), out;
    size_t first = digits[0] == '-' ? 1 : 0;
    for (size_t i = 0; i < digits.size(); ++i) {
      if (i > first && (digits.size() - i) % 3 == 0) out += ',';
      out += digits[i];
    }
    return out;
  }
  if (value.is_number()) return fmt_exact(value.get<double>());
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_null()) return kMissing;
  return "<code class=\"json\">" +
         escape(value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)) + "</code>";
}

namespace {

constexpr int kMaxJsonDepth = 4;
constexpr size_t kMaxJsonColumns = 12;

// [{...}, {...}] as a table, or "" when the array is not a list of similar objects.
std::string object_list_table(const nlohmann::json& list, int depth) {
  std::vector<std::string> keys;
  for (const auto& item : list) {
    if (!item.is_object()) return "";
    for (const auto& [key, v] : item.items()) {
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) keys.push_back(key);
    }
  }
  if (keys.empty() || keys.size() > kMaxJsonColumns) return "";
  std::vector<Column> columns;
  for (const std::string& key : keys) {
    bool numeric = true;
    for (const auto& item : list)
      numeric = numeric && (!item.contains(key) || item[key].is_number());
    columns.emplace_back(key, numeric);
  }
  std::vector<std::vector<Cell>> rows;
  for (const auto& item : list) {
    std::vector<Cell> row;
    for (size_t k = 0; k < keys.size(); ++k) {
      Cell cell =
          Cell::raw(item.contains(keys[k]) ? json_html(item[keys[k]], depth + 1) : kMissing);
      cell.numeric = columns[k].numeric;
      row.push_back(std::move(cell));
    }
    rows.push_back(std::move(row));
  }
  return table(columns, rows, {"", "compact nested"});
}

}  // namespace

std::string json_html(const nlohmann::json& value, int depth) {
  if (depth < kMaxJsonDepth && value.is_object() && !value.empty()) {
    std::vector<std::pair<std::string, std::string>> rows;
    for (const auto& [key, v] : value.items()) rows.emplace_back(key, json_html(v, depth + 1));
    return kv_table(rows, "kv nested");
  }
  if (depth < kMaxJsonDepth && value.is_array() && !value.empty()) {
    std::string html = object_list_table(value, depth);
    if (!html.empty()) return html;
  }
  return json_value_html(value);
}

std::string badge(const std::string& css_class, const std::string& text) {
  return "<span class=\"badge " + escape(css_class) + "\">" + escape(text) + "</span>";
}

}  // namespace fleet::report::html
