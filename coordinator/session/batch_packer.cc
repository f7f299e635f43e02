#include "fleet/coordinator/session/batch_packer.h"

#include <memory>
#include <utility>

namespace fleet::session {

BatchPacker::BatchPacker(RouteFeed& feed, size_t link, wire::BatchCodec codec, int level,
                         bool shared_trace)
    : feed_(&feed), link_(link), codec_(codec), level_(level), shared_trace_(shared_trace) {}

void BatchPacker::add_record(std::string_view body, double t_shift, uint64_t file_offset,
                             bool original, std::string_view key_mask, uint16_t mask_keys) {
  if (shared_trace_ && original) {
    add_reference(file_offset, static_cast<uint32_t>(body.size()), t_shift, key_mask, mask_keys);
    return;
  }
  start_record(t_shift);
  builder_.add(body);
  added(file_offset, false);
}

void BatchPacker::add_reference(uint64_t file_offset, uint32_t body_size, double t_shift,
                                std::string_view key_mask, uint16_t mask_keys) {
  start_record(t_shift);
  if (!key_mask.empty()) {
    builder_.add_masked_ref(file_offset, body_size, key_mask, mask_keys);
  } else {
    builder_.add_ref(file_offset, body_size);
  }
  added(file_offset, true);
}

void BatchPacker::start_record(double t_shift) {
  if (!builder_.empty() && t_shift != builder_shift_) flush();
  builder_shift_ = t_shift;
}

void BatchPacker::added(uint64_t file_offset, bool by_reference) {
  offsets_.push_back(file_offset);
  by_reference_ += by_reference;
  if (builder_.full()) flush();
}

void BatchPacker::flush() {
  if (builder_.empty()) return;
  auto batch = std::make_shared<PackedBatch>();
  batch->message = wire::finish_batch_message(builder_, seq_, builder_shift_, codec_, level_);
  batch->offsets = std::exchange(offsets_, {});
  batch->by_reference = std::exchange(by_reference_, 0);
  enqueue(std::move(batch));
}

void BatchPacker::enqueue(PackedBatchPtr batch) {
  ++seq_;
  feed_->push(link_, std::move(batch));
}

}  // namespace fleet::session
