// StorageManager::submit_prefetch_task (LMCache's SM submit_prefetch_task) as its phases:
// validate the spec, then one of warm (no L1 lookup: straight to L2), sparse (any L1 hit is
// used) or prefix (the L1 hits folded into the window's prefix). Each phase runs under mu_.
#include <stdexcept>

#include "fleet/engine/fold.h"
#include "fleet/engine/l1_manager.h"
#include "fleet/engine/prefetch_controller.h"
#include "fleet/engine/storage_manager.h"

namespace fleet::storage {

namespace {

KeyList pick(const KeyList& keys, const std::vector<uint8_t>& mask) {
  KeyList out;
  for (size_t i = 0; i < keys.size(); ++i)
    if (mask[i]) out.push_back(keys[i]);
  return out;
}

std::vector<size_t> positions(const std::vector<uint8_t>& mask) {
  std::vector<size_t> out;
  for (size_t i = 0; i < mask.size(); ++i)
    if (mask[i]) out.push_back(i);
  return out;
}

// Keys per chunk: one per object group and tensor-parallel rank.
size_t chunk_stride(const trace::PrefetchSpec& spec) {
  return spec.attn.num_object_groups() * static_cast<size_t>(spec.attn.world_size);
}

}  // namespace

PrefetchHandle StorageManager::submit_prefetch_task(const trace::PrefetchSpec& spec,
                                                    std::string_view external_request_id,
                                                    bool skip_l2) {
  CallLock g(*this);
  counters_.prefetch_calls++;
  validate_prefetch(spec);
  const size_t n = spec.keys.size();
  PrefetchHandle h;
  h.external_request_id = std::string(external_request_id);
  h.total_requested_keys = n;
  h.submit_time_ns = loop_.now_ns();
  h.generation = spec.generation;
  counters_.prefetch_keys_requested += n;
  const bool can_l2 = !skip_l2 && !adapters_.empty();
  if (spec.mode == trace::PrefetchMode::Warm) {
    submit_warm_prefetch(spec, can_l2, h);
    return h;
  }

  counters_.prefetch_lookup_calls++;
  std::vector<L1Status> st = l1_->reserve_read(spec.keys, spec.num_kv_readers);
  std::vector<uint8_t> present(n);
  for (size_t i = 0; i < n; ++i) present[i] = st[i] == L1Status::Success;
  if (spec.policy == trace::TrimPolicy::SegmentedPrefix) {
    // Raised after the hits were locked: those locks leak until the read TTL.
    reject_prefetch("Unsupported trim policy SEGMENTED_PREFIX");
  }
  if (spec.policy == trace::TrimPolicy::Sparse) {
    submit_sparse_prefetch(spec, present, can_l2, h);
  } else {
    submit_prefix_prefetch(spec, present, can_l2, h);
  }
  return h;
}

void StorageManager::reject_prefetch(const std::string& why) {
  counters_.prefetch_failed_calls++;
  throw std::invalid_argument(why);
}

// PrefetchRequestSpec / AttnWindowDesc validation (api.py).
void StorageManager::validate_prefetch(const trace::PrefetchSpec& spec) {
  if (spec.num_kv_readers < 1) reject_prefetch("num_kv_readers must be >= 1");
  if (spec.generation < 0) reject_prefetch("generation must be >= 0");
  if (spec.attn.world_size < 1) reject_prefetch("AttnWindowDesc: world_size must be >= 1");
  if (spec.attn.num_chunks_in_sw.empty()) reject_prefetch("AttnWindowDesc: no object groups");
  for (int64_t w : spec.attn.num_chunks_in_sw)
    if (w == 0 || w < -1)
      reject_prefetch("AttnWindowDesc: window must be -1 or >= 1, got " + std::to_string(w));
  const size_t groups = spec.attn.num_object_groups();
  for (size_t gid = 0; gid < groups; ++gid)
    if (!spec.group_layouts.count(static_cast<int64_t>(gid)))
      reject_prefetch("group_layout_descs must cover range(" + std::to_string(groups) +
                      "), missing " + std::to_string(gid));
  const size_t stride = chunk_stride(spec);
  const size_t n = spec.keys.size();
  if (spec.mode != trace::PrefetchMode::Warm && spec.policy == trace::TrimPolicy::Prefix &&
      n % stride != 0)
    reject_prefetch("PREFIX: len(keys)=" + std::to_string(n) +
                    " is not a multiple of G*W=" + std::to_string(stride));
}

void StorageManager::classify_now(const trace::ObjectKey& k, stats::MissClass cls) {
  if (!misses_) return;
  if (cls == stats::MissClass::NotFound)
    misses_->not_found(misses_->record(), k, loop_.now_ns());
  else
    misses_->prefetch_miss(misses_->record(), k, cls);
}

// WARM: no L1 lookup; every key goes to L2 when there is one.
void StorageManager::submit_warm_prefetch(const trace::PrefetchSpec& spec, bool can_l2,
                                          PrefetchHandle& h) {
  const size_t n = spec.keys.size();
  const PrefetchKeyBytes bytes_of(spec);
  counters_.prefetch_warm_calls++;
  engine::PrefetchOutcome& warm = counters_.cache.warm;
  for (const auto& k : spec.keys) warm.requested.add(bytes_of(k));
  if (can_l2 && n > 0) {
    h.prefetch_request_id = prefetch_->submit(spec);
    for (size_t i = 0; i < n; ++i) h.l2_orig_indices.push_back(i);
    counters_.prefetch_l2_submitted_requests++;
    counters_.prefetch_l2_submitted_keys += n;
  } else {
    for (const auto& k : spec.keys) warm.not_found.add(bytes_of(k));  // nowhere to warm from
  }
}

// SPARSE: every L1 hit is kept (leased until close); every miss goes to L2.
void StorageManager::submit_sparse_prefetch(const trace::PrefetchSpec& spec,
                                            const std::vector<uint8_t>& present, bool can_l2,
                                            PrefetchHandle& h) {
  const size_t n = spec.keys.size();
  const PrefetchKeyBytes bytes_of(spec);
  engine::PrefetchOutcome& out = counters_.cache.lookup;
  counters_.prefetch_sparse_calls++;
  h.l1_found_indices = positions(present);
  h.l1_hit_chunks = 0;
  counters_.prefetch_l1_hit_keys += h.l1_found_indices.size();
  counters_.prefetch_l1_miss_keys += n - h.l1_found_indices.size();
  std::vector<uint8_t> miss(n);
  for (size_t i = 0; i < n; ++i) miss[i] = !present[i];
  const bool to_l2 = can_l2 && h.l1_found_indices.size() < n;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = bytes_of(spec.keys[i]);
    out.requested.add(b);
    if (present[i]) {
      out.l1.add(b);
    } else if (!to_l2) {
      out.not_found.add(b);  // the rest is decided by the prefetch controller
      classify_now(spec.keys[i], stats::MissClass::NotFound);
    }
  }
  if (to_l2) {
    trace::PrefetchSpec sub = spec;
    sub.keys = pick(spec.keys, miss);
    h.l2_orig_indices = positions(miss);
    counters_.prefetch_l2_submitted_requests++;
    counters_.prefetch_l2_submitted_keys += sub.keys.size();
    h.prefetch_request_id = prefetch_->submit(std::move(sub));
  }
  if (!h.l1_found_indices.empty()) {
    leases_.push_back({pick(spec.keys, present), spec.num_kv_readers});
  }
}

