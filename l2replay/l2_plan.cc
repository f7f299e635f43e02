#include "fleet/l2replay/l2_plan.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fleet/trace/errors.h"
#include "fleet/trace/frame_reader.h"
#include "fleet/trace/l2_batch_reader.h"
#include "fleet/trace/l2_reader.h"
#include "fleet/trace/l2_summary.h"
#include "fleet/util/ahead_prefaulter.h"
#include "key_interner.h"
#include "plan_reading.h"
#include "prepared_batch.h"

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

// `p`, `i`: r's prepared parts (its object sizes and group bytes).
L2PlanOp op_of(const L2Record& r, const detail::PreparedBatch& p, size_t i, L2Plan& plan) {
  L2PlanOp op;
  op.op = r.op();
  op.sequence = r.sequence;
  op.t_mono = r.t_mono;
  op.adapter_index = r.adapter_index;
  op.task_id = r.task_id.value_or(0);
  op.request_id = r.request_id.value_or(-1);
  op.sizes = L2Plan::append(plan.size_pool, p.sizes(i));
  if (const auto groups = p.group_bytes(i); !groups.empty())
    op.group_sizes = L2Plan::append(plan.group_size_pool, groups);
  return op;
}

// A task's source outcome, from its completion record: what every op of its TaskKey gets.
struct Outcome {
  uint64_t sequence = 0;
  bool succeeded = false;
  L2PoolRange indices;  // in the plan's index pool
};

void set_outcome(L2PlanOp& op, const Outcome& o) {
  op.source_completed = true;
  op.completion_sequence = o.sequence;
  op.source_succeeded = o.succeeded;
  op.source_indices = o.indices;
}

// Store / lookup / load tasks by L2TaskKey -> op index. Task ids are small counters in practice
// (the mock's is shared by all three operations): ids of the first adapter seen, below a bound
// that grows with the tasks put, index a vector per operation; anything else goes to a hash map.
// The bound only grows, so the newest put of a key is always where find looks first.
class TaskIndex {
 public:
  void put(const L2TaskKey& k, uint32_t op) {
    ++puts_;
    if (dense_ok(k)) {
      std::vector<uint32_t>& v = by_op_[static_cast<size_t>(k.op)];
      const size_t id = static_cast<size_t>(k.task_id);
      if (id >= v.size()) v.resize(std::max<size_t>(id + 1, v.size() * 2), kNone);
      v[id] = op;
    } else {
      sparse_[k] = op;
    }
  }
  std::optional<uint32_t> find(const L2TaskKey& k) const {
    if (dense_ok(k)) {
      const std::vector<uint32_t>& v = by_op_[static_cast<size_t>(k.op)];
      const size_t id = static_cast<size_t>(k.task_id);
      if (id < v.size() && v[id] != kNone) return v[id];
    }
    if (sparse_.empty()) return std::nullopt;
    auto it = sparse_.find(k);
    if (it == sparse_.end()) return std::nullopt;
    return it->second;
  }

 private:
  static constexpr uint32_t kNone = UINT32_MAX;

  bool dense_ok(const L2TaskKey& k) const {
    if (static_cast<size_t>(k.op) >= 3 || k.task_id < 0) return false;
    if (!adapter_) adapter_ = k.adapter_index;
    // A hostile task id cannot make the vector larger than a few entries per task put.
    return k.adapter_index == *adapter_ && static_cast<uint64_t>(k.task_id) < 4 * puts_ + 65536;
  }

  mutable std::optional<int64_t> adapter_;  // the first adapter seen
  uint64_t puts_ = 0;
  std::vector<uint32_t> by_op_[3];  // Store, LookupTask, LoadTask
  std::unordered_map<L2TaskKey, uint32_t, TaskKeyHash> sparse_;
};

// One pass: the selected operations, their completions, and what the refusals need.
class Reading {
 public:
  Reading(L2Plan& plan, uint64_t cut) : plan_(plan), cut_(cut), interned_(plan.keys) {}

