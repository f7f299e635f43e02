// An aligned plain-text table for the terminal: columns sized to their widest cell (counted in
// characters, not UTF-8 bytes), numbers right-aligned, and heading rows that span the table.
#pragma once

#include <string>
#include <vector>

namespace fleet::compare {

class TextTable {
 public:
  // `right[i]`: column i is right-aligned (numbers).
  TextTable(std::vector<std::string> header, std::vector<bool> right);

  void add_row(std::vector<std::string> cells);
  // A line of its own (e.g. an op's name) above the rows that follow it.
  void add_heading(std::string text);
  std::string render() const;

 private:
  struct Row {
    bool heading = false;
    std::vector<std::string> cells;
  };
  std::vector<std::string> header_;
  std::vector<bool> right_;
  std::vector<Row> rows_;
};

}  // namespace fleet::compare
