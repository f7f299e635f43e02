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

// Exchanges two Ops member by member (every container's own O(1) swap): std::swap's three
// whole-Op moves were 6 % of a self-routing worker's CPU (ShardRouter::take_decoded).
// A member added to Op (or to MemoryLayout, PrefetchSpec, AttnWindowDesc) is added here too.
inline void swap(Op& a, Op& b) noexcept {
  using std::swap;
  swap(a.kind, b.kind);
  swap(a.t_mono, b.t_mono);
  swap(a.t_wall, b.t_wall);
  a.unknown_qualname.swap(b.unknown_qualname);
  a.keys.swap(b.keys);
  a.layout.shapes.swap(b.layout.shapes);
  a.layout.dtypes.swap(b.layout.dtypes);
  swap(a.mode, b.mode);
  swap(a.read_locks, b.read_locks);
  PrefetchSpec& x = a.spec;
  PrefetchSpec& y = b.spec;
  x.keys.swap(y.keys);
  swap(x.num_kv_readers, y.num_kv_readers);
  swap(x.policy, y.policy);
  x.attn.num_chunks_in_sw.swap(y.attn.num_chunks_in_sw);
  swap(x.attn.world_size, y.attn.world_size);
  x.group_layouts.swap(y.group_layouts);
  swap(x.mode, y.mode);
  swap(x.generation, y.generation);
  a.external_request_id.swap(b.external_request_id);
  swap(a.skip_l2, b.skip_l2);
}

}  // namespace fleet::trace