  // `p`, `i`: where r's keys, tags, sizes and indices were laid out.
  void add(const L2Record& r, const detail::PreparedBatch& p, size_t i) {
    if (r.kind == L2Kind::TraceEnd || r.kind == L2Kind::StoreSubmitted ||
        r.kind == L2Kind::LookupSubmitted || r.kind == L2Kind::LoadSubmitted) {
      summary_.add_completeness(r);
    }
    if (trace::is_l2_submission(r.kind)) {
      if (plan_.source_operations_total++ >= cut_) return;
      plan_.ops.push_back(op_of(r, p, i, plan_));
      intern_keys(p.keys(i), p.tags(i), plan_.ops.back());
      if (r.op() != L2Op::Unlock && r.op() != L2Op::Delete) add_task(r.task_key());
    } else if (trace::is_l2_completion(r.kind)) {
      complete(r, p.indices(i));
    }
  }

  // A batch of records, the interning's cache misses taken ahead: the index entries of the keys
  // kAhead records on, the nodes of those half as far (their index entries arrived meanwhile).
  // Each key mention was hashed once, on the decoding thread (`prepared`), for both prefetches
  // and the interning.
  void add_batch(std::span<const L2Record> batch, const detail::PreparedBatch& prepared) {
    constexpr size_t kAhead = 8;
    for (size_t i = 0; i < batch.size(); ++i) {
      if (i + kAhead < batch.size())
        for (uint32_t tag : prepared.tags(i + kAhead)) interned_.prefetch_index(tag);
      if (i + kAhead / 2 < batch.size()) {
        for (uint32_t tag : prepared.tags(i + kAhead / 2)) interned_.prefetch_key(tag);
        prefetch_bytes(prepared.keys(i + kAhead / 2));
      }
      add(batch[i], prepared, i);
    }
    // The last keys seen stay comparable after the reader reuses this batch's records.
    if (!prev_keys_.empty() && prev_keys_.data() != prev_owned_.data()) {
      prev_owned_.assign(prev_keys_.begin(), prev_keys_.end());
      prev_keys_ = prev_owned_;
    }
  }

  // The keys are in the plan already (interned there): the index is no longer needed.
  void finish_keys() { interned_.clear(); }

