// --shard none: every worker receives every record, in the same batches. When the links also
// encode batches alike (codec, level, references or records), the fan-out builds and encodes
// each batch once and queues the same payload on every link: the coordinator's cost per record
// then hardly grows with the number of workers (the L2 contention setup: many nodes replaying
// one trace). Each link still accounts its records (lost-node reporting needs their offsets,
// which the shared batch carries). On the routing thread, like the packers it feeds.
#pragma once

#include <string_view>
#include <vector>

#include "fleet/coordinator/session/batch_packer.h"
#include "fleet/wire/batch.h"

namespace fleet::session {

class BatchFanout {
 public:
  // Links that can share batches: same codec and level, same trace access, and nothing sent yet.
  static bool can_share(const std::vector<BatchPacker*>& links);

  explicit BatchFanout(std::vector<BatchPacker*> links);
  // `original`: the body is the trace's own frame (a reference when the links share it).
  void add_record(std::string_view body, uint64_t file_offset, bool original);
  // A record by reference only (the links share the trace; a saved routing plan).
  void add_reference(uint64_t file_offset, uint32_t body_size);
  void flush();  // the partial batch, before END

 private:
  void added(uint64_t file_offset, bool by_reference);  // flush if full

  std::vector<BatchPacker*> links_;
  // Per link: it was open for some record of the batch being built, so the batch is its.
  std::vector<char> in_batch_;
  wire::BatchBuilder builder_;
  std::vector<uint64_t> offsets_;  // of the records in builder_
  uint64_t by_reference_ = 0;
  int64_t seq_ = 0;
};

}  // namespace fleet::session
