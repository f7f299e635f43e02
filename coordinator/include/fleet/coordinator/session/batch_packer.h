// One link's batches as the routing thread builds them (docs/scaling.md, "Routing on its own
// thread"): records (or references into a shared trace) gathered into a batch, encoded with the
// link's codec, numbered with the link's next seq and queued on the RouteFeed for the control
// thread to send under credit. Owned and used by the routing thread only; a link that finished
// (RouteFeed::closed) gets no more records.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "fleet/coordinator/session/route_feed.h"
#include "fleet/wire/batch.h"

namespace fleet::session {

class BatchPacker {
 public:
  // `shared_trace`: the worker reads the trace itself, so an original record travels as a
  // reference (WorkerLink::use_shared_trace).
  BatchPacker(RouteFeed& feed, size_t link, wire::BatchCodec codec, int level, bool shared_trace);

  bool closed() const { return feed_->closed(link_); }
  // `file_offset`: the record's offset in the trace. `original`: `body` is the trace's own frame
  // (with a shared trace: a reference). A non-empty `key_mask` (of `mask_keys`) makes it a part
  // of a split call, a masked reference.
  void add_record(std::string_view body, double t_shift, uint64_t file_offset, bool original,
                  std::string_view key_mask = {}, uint16_t mask_keys = 0);
  // A record of the shared trace by reference only (a saved routing plan has no bodies).
  void add_reference(uint64_t file_offset, uint32_t body_size, double t_shift,
                     std::string_view key_mask = {}, uint16_t mask_keys = 0);
  void flush();  // the partial batch (before END)

  // For a BatchFanout, which builds one batch for several links: queue it as this link's next.
  void enqueue(PackedBatchPtr batch);
  int64_t next_seq() const { return seq_; }
  wire::BatchCodec codec() const { return codec_; }
  int codec_level() const { return level_; }
  bool shared_trace() const { return shared_trace_; }

 private:
  void start_record(double t_shift);  // a new t_shift starts a new batch
  void added(uint64_t file_offset, bool by_reference);

  RouteFeed* feed_;
  size_t link_;
  wire::BatchCodec codec_;
  int level_;
  bool shared_trace_;
  wire::BatchBuilder builder_;
  double builder_shift_ = 0.0;
  std::vector<uint64_t> offsets_;  // of the records in builder_
  uint64_t by_reference_ = 0;      // of them
  int64_t seq_ = 0;
};

}  // namespace fleet::session