  Status refusal(const trace::ReaderCounters& counters) const {
    std::vector<std::string> why = trace::l2_refusals(summary_.summary, counters);
    if (why.empty()) return Status();
    std::string text = plan_.path + ": ";
    for (size_t i = 0; i < why.size(); ++i) text += (i ? "; " : "") + why[i];
    return Status::error(text);
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
  // While the keys are still in cache from the decode.
  // A request's lookup, store, load and unlock name the same keys in the same order, one record
  // after the other: a key equal to the one at its position in the previous record takes that
  // id without a table probe (a compare instead of a hash and a likely cache miss).
  void intern_keys(std::span<const trace::ObjectKey> keys, std::span<const uint32_t> tags,
                   L2PlanOp& op) {
    ids_.clear();
    for (size_t j = 0; j < keys.size(); ++j) {
      const bool same = j < prev_keys_.size() && prev_keys_[j] == keys[j];
      ids_.push_back(same ? prev_ids_[j] : interned_.intern(keys[j], tags[j]));
    }
    op.keys = L2Plan::append(plan_.key_id_pool, ids_);
    if (keys.empty()) return;
    prev_keys_ = keys;  // in the batch being read (add_batch keeps a copy past its end)
    prev_ids_.swap(ids_);
  }

  static void prefetch_bytes(std::span<const trace::ObjectKey> keys) {
    const char* p = reinterpret_cast<const char*>(keys.data());
    const char* end = reinterpret_cast<const char*>(keys.data() + keys.size());
    for (; p < end; p += 64) __builtin_prefetch(p);
  }

  // The fork indexes completions by TaskKey over the whole file (docs/l2-traces.md, "The replay
  // plan"): a completion recorded before its submission (the recorder's threads publish in
  // either order) still counts, and every submission of a reused TaskKey gets the key's latest
  // completion. The common case, one submission and then its completion, touches neither map.
  void add_task(const L2TaskKey& k) {
    const uint32_t op = static_cast<uint32_t>(plan_.ops.size() - 1);
    if (const std::optional<uint32_t> earlier = tasks_.find(k)) {
      std::vector<uint32_t>& others = reused_[k];
      others.push_back(*earlier);
      const L2PlanOp& e = plan_.ops[*earlier];
      if (e.source_completed)
        set_outcome(plan_.ops[op], {e.completion_sequence, e.source_succeeded, e.source_indices});
    } else if (!early_.empty()) {
      if (auto it = early_.find(k); it != early_.end()) {
        set_outcome(plan_.ops[op], it->second);
        early_.erase(it);
      }
    }
    tasks_.put(k, op);
  }
  // The indices go to the end of the index pool; a later duplicate appends again and the ops
  // point at the newest (the older run stays unused).
  void complete(const L2Record& r, std::span<const int64_t> indices) {
    const L2TaskKey k = r.task_key();
    const std::optional<uint32_t> op = tasks_.find(k);
    // Past the cut no submission is selected any more: a completion of none is dropped.
    if (!op && plan_.source_operations_total >= cut_) return;
    const Outcome o{r.sequence, r.succeeded_count > 0, L2Plan::append(plan_.index_pool, indices)};
    if (!op) {
      early_[k] = o;
      return;
    }
    set_outcome(plan_.ops[*op], o);
    if (reused_.empty()) return;
    if (auto it = reused_.find(k); it != reused_.end())
      for (uint32_t other : it->second) set_outcome(plan_.ops[other], o);
  }

  L2Plan& plan_;
  uint64_t cut_;
  Completeness summary_;
  TaskIndex tasks_;
  std::unordered_map<L2TaskKey, Outcome, TaskKeyHash> early_;  // no submission read yet
  std::unordered_map<L2TaskKey, std::vector<uint32_t>, TaskKeyHash> reused_;  // earlier ops
  detail::KeyInterner interned_;                 // into plan_.keys: ids in first-seen order
  std::vector<uint32_t> ids_;                    // one record's, reused
  std::span<const trace::ObjectKey> prev_keys_;  // the last record with keys, and their ids
  std::vector<trace::ObjectKey> prev_owned_;     // prev_keys_ once its batch is left
  std::vector<uint32_t> prev_ids_;
};

// How far ahead of each pool's end its pages are populated: a few batches' worth.
constexpr size_t kAheadBytes = size_t{4} << 20;

// `read` of the file's `file_bytes` are in the pools: each pool's end is projected from the
// share read so far (the pools grow with the file), with a margin, so that the prefaulter does
// not zero pages past where the pools will end (up to its whole distance for each of them,
// 20 MiB, at this VM's ~1.6 ms per fresh MiB). Early on, nothing is projected.
size_t projected_end(size_t used_bytes, uint64_t read, uint64_t file_bytes) {
  if (file_bytes == 0 || read < file_bytes / 32) return SIZE_MAX;
  const double share = static_cast<double>(read) / static_cast<double>(file_bytes);
  return static_cast<size_t>(static_cast<double>(used_bytes) / share * 1.02) + (size_t{1} << 20);
}

void publish_pools(const L2Plan& plan, util::AheadPrefaulter& ahead, uint64_t read,
                   uint64_t file_bytes) {
  size_t i = 0;
  auto publish = [&](const auto& pool) {
    using T = typename std::decay_t<decltype(pool)>::value_type;
    const size_t used = pool.size() * sizeof(T);
    ahead.publish(i++, pool.data(), used, pool.capacity() * sizeof(T),
                  projected_end(used, read, file_bytes));
  };
  publish(plan.ops);
  publish(plan.key_id_pool);
  publish(plan.size_pool);
  publish(plan.index_pool);
  publish(plan.keys);
}

// Room for the pools of a trace of `file_bytes`, from what a record costs in the file (an
// operation's submission frame is hundreds of bytes, a key in it tens): a pool that grows by
// doubling copies itself and touches fresh pages each time, and fresh pages are what the plan
// waits for most (docs/benchmarks.md, "L2 replay"). Reserved pages are not touched until used;
// each reservation is capped, and a trace denser than the estimate only grows as before.
void reserve_pools(L2Plan& plan, uint64_t file_bytes) {
  constexpr uint64_t kCapBytes = 256ull << 20;
  auto reserve = [&](auto& pool, uint64_t file_bytes_per_element) {
    using T = typename std::decay_t<decltype(pool)>::value_type;
    pool.reserve(std::min(file_bytes / file_bytes_per_element, kCapBytes / sizeof(T)));
  };
  reserve(plan.ops, 512);
  reserve(plan.key_id_pool, 96);
  reserve(plan.size_pool, 128);
  reserve(plan.index_pool, 128);
  reserve(plan.keys, 96);  // at most one new key per key mention
}

}  // namespace

