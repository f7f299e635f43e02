// What the plan reads of each batch of records, laid out for it (l2_plan.cc): every record's
// key tags, object sizes, source indices and lookup bytes per object group, each in one
// contiguous array per batch, and where its keys are (the records' own vectors, held while the
// plan reads the batch: no 72-byte copy per key mention, ~220 MB on a 3.1 M-mention trace; the
// plan prefetches a record's keys a few records ahead). The decoding thread builds it
// (trace::L2BatchReader's `prepare`) while the records it just decoded are in that core's cache;
// the plan thread then streams through a few arrays, the keys prefetched, instead of chasing
// each record's heap blocks one load at a time, which was most of its time (docs/benchmarks.md,
// "L2 replay").
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "fleet/trace/l2_record.h"
#include "key_interner.h"

namespace fleet::l2replay::detail {

class PreparedBatch {
 public:
  using GroupBytes = std::pair<int64_t, uint64_t>;

  // Called on the decoding thread.
  void prepare(std::span<const trace::L2Record> records) {
    for (Part* p : {&keys_, &sizes_, &indices_, &groups_}) p->start(records.size());
    key_spans_.resize(records.size());
    tags_.clear();
    sizes_data_.clear();
    indices_data_.clear();
    groups_data_.clear();
    for (size_t i = 0; i < records.size(); ++i) {
      const trace::L2Record& r = records[i];
      keys_.mark(i, tags_.size());
      key_spans_[i] = r.keys;
      for (const trace::ObjectKey& k : r.keys) tags_.push_back(KeyInterner::tag_of(k));
      sizes_.mark(i, sizes_data_.size());
      sizes_data_.insert(sizes_data_.end(), r.object_sizes.begin(), r.object_sizes.end());
      indices_.mark(i, indices_data_.size());
      indices_data_.insert(indices_data_.end(), r.indices.begin(), r.indices.end());
      groups_.mark(i, groups_data_.size());
      for (const auto& [gid, layout] : r.group_layouts)
        groups_data_.emplace_back(gid, layout.object_bytes());
    }
    keys_.mark(records.size(), tags_.size());
    sizes_.mark(records.size(), sizes_data_.size());
    indices_.mark(records.size(), indices_data_.size());
    groups_.mark(records.size(), groups_data_.size());
  }

  // Record i's keys and their tags (KeyInterner::tag_of, in key order), its object_sizes, its
  // indices (hit / success) and its (object group, bytes) pairs.
  std::span<const trace::ObjectKey> keys(size_t i) const { return key_spans_[i]; }
  std::span<const uint32_t> tags(size_t i) const { return keys_.of(tags_, i); }
  std::span<const int64_t> sizes(size_t i) const { return sizes_.of(sizes_data_, i); }
  std::span<const int64_t> indices(size_t i) const { return indices_.of(indices_data_, i); }
  std::span<const GroupBytes> group_bytes(size_t i) const { return groups_.of(groups_data_, i); }

 private:
  // Where each record's run of one array starts: record i's are [at[i], at[i + 1]).
  struct Part {
    std::vector<uint32_t> at;
    void start(size_t records) { at.resize(records + 1); }
    void mark(size_t i, size_t offset) { at[i] = static_cast<uint32_t>(offset); }
    template <class T>
    std::span<const T> of(const std::vector<T>& data, size_t i) const {
      return {data.data() + at[i], at[i + 1] - at[i]};
    }
  };
  Part keys_, sizes_, indices_, groups_;
  std::vector<std::span<const trace::ObjectKey>> key_spans_;  // record i's keys, in the record
  std::vector<uint32_t> tags_;                                // one per key, in key order
  std::vector<int64_t> sizes_data_;
  std::vector<int64_t> indices_data_;
  std::vector<GroupBytes> groups_data_;
};

}  // namespace fleet::l2replay::detail
