// What `lct lint` reports: one Finding per check (its section, id, title, whether it fails the
// lint), with a count and the first offsets and messages; lint_checks() is the catalogue, in
// the order they are printed.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace fleet::lct {

struct Finding {
  std::string section;
  std::string id;
  std::string title;
  bool problem = true;  // false: a note that does not fail the lint
  uint64_t count = 0;
  std::vector<uint64_t> offsets;
  std::vector<std::string> messages;
};

class Findings {
 public:
  explicit Findings(size_t max_offsets) : max_(max_offsets) {}
  Finding& def(const std::string& section, const std::string& id, const std::string& title,
               bool problem = true);
  // Counts n occurrences of check `id`; the first max_offsets keep their offset and message.
  void add(const std::string& id, uint64_t offset, std::string msg, uint64_t n = 1);
  const std::vector<Finding>& list() const { return list_; }
  size_t problems() const;  // checks that fail the lint and found something

 private:
  size_t max_;
  std::vector<Finding> list_;
  std::map<std::string, size_t> index_;
};

// Every check lint runs, none found yet.
Findings lint_checks(size_t max_offsets);

// "12, 40, ..." : the offsets kept, and "..." when there were more.
std::string offsets_text(const Finding& f);

}  // namespace fleet::lct