// PREFIX (_submit_prefix_fold): the L1 hits folded into the window's prefix; hits outside it
// are released, and the keys after the prefix go to L2.
void StorageManager::submit_prefix_prefetch(const trace::PrefetchSpec& spec,
                                            const std::vector<uint8_t>& present, bool can_l2,
                                            PrefetchHandle& h) {
  const size_t n = spec.keys.size();
  const size_t stride = chunk_stride(spec);
  const PrefetchKeyBytes bytes_of(spec);
  engine::PrefetchOutcome& out = counters_.cache.lookup;
  counters_.prefetch_prefix_calls++;
  const size_t num_chunks = n / stride;
  FoldResult f = fold_unfold_ranked(present, num_chunks, static_cast<size_t>(spec.attn.world_size),
                                    spec.attn.num_chunks_in_sw);
  std::vector<uint8_t> released(n);
  size_t retained = 0;
  for (size_t i = 0; i < n; ++i) {
    released[i] = present[i] && !f.retain[i];
    retained += f.retain[i] && present[i];
  }
  KeyList rel = pick(spec.keys, released);
  if (!rel.empty()) l1_->finish_read(rel, spec.num_kv_readers);
  counters_.prefetch_l1_released_keys += rel.size();
  counters_.prefetch_l1_hit_keys += retained;
  counters_.prefetch_l1_miss_keys += n - retained;
  counters_.prefetch_l1_hit_chunks += f.hit_chunks;
  h.l1_hit_chunks = f.hit_chunks;
  for (size_t i = 0; i < n; ++i)
    if (f.retain[i] && present[i]) h.l1_found_indices.push_back(i);
  const size_t first = f.hit_chunks * stride;
  const bool to_l2 = can_l2 && first < n;
  for (size_t i = 0; i < n; ++i) {
    const uint64_t b = bytes_of(spec.keys[i]);
    out.requested.add(b);
    if (i < first) {
      const bool kept = f.retain[i] && present[i];
      (kept ? out.l1 : out.trimmed).add(b);  // trimmed: outside the window
      if (!kept) classify_now(spec.keys[i], stats::MissClass::Trimmed);
    } else if (!to_l2) {
      (present[i] ? out.trimmed : out.not_found).add(b);  // present after a broken prefix
      classify_now(spec.keys[i],
                   present[i] ? stats::MissClass::Trimmed : stats::MissClass::NotFound);
    }  // else: the prefetch controller decides
  }
  if (to_l2) {
    trace::PrefetchSpec sub = spec;
    sub.keys.assign(spec.keys.begin() + static_cast<std::ptrdiff_t>(first), spec.keys.end());
    for (size_t i = first; i < n; ++i) h.l2_orig_indices.push_back(i);
    counters_.prefetch_l2_submitted_requests++;
    counters_.prefetch_l2_submitted_keys += sub.keys.size();
    h.prefetch_request_id = prefetch_->submit(std::move(sub));
  }
}

}  // namespace fleet::storage
