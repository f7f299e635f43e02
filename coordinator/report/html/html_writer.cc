#include "html_writer.h"

#include <cctype>

#include "number_format.h"

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
  std::string out;
  out.reserve(text.size() + 64);
  // '<' occurs only inside JSON strings, where \u003c is the same character.
  for (char c : text) {
    if (c == '<') {
      out += "\\u003c";
    } else {
      out += c;
    }
  }
  return out;
}

std::string inline_safe(std::string_view code, std::string_view tag) {
  const std::string closing = "</" + std::string(tag);
  std::string out;
  out.reserve(code.size());
  for (size_t i = 0; i < code.size(); ++i) {
    bool match = i + closing.size() <= code.size();
    for (size_t k = 0; match && k < closing.size(); ++k) {
      match = std::tolower(static_cast<unsigned char>(code[i + k])) == closing[k];
    }
    // "<\/script" means the same in a JS string or regex and cannot end the element.
    if (match) {
      out += "<\\/";
      ++i;
      continue;
    }
    out += code[i];
  }
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

std::string badge(const std::string& css_class, const std::string& text) {
  return "<span class=\"badge " + escape(css_class) + "\">" + escape(text) + "</span>";
}

}  // namespace fleet::report::html
