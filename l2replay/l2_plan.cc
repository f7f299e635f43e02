#include "fleet/l2replay/l2_plan.h"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_reader.h"
#include "fleet/trace/l2_summary.h"
#include "plan_reading.h"

namespace fleet::l2replay {

namespace {

using trace::L2Kind;
using trace::L2Record;
using trace::L2TaskKey;

struct TaskKeyHash {
  size_t operator()(const L2TaskKey& k) const noexcept {
    uint64_t h = static_cast<uint64_t>(k.task_id) * 0x9E3779B97F4A7C15ull;
    h ^= static_cast<uint64_t>(k.adapter_index) + (static_cast<uint64_t>(k.op) << 56);
    return static_cast<size_t>(h ^ (h >> 29));
  }
};

class Quiet final : public trace::Reporter {
 public:
  void warning(uint64_t, std::string_view) override {}
};

// Submissions in the whole file, from the qualnames alone (no args decoded): the selection's
// cut has to be known before the main pass can drop what lies beyond it.
uint64_t count_submissions(const std::string& path, uint32_t max_frame) {
  Quiet quiet;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = max_frame;
  ro.reporter = &quiet;
  ro.defer_args_check = true;
  trace::FrameReader reader(path, ro);
  trace::RecordView rec;
  uint64_t n = 0;
  while (reader.next(rec)) n += trace::is_l2_submission(trace::l2_kind_from_qualname(rec.qualname));
  return n;
}

L2PlanOp op_of(const L2Record& r) {
  L2PlanOp op;
  op.op = r.op();
  op.sequence = r.sequence;
  op.t_mono = r.t_mono;
  op.adapter_index = r.adapter_index;
  op.task_id = r.task_id.value_or(0);
  op.request_id = r.request_id.value_or(-1);
  op.keys = r.keys;
  op.sizes.assign(r.object_sizes.begin(), r.object_sizes.end());
  for (const auto& [gid, layout] : r.group_layouts)
    op.group_sizes.emplace_back(gid, layout.object_bytes());
  return op;
}

void set_outcome(L2PlanOp& op, const L2Record& r) {
  op.source_completed = true;
  op.completion_sequence = r.sequence;
  op.source_succeeded = r.succeeded_count > 0;
  op.source_indices = r.indices;
}

// One pass: the selected operations, their completions, and what the refusals need.
class Reading {
 public:
  Reading(L2Plan& plan, uint64_t cut) : plan_(plan), cut_(cut) {}

  void add(const L2Record& r) {
    if (r.kind == L2Kind::TraceEnd || r.kind == L2Kind::StoreSubmitted ||
        r.kind == L2Kind::LookupSubmitted || r.kind == L2Kind::LoadSubmitted) {
      summary_.add_completeness(r);
    }
    if (trace::is_l2_submission(r.kind)) {
      if (plan_.source_operations_total++ >= cut_) return;
      plan_.ops.push_back(op_of(r));
      if (r.op() != L2Op::Unlock && r.op() != L2Op::Delete)
        tasks_[r.task_key()] = static_cast<uint32_t>(plan_.ops.size() - 1);
    } else if (trace::is_l2_completion(r.kind)) {
      auto it = tasks_.find(r.task_key());
      if (it != tasks_.end()) set_outcome(plan_.ops[it->second], r);
    }
  }

  void refuse_if_incomplete(const trace::ReaderCounters& counters) const {
    std::vector<std::string> why = trace::l2_refusals(summary_.summary, counters);
    if (why.empty()) return;
    std::string text = plan_.path + ": ";
    for (size_t i = 0; i < why.size(); ++i) text += (i ? "; " : "") + why[i];
    throw std::runtime_error(text);
  }

 private:
  // Only the summary fields the refusals read: end markers and source adapters.
  struct Completeness {
    trace::L2Summary summary;
    void add_completeness(const L2Record& r) {
      if (r.kind == L2Kind::TraceEnd) {
        summary.end_markers.push_back({r.sequence, r.file_offset, r.t_mono,
                                       r.recorder_dropped_count, r.event_bus_dropped_count});
      } else {
        summary.source_adapters.insert(r.adapter_index);
      }
    }
  };
  L2Plan& plan_;
  uint64_t cut_;
  Completeness summary_;
  std::unordered_map<L2TaskKey, uint32_t, TaskKeyHash> tasks_;
};

}  // namespace

uint64_t L2PlanOp::bytes() const {
  uint64_t b = 0;
  for (uint64_t s : sizes) b += s;
  return b;
}

double L2Plan::trace_submission_window_seconds() const {
  return ops.empty() ? 0.0 : ops.back().t_mono - ops.front().t_mono;
}

uint64_t L2Plan::prepare_bytes() const {
  uint64_t b = 0;
  for (const auto& p : prepare) b += p.size;
  return b;
}

uint64_t selected_count(uint64_t total, double percent) {
  return static_cast<uint64_t>(std::ceil(static_cast<double>(total) * percent / 100.0));
}

L2Plan build_l2_plan(const std::string& path, const L2PlanOptions& o) {
  if (!std::isfinite(o.trace_percent) || o.trace_percent <= 0 || o.trace_percent > 100) {
    throw std::runtime_error(path + ": --trace-percent must be finite and in (0, 100]");
  }
  L2Plan plan;
  plan.path = path;
  plan.trace_percent = o.trace_percent;
  trace::ReaderOptions ro;
  ro.max_frame_bytes = o.max_frame_bytes;
  trace::L2Reader reader(path, ro);  // throws TraceError naming the file (also: not level l2)
  plan.header = reader.header();
  const uint64_t cut =
      o.trace_percent < 100
          ? selected_count(count_submissions(path, o.max_frame_bytes), o.trace_percent)
          : std::numeric_limits<uint64_t>::max();
  Reading reading(plan, cut);
  L2Record r;
  while (reader.next(r)) reading.add(r);
  reading.refuse_if_incomplete(reader.counters());
  const detail::StoresByKey stores = detail::successful_stores(plan);
  detail::link_dependencies(plan, stores);
  detail::plan_preparation(plan, stores);
  return plan;
}

}  // namespace fleet::l2replay
