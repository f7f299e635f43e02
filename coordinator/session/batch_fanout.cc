#include "fleet/coordinator/session/batch_fanout.h"

#include <memory>
#include <utility>

namespace fleet::session {

bool BatchFanout::can_share(const std::vector<BatchPacker*>& links) {
  if (links.size() < 2) return false;
  for (const BatchPacker* l : links) {
    if (l->codec() != links[0]->codec() || l->codec_level() != links[0]->codec_level() ||
        l->shared_trace() != links[0]->shared_trace() || l->next_seq() != 0) {
      return false;
    }
  }
  return true;
}

BatchFanout::BatchFanout(std::vector<BatchPacker*> links)
    : links_(std::move(links)), in_batch_(links_.size(), 0) {}

void BatchFanout::add_record(std::string_view body, uint64_t file_offset, bool original) {
  if (original && links_[0]->shared_trace()) {
    add_reference(file_offset, static_cast<uint32_t>(body.size()));
    return;
  }
  builder_.add(body);
  added(file_offset, false);
}

void BatchFanout::add_reference(uint64_t file_offset, uint32_t body_size) {
  builder_.add_ref(file_offset, body_size);
  added(file_offset, true);
}

void BatchFanout::added(uint64_t file_offset, bool by_reference) {
  // A link lost mid-batch still gets the batch (dropped, never sent): it keeps the offsets of
  // the records it was given. A link lost before it gets nothing more.
  if (offsets_.empty()) {
    for (size_t i = 0; i < links_.size(); ++i) in_batch_[i] = !links_[i]->closed();
  }
  offsets_.push_back(file_offset);
  by_reference_ += by_reference;
  if (builder_.full()) flush();
}

void BatchFanout::flush() {
  if (builder_.empty()) return;
  // seq: every link's next, since each link only ever gets this fan-out's batches; --shard
  // none never shifts time.
  auto batch = std::make_shared<PackedBatch>();
  batch->message = wire::finish_batch_message(builder_, seq_++, 0.0, links_[0]->codec(),
                                              links_[0]->codec_level());
  batch->offsets = std::exchange(offsets_, {});
  batch->by_reference = std::exchange(by_reference_, 0);
  for (size_t i = 0; i < links_.size(); ++i) {
    if (in_batch_[i]) links_[i]->enqueue(batch);
  }
}

}  // namespace fleet::session
