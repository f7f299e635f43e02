// The typed model of an L2 adapter-level trace (`level = "l2"`, docs/l2-traces.md): LMCache's
// L2 recorder writes one record per L2 task submission and completion (store, lookup_task,
// load_task), per unlock and delete, and one `l2.trace.end` marker. Framing, header and record
// envelope are those of storage traces; only the qualnames and their args differ.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleet/trace/types.h"

namespace fleet::trace {

inline constexpr std::string_view kLevelL2 = "l2";

enum class L2Kind : uint8_t {
  StoreSubmitted,
  StoreCompleted,
  LookupSubmitted,
  LookupCompleted,
  LoadSubmitted,
  LoadCompleted,
  UnlockSubmitted,
  DeleteSubmitted,
  TraceEnd,
  Unknown,  // an unknown qualname: kept in the sequence, otherwise ignored (as the fork does)
};
inline constexpr int kL2KindCount = 10;

// The operation a record belongs to: the second dotted part of its qualname.
enum class L2Op : uint8_t { Store, LookupTask, LoadTask, Unlock, Delete, None };

std::string_view l2_qualname(L2Kind k);  // "l2.store.submitted", ...; "" for Unknown
L2Kind l2_kind_from_qualname(std::string_view qualname);
L2Op l2_op_of(L2Kind k);
std::string_view l2_op_name(L2Op op);  // "store", "lookup_task", "load_task", "unlock", "delete"
bool is_l2_submission(L2Kind k);       // the five *.submitted kinds
bool is_l2_completion(L2Kind k);       // store / lookup_task / load_task completed

// (operation, adapter_index, task_id): task ids are unique only per adapter and shared by all
// operations of the mock adapter, so a task is always named by all three.
struct L2TaskKey {
  L2Op op = L2Op::None;
  int64_t adapter_index = 0;
  int64_t task_id = 0;
  auto operator<=>(const L2TaskKey&) const = default;
};

// One record, decoded. Which fields a kind carries (the rest stay at their defaults):
//   store.submitted     adapter_index task_id l2_name keys object_sizes key_count total_bytes
//                       key_count_per_salt
//   store.completed     adapter_index task_id l2_name bytes_transferred succeeded_count
//                       failed_count [key_count_per_salt]
//   lookup.submitted    request_id adapter_index task_id l2_name keys group_layouts
//   lookup.completed    request_id adapter_index task_id l2_name indices (hit_indices)
//   load.submitted      request_id adapter_index task_id l2_name keys object_sizes key_count
//                       total_bytes
//   load.completed      request_id adapter_index task_id l2_name indices (success_indices)
//   unlock.submitted    request_id adapter_index l2_name keys
//   delete.submitted    adapter_index (always -1) l2_name (a class name) keys
//   trace.end           recorder_dropped_count event_bus_dropped_count
struct L2Record {
  uint64_t sequence = 0;     // index among the records read (header excluded)
  uint64_t file_offset = 0;  // of the frame's length prefix
  double t_mono = 0.0;
  double t_wall = 0.0;
  L2Kind kind = L2Kind::Unknown;
  std::string unknown_qualname;  // only for L2Kind::Unknown

  std::optional<int64_t> request_id;
  int64_t adapter_index = 0;
  std::optional<int64_t> task_id;
  std::string l2_name;
  std::vector<ObjectKey> keys;
  std::vector<int64_t> object_sizes;
  int64_t key_count = 0;
  int64_t total_bytes = 0;  // as recorded: stores write object_sizes[0] x key_count
  std::vector<std::pair<std::string, int64_t>> key_count_per_salt;  // first-seen order
  // Lookups: layout per object group id. The older single `layout_desc` is group 0.
  std::map<int64_t, MemoryLayout> group_layouts;
  bool legacy_layout_desc = false;  // the layout came from `layout_desc`
  std::vector<int64_t> indices;     // hit_indices / success_indices
  int64_t bytes_transferred = 0;
  int64_t succeeded_count = 0;
  int64_t failed_count = 0;
  int64_t recorder_dropped_count = 0;
  int64_t event_bus_dropped_count = 0;

  std::string_view qualname() const;
  L2Op op() const { return l2_op_of(kind); }
  // The TaskKey of a store / lookup / load record (submitted or completed).
  L2TaskKey task_key() const { return {op(), adapter_index, task_id.value_or(0)}; }
  // Σ object_sizes: the bytes a store or load moves (what the replayer counts).
  int64_t object_bytes() const;
};

}  // namespace fleet::trace
