#include "text_table.h"

#include <algorithm>

namespace fleet::compare {

namespace {

constexpr const char* kGap = "  ";

size_t display_width(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;  // one per code point
  return n;
}

std::string padded(const std::string& s, size_t width, bool right) {
  const std::string pad(width - std::min(width, display_width(s)), ' ');
  return right ? pad + s : s + pad;
}

}  // namespace

TextTable::TextTable(std::vector<std::string> header, std::vector<bool> right)
    : header_(std::move(header)), right_(std::move(right)) {
  right_.resize(header_.size(), false);
}

void TextTable::add_row(std::vector<std::string> cells) {
  cells.resize(header_.size());
  rows_.push_back({false, std::move(cells)});
}

void TextTable::add_heading(std::string text) { rows_.push_back({true, {std::move(text)}}); }

std::string TextTable::render() const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& cells) {
    for (size_t i = 0; i < cells.size(); ++i)
      width[i] = std::max(width[i], display_width(cells[i]));
  };
  measure(header_);
  for (const Row& r : rows_) {
    if (!r.heading) measure(r.cells);
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (size_t i = 0; i < cells.size(); ++i)
      out += (i ? kGap : "") + padded(cells[i], width[i], right_[i]);
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header_);
  for (const Row& r : rows_) out += r.heading ? r.cells.front() + "\n" : line(r.cells);
  return out;
}

}  // namespace fleet::compare
