#include "fleet/trace/l2_checks.h"

#include <algorithm>

namespace fleet::trace {

namespace {
std::string task_text(const L2TaskKey& k) {
  return std::string(l2_op_name(k.op)) + " task " + std::to_string(k.task_id) + " of adapter " +
         std::to_string(k.adapter_index);
}
}  // namespace

L2Checks::L2Checks(size_t max_examples) : max_examples_(max_examples) {
  def("missing_end_marker", "no l2.trace.end marker (incomplete trace: refused)", true);
  def("duplicate_end_marker", "more than one l2.trace.end marker (refused)", true);
  def("drops", "end marker reports dropped events (incomplete trace: refused)", true);
  def("several_source_adapters", "more than one source adapter_index (refused)", true);
  def("malformed", "malformed frames skipped by the reader", true);
  def("truncated_tail", "truncated tail (records after it are lost)", true);
  def("unreadable", "records whose args do not decode (the read stops there)", true);
  def("completion_without_submission", "completions without an earlier submission", true);
  def("index_out_of_range", "hit/success indices outside their task's keys", true);
  def("lookup_without_layout", "lookups with neither group_layout_descs nor layout_desc", true);
  def("forward_edges", "dependencies pointing forward in file order (normal for unlocks)", false);
  def("duplicate_completion", "tasks completed more than once (the later one counts)", false);
  def("never_completed", "store/lookup/load submissions never completed", false);
  def("non_monotonic", "records whose t_mono is below the record before (never sort)", false);
  def("unknown_qualname", "records of unknown kinds (ignored)", false);
  def("total_bytes_mismatch", "recorded total_bytes differs from the sum of object_sizes", false);
}

void L2Checks::def(const char* id, const char* title, bool problem) {
  index_[id] = findings_.size();
  findings_.push_back({id, title, problem, 0, {}, {}});
}

void L2Checks::note(const std::string& id, uint64_t offset, std::string message, uint64_t count) {
  L2Finding& f = findings_[index_.at(id)];
  f.count += count;
  if (f.offsets.size() < max_examples_) {
    f.offsets.push_back(offset);
    f.messages.push_back(std::move(message));
  }
}

const L2Finding& L2Checks::finding(const std::string& id) const { return findings_[index_.at(id)]; }

size_t L2Checks::problems() const {
  return static_cast<size_t>(std::count_if(findings_.begin(), findings_.end(),
                                           [](const auto& f) { return f.problem && f.count > 0; }));
}

void L2Checks::add(const L2Record& r) {
  const double last = summary_.t_mono.last_record;
  const bool had_time = summary_.t_mono.any;
  summary_.add(r);
  if (r.kind == L2Kind::Unknown) note("unknown_qualname", r.file_offset, r.unknown_qualname);
  if (r.kind != L2Kind::TraceEnd && had_time && r.t_mono < last) {
    note("non_monotonic", r.file_offset,
         "t_mono " + std::to_string(r.t_mono) + " < " + std::to_string(last));
  }
  if (is_l2_submission(r.kind)) check_submission(r);
  if (is_l2_completion(r.kind)) check_completion(r);
}

void L2Checks::check_submission(const L2Record& r) {
  const bool sized = r.kind == L2Kind::StoreSubmitted || r.kind == L2Kind::LoadSubmitted;
  if (sized && r.total_bytes != r.object_bytes()) {
    note("total_bytes_mismatch", r.file_offset,
         std::string(r.qualname()) + " total_bytes " + std::to_string(r.total_bytes) +
             ", object_sizes sum to " + std::to_string(r.object_bytes()));
  }
  if (r.kind == L2Kind::LookupSubmitted && r.group_layouts.empty()) {
    note("lookup_without_layout", r.file_offset, task_text(r.task_key()));
  }
  if (r.request_id) {
    Request& q = requests_[*r.request_id];
    if (r.kind == L2Kind::LookupSubmitted) q.lookups.push_back(r.sequence);
    if (r.kind == L2Kind::LoadSubmitted) q.loads_at.emplace_back(r.sequence, r.file_offset);
    if (r.kind == L2Kind::UnlockSubmitted) q.unlocks.emplace_back(r.sequence, r.file_offset);
  }
  if (r.task_id && r.op() != L2Op::Unlock && r.op() != L2Op::Delete) {
    tasks_[r.task_key()] = {r.sequence, r.file_offset, r.keys.size(), false};
  }
}

void L2Checks::check_completion(const L2Record& r) {
  auto it = tasks_.find(r.task_key());
  if (it == tasks_.end()) {
    note("completion_without_submission", r.file_offset, task_text(r.task_key()));
    return;
  }
  Task& t = it->second;
  if (t.completed) note("duplicate_completion", r.file_offset, task_text(r.task_key()));
  t.completed = true;
  for (int64_t i : r.indices) {
    if (i < 0 || static_cast<uint64_t>(i) >= t.keys) {
      note("index_out_of_range", r.file_offset,
           task_text(r.task_key()) + ": index " + std::to_string(i) + " of " +
               std::to_string(t.keys) + " keys");
      break;
    }
  }
}

// The fork's request edges (docs/l2-traces.md, "Dependencies"): a load waits for the lookups of
// its request; an unlock for its request's loads, or its lookups when it has no load.
// Each edge is counted, as the plan counts them; a request whose operations share one id by
// the thousand has millions, so they are counted per dependent record by a binary search over
// its request's sequences (in file order: sorted), never pair by pair.
void L2Checks::check_forward_edges() {
  auto later_than = [](const std::vector<uint64_t>& sorted, uint64_t seq) {
    return static_cast<uint64_t>(sorted.end() -
                                 std::upper_bound(sorted.begin(), sorted.end(), seq));
  };
  for (const auto& [rid, q] : requests_) {
    std::vector<uint64_t> loads;
    for (const auto& [seq, off] : q.loads_at) loads.push_back(seq);
    for (const auto& [seq, off] : q.loads_at) {
      if (const uint64_t n = later_than(q.lookups, seq))
        note("forward_edges", off,
             "load of request " + std::to_string(rid) + " precedes its lookup", n);
    }
    for (const auto& [seq, off] : q.unlocks) {
      const bool on_loads = !loads.empty();
      if (const uint64_t n = later_than(on_loads ? loads : q.lookups, seq)) {
        note("forward_edges", off,
             "unlock of request " + std::to_string(rid) + " precedes its " +
                 (on_loads ? "load" : "lookup"),
             n);
      }
    }
  }
}

void L2Checks::check_end_marker() {
  const auto& markers = summary_.end_markers;
  if (markers.empty()) note("missing_end_marker", 0, "no l2.trace.end record");
  for (size_t i = 1; i < markers.size(); ++i) {
    note("duplicate_end_marker", markers[i].file_offset,
         "a second marker (the first is at offset " + std::to_string(markers[0].file_offset) + ")");
  }
  for (const L2EndMarker& m : markers) {
    if (m.recorder_dropped_count != 0 || m.event_bus_dropped_count != 0) {
      note("drops", m.file_offset,
           "recorder_dropped=" + std::to_string(m.recorder_dropped_count) +
               ", event_bus_dropped=" + std::to_string(m.event_bus_dropped_count));
    }
  }
}

void L2Checks::finish(const std::vector<std::pair<uint64_t, std::string>>& reader_warnings) {
  for (const auto& [offset, what] : reader_warnings) {
    note(what.rfind("truncated", 0) == 0 ? "truncated_tail" : "malformed", offset, what);
  }
  check_end_marker();
  if (summary_.source_adapters.size() > 1) {
    std::string list;
    for (int64_t a : summary_.source_adapters)
      list += (list.empty() ? "" : ", ") + std::to_string(a);
    note("several_source_adapters", 0, "adapter_index " + list);
  }
  for (const auto& [key, t] : tasks_) {
    if (!t.completed) note("never_completed", t.offset, task_text(key));
  }
  check_forward_edges();
}

void L2Checks::unreadable(uint64_t offset, const std::string& what) {
  note("unreadable", offset, what);
}

}  // namespace fleet::trace
