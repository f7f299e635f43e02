// The normalised operation model: every recorded StorageManager call, whatever LMCache era
// wrote it (docs/trace-format.md §3.3), decodes into one Op. The dispatcher, the planner and
// the engines only ever see Ops.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fleet/trace/types.h"

namespace fleet::trace {

enum class OpKind : uint8_t {
  ReserveWrite,
  FinishWrite,
  AbortWrite,
  SubmitPrefetch,
  ReadEnter,
  ReadExit,
  FinishRead,
  Unknown,  // kept with its qualname; counted as skipped, as LMCache does
};
inline constexpr int kOpKindCount = 8;

std::string_view op_kind_name(OpKind k);  // "reserve_write", ..., "unknown"
// Maps a recorded qualname to its kind (exact match, as LMCache's dispatcher).
OpKind op_kind_from_qualname(std::string_view qualname);

struct Op {
  OpKind kind = OpKind::Unknown;
  double t_mono = 0.0;
  double t_wall = 0.0;
  std::string unknown_qualname;  // only for OpKind::Unknown; known kinds use the constant

  std::vector<ObjectKey> keys;  // every kind but SubmitPrefetch (its keys are in `spec`)
  // ReserveWrite
  MemoryLayout layout;
  WriteMode mode = WriteMode::New;
  // FinishRead: locks released per key (era 1: extra_count + 1)
  int64_t read_locks = 1;
  // SubmitPrefetch
  PrefetchSpec spec;
  std::string external_request_id;
  bool skip_l2 = false;

  // The recorded qualname (exact-match kinds map back to their constant).
  std::string_view qualname() const;

  const std::vector<ObjectKey>& op_keys() const {
    return kind == OpKind::SubmitPrefetch ? spec.keys : keys;
  }
};

}  // namespace fleet::trace
