#include "fleet/session/batch_fanout.h"

#include <memory>
#include <string>

namespace fleet::session {

bool BatchFanout::can_share(const std::vector<WorkerLink*>& links) {
  if (links.size() < 2) return false;
  for (const WorkerLink* l : links) {
    if (l->codec() != links[0]->codec() || l->codec_level() != links[0]->codec_level() ||
        l->shared_trace() != links[0]->shared_trace() || l->next_seq() != 0) {
      return false;
    }
  }
  return true;
}

BatchFanout::BatchFanout(std::vector<WorkerLink*> links) : links_(std::move(links)) {}

void BatchFanout::add_record(std::string_view body, uint64_t file_offset, bool unmodified) {
  const bool by_reference = unmodified && links_[0]->shared_trace();
  if (by_reference) {
    builder_.add_ref(file_offset, static_cast<uint32_t>(body.size()));
  } else {
    builder_.add(body);
  }
  for (WorkerLink* l : links_) {
    if (!l->finished()) l->note_fanout_record(file_offset, by_reference);
  }
  if (builder_.full()) flush();
}

void BatchFanout::flush() {
  if (builder_.empty()) return;
  wire::Batch b;
  b.seq = seq_++;  // every link's next seq: each link only ever gets this fan-out's batches
  b.records = static_cast<int64_t>(builder_.records());
  b.raw_bytes = static_cast<int64_t>(builder_.raw_bytes());
  b.t_shift = 0.0;  // --shard none never shifts
  const uint64_t records = builder_.records();
  const uint64_t raw_bytes = builder_.raw_bytes();
  const wire::BatchCodec codec = links_[0]->codec();
  std::string_view data = builder_.finish(codec, links_[0]->codec_level());
  b.codec = std::string(wire::codec_name(codec));
  b.data = msgpack::type::raw_ref(data.data(), static_cast<uint32_t>(data.size()));
  auto payload = std::make_shared<const std::string>(wire::encode(b));
  for (WorkerLink* l : links_) {
    if (!l->finished()) l->enqueue_fanout_batch(payload, records, raw_bytes);
  }
}

}  // namespace fleet::session
