// `lct lint` on an L2 trace (docs/lct.md): what makes a replay of it refused or misleading.
// Problems: the fork's refusals (end marker missing or duplicated, drops, several source
// adapters), frames skipped or cut off, completions without a submission, hit or success
// indices outside their task's keys, lookups without any layout. Notes (do not fail the lint):
// dependencies that point forward in file order (normal: an unlock of lookup hits that are not
// loaded precedes the load it depends on), t_mono stepping back, unknown kinds, submissions
// never completed, a recorded total_bytes that is not Σ object_sizes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "fleet/trace/l2_record.h"
#include "fleet/trace/l2_summary.h"

namespace fleet::trace {

struct L2Finding {
  std::string id;
  std::string title;
  bool problem = true;  // false: a note
  uint64_t count = 0;
  std::vector<uint64_t> offsets;  // the first few, with their messages
  std::vector<std::string> messages;
};

class L2Checks {
 public:
  explicit L2Checks(size_t max_examples = 5);
  void add(const L2Record& r);
  // After the last record: the end-of-file checks. `reader_warnings` are the reader's (offset,
  // text) reports: truncated tail, malformed frames skipped.
  void finish(const std::vector<std::pair<uint64_t, std::string>>& reader_warnings);
  // The read stopped at a record whose args do not decode (the fork aborts there too).
  void unreadable(uint64_t offset, const std::string& what);

  const L2Summary& summary() const { return summary_; }
  const std::vector<L2Finding>& findings() const { return findings_; }
  const L2Finding& finding(const std::string& id) const;
  size_t problems() const;

 private:
  struct Task {
    uint64_t sequence = 0;
    uint64_t offset = 0;
    size_t keys = 0;
    bool completed = false;
  };
  struct Request {
    std::vector<uint64_t> lookups;                        // submission sequences
    std::vector<std::pair<uint64_t, uint64_t>> unlocks;   // (sequence, offset)
    std::vector<std::pair<uint64_t, uint64_t>> loads_at;  // (sequence, offset)
  };
  void def(const char* id, const char* title, bool problem);
  // `count` findings at one record: counted `count` times, shown (while there is room) once.
  void note(const std::string& id, uint64_t offset, std::string message, uint64_t count = 1);
  void check_submission(const L2Record& r);
  void check_completion(const L2Record& r);
  void check_forward_edges();
  void check_end_marker();

  size_t max_examples_;
  std::vector<L2Finding> findings_;
  std::map<std::string, size_t> index_;
  L2Summary summary_;
  std::map<L2TaskKey, Task> tasks_;
  std::map<int64_t, Request> requests_;
};

}  // namespace fleet::trace
