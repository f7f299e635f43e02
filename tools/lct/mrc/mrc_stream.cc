#include "mrc/mrc_stream.h"

#include <limits>

#include "fleet/trace/errors.h"
#include "fleet/trace/op_decoder.h"

namespace fleet::mrc {

namespace {

using trace::ObjectKey;
using trace::OpKind;

// The layout of the key at `pos` of a prefetch spec: its own group's, else (as the engine
// does) the group of its slot in the chunk-major layout; null when the spec has neither.
const trace::MemoryLayout* prefetch_layout(const trace::PrefetchSpec& spec, size_t pos) {
  auto it = spec.group_layouts.find(spec.keys[pos].object_group_id);
  if (it != spec.group_layouts.end()) return &it->second;
  int64_t world = spec.attn.world_size > 0 ? spec.attn.world_size : 1;
  int64_t stride = static_cast<int64_t>(spec.attn.num_object_groups()) * world;
  if (stride <= 0) return nullptr;
  it = spec.group_layouts.find((static_cast<int64_t>(pos) % stride) / world);
  return it == spec.group_layouts.end() ? nullptr : &it->second;
}

}  // namespace

AccessStreamBuilder::AccessStreamBuilder(const StreamOptions& options)
    : options_(options), sampler_(options.sample_rate) {
  stream_.sizes.push_back(0);  // kUnsized, until finish()
  stream_.sample_rate = options.sample_rate >= 1.0 ? 1.0 : sampler_.effective_rate();
}

uint32_t AccessStreamBuilder::size_id(uint64_t bytes) {
  auto [it, fresh] = size_ids_.try_emplace(bytes, static_cast<uint32_t>(stream_.sizes.size()));
  if (fresh) {
    if (stream_.sizes.size() >= (std::numeric_limits<uint32_t>::max() >> 2)) {
      throw trace::TraceError("more than 2^30 distinct object sizes");
    }
    stream_.sizes.push_back(bytes);
  }
  return it->second;
}

void AccessStreamBuilder::access(const ObjectKey& key, AccessKind kind, uint64_t bytes,
                                 bool sized) {
  switch (kind) {
    case AccessKind::Write:
      ++stream_.trace_counts.writes;
      break;
    case AccessKind::Lookup:
      ++stream_.trace_counts.lookups;
      break;
    case AccessKind::Read:
      ++stream_.trace_counts.reads;
      break;
    case AccessKind::Forget:
      break;
  }
  if (sized) ++size_popularity_[bytes];
  if (stream_.sample_rate < 1.0 && !sampler_.keep(stable_key_hash(key))) return;

  auto [it, fresh] = key_ids_.try_emplace(key, stream_.distinct_keys);
  if (fresh) {
    ++stream_.distinct_keys;
    last_size_.push_back(kUnsized);
  }
  uint32_t id = it->second;
  uint32_t sid = kUnsized;
  if (kind != AccessKind::Forget) {
    if (sized) {
      sid = size_id(bytes);
      last_size_[id] = sid;
    } else {
      sid = last_size_[id];  // the object as it was last sized
      if (sid == kUnsized) ++stream_.sized_by_fallback;
    }
  }
  stream_.accesses.emplace_back(id, sid, kind);
}

void AccessStreamBuilder::add(const trace::Op& op) {
  switch (op.kind) {
    case OpKind::ReserveWrite: {
      uint64_t bytes = op.layout.object_bytes();
      for (const auto& k : op.keys) access(k, AccessKind::Write, bytes, true);
      break;
    }
    case OpKind::AbortWrite:
      for (const auto& k : op.keys) access(k, AccessKind::Forget, 0, false);
      break;
    case OpKind::SubmitPrefetch: {
      const bool warm = op.spec.mode == trace::PrefetchMode::Warm;
      if (warm && !options_.warm_as_write) {
        stream_.warm_keys_skipped += op.spec.keys.size();
        break;
      }
      AccessKind kind = warm ? AccessKind::Write : AccessKind::Lookup;
      for (size_t i = 0; i < op.spec.keys.size(); ++i) {
        const trace::MemoryLayout* layout = prefetch_layout(op.spec, i);
        access(op.spec.keys[i], kind, layout ? layout->object_bytes() : 0, layout != nullptr);
      }
      break;
    }
    case OpKind::ReadEnter:
      for (const auto& k : op.keys) access(k, AccessKind::Read, 0, false);
      break;
    default:
      break;  // finish_write, __exit__, finish_read_prefetched: no new access
  }
}

AccessStream AccessStreamBuilder::finish() {
  // The most common object size over sized accesses (ties: the smaller); 1 byte when the
  // trace has no layout at all, so the curve still counts objects.
  uint64_t best = 1, best_n = 0;
  for (const auto& [bytes, n] : size_popularity_) {
    if (n > best_n || (n == best_n && bytes < best)) best = bytes, best_n = n;
  }
  stream_.most_common_size = best;
  stream_.sizes[kUnsized] = best;
  // A read before any sized access of its key takes the key's last size in the whole trace.
  for (Access& a : stream_.accesses) {
    if (a.size_id() == kUnsized && a.kind() != AccessKind::Forget) {
      a = Access(a.key, last_size_[a.key], a.kind());
    }
  }
  return std::move(stream_);
}

void add_records(trace::FrameReader& reader, AccessStreamBuilder& builder) {
  trace::RecordView rec;
  trace::Op op;
  while (reader.next(rec)) {
    try {
      trace::decode_op(rec, op);
    } catch (const trace::DecodeError&) {
      builder.add_undecodable();
      continue;
    }
    builder.add(op);
  }
}

}  // namespace fleet::mrc