uint64_t L2Plan::bytes(const L2PlanOp& op) const {
  uint64_t b = 0;
  for (uint64_t s : sizes(op)) b += s;
  return b;
}

void L2Plan::adopt(const L2Plan& from, L2PlanOp op, uint32_t key_offset,
                   std::span<const uint32_t> op_deps) {
  const size_t keys_at = key_id_pool.size();
  op.keys = append(key_id_pool, from.key_ids(op));
  for (size_t k = keys_at; k < key_id_pool.size(); ++k) key_id_pool[k] += key_offset;
  op.sizes = append(size_pool, from.sizes(op));
  op.group_sizes = append(group_size_pool, from.group_sizes(op));
  op.source_indices = append(index_pool, from.source_indices(op));
  op.deps = append(dep_pool, op_deps);
  ops.push_back(op);
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

namespace {

Result<L2Plan> build(const std::string& path, const L2PlanOptions& o) {
  L2Plan plan;
  plan.path = path;
  plan.trace_percent = o.trace_percent;
  try {  // the reader's TraceError names the file: unreadable, not level l2, damaged mid-read
    trace::ReaderOptions ro;
    ro.max_frame_bytes = o.max_frame_bytes;
    // Records are decoded, and their keys hashed, on the reader's thread while this one plans
    // the batch before.
    constexpr size_t kBatchRecords = 512, kBatches = 8;
    std::vector<detail::PreparedBatch> prepared(kBatches);
    trace::L2BatchReader reader(path, ro, kBatchRecords, kBatches,
                                [&prepared](size_t slot, std::span<const L2Record> records) {
                                  prepared[slot].prepare(records);
                                });
    plan.header = reader.header();
    std::error_code size_error;  // the reader opened it: a size it cannot give only skips this
    const uintmax_t file_bytes = std::filesystem::file_size(path, size_error);
    if (!size_error) reserve_pools(plan, file_bytes);
    const uint64_t cut =
        o.trace_percent < 100
            ? selected_count(count_submissions(path, o.max_frame_bytes), o.trace_percent)
            : std::numeric_limits<uint64_t>::max();
    Reading reading(plan, cut);
    // The pools are populated ahead of their ends on another thread.
    util::AheadPrefaulter ahead(5, kAheadBytes);
    for (auto batch = reader.next_batch(); !batch.empty(); batch = reader.next_batch()) {
      publish_pools(plan, ahead, batch.front().file_offset, size_error ? 0 : file_bytes);
      reading.add_batch(batch, prepared[reader.slot()]);
    }
    if (Status s = reading.refusal(reader.counters()); !s) return s;
    reading.finish_keys();
  } catch (const trace::TraceError& e) {
    return Status::error(e.what());
  }
  const detail::StoresByKey stores = detail::successful_stores(plan);
  if (Status s = detail::link_dependencies(plan, stores); !s) return s;
  if (Status s = detail::plan_preparation(plan, stores); !s) return s;
  return plan;
}

}  // namespace

Result<L2Plan> build_l2_plan(const std::string& path, const L2PlanOptions& o) {
  if (!std::isfinite(o.trace_percent) || o.trace_percent <= 0 || o.trace_percent > 100)
    return Status::error(path + ": --trace-percent must be finite and in (0, 100]");
  try {  // a pool past 2^32 elements (std::length_error), memory the host does not have
    return build(path, o);
  } catch (const std::bad_alloc&) {
    return Status::error(path + ": out of memory building the L2 replay plan");
  } catch (const std::length_error& e) {
    return Status::error(path + ": " + e.what());
  }
}

}  // namespace fleet::l2replay
