// The replay's first stage: records from a RecordSource, decoded into Ops (LMCache's skip
// rules; malformed frames handed back to the source), in order. Two ways to run it:
//  * InlineDecoder decodes on the caller's thread: one record at a time, or a few ahead while
//    a paced replay waits for its next instant (decode_ahead), so that reading and decoding
//    are not between a call and the one due right after it;
//  * DecodeAhead decodes on its own thread into a bounded ring (lock-free, one producer and
//    one consumer) so that reading and decoding overlap pacing, the engine call and the stats.
// Either way the session sees the same records in the same order with the same outcomes; only
// where the decoding CPU is spent differs (docs/architecture.md, "One replay").
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "fleet/replay/record_source.h"
#include "fleet/trace/op.h"
#include "fleet/util/clock.h"

namespace fleet::replay {

// One record as the session needs it once the source's buffer has moved on.
struct DecodedRecord {
  trace::Op op;         // kind Unknown: no handler (skipped); op.qualname() is the recorded name
  bool decoded = true;  // false: the args did not decode (skipped, warned about)
  double t_mono = 0.0;
  uint64_t file_offset = 0;
  std::string decode_error;  // why, when !decoded
};

class DecodedStream {
 public:
  virtual ~DecodedStream() = default;
  // The next record, valid until the next call; null at the end of the source. Rethrows what
  // the source threw (a trace that failed mid-read) once every record before it was returned.
  virtual const DecodedRecord* next() = 0;
  // Stops early (the session was asked to stop): later calls may return null.
  virtual void cancel() {}
  // The caller is idle until `until_ns` on `clock`: decode records ahead meanwhile, if the
  // stream does that on the caller's thread and its source never waits (a decoding thread
  // does it anyway). An error is kept and thrown by the next() that reaches it.
  virtual void decode_ahead(const util::Clock& clock, int64_t until_ns) {
    (void)clock;
    (void)until_ns;
  }
};

// Decodes `rec` into `out`; false when the source found the record malformed (it was handed
// to source.reject_malformed and must not be replayed).
bool decode_record(RecordSource& source, const trace::RecordView& rec, DecodedRecord& out);

class InlineDecoder final : public DecodedStream {
 public:
  // At most this many records are decoded ahead: enough to cover a burst of records due
  // back to back after one wait, few enough to stay in cache.
  static constexpr size_t kAhead = 16;

  explicit InlineDecoder(RecordSource& source) : source_(source) {}
  const DecodedRecord* next() override;
  void decode_ahead(const util::Clock& clock, int64_t until_ns) override;

 private:
  // Decodes the next record into slot `i`; false at the end of the source.
  bool decode_into(size_t i);

  RecordSource& source_;
  trace::RecordView rec_;
  // A ring: the record handed out last (in use until the next call), then `ahead_` decoded ones.
  std::array<DecodedRecord, kAhead + 1> slots_;
  size_t next_slot_ = 0;  // the oldest record decoded ahead, or where the next one goes
  size_t ahead_ = 0;
  bool ended_ = false;        // the source has no record after those decoded
  std::exception_ptr error_;  // the source failed after the records decoded ahead
};

class DecodeAhead final : public DecodedStream {
 public:
  // Starts the decoding thread at once. `slots` records may be decoded ahead of the consumer
  // (rounded up to a power of two).
  explicit DecodeAhead(RecordSource& source, size_t slots = 256);
  ~DecodeAhead() override;  // cancels and joins
  DecodeAhead(const DecodeAhead&) = delete;
  DecodeAhead& operator=(const DecodeAhead&) = delete;

  const DecodedRecord* next() override;
  void cancel() override;

 private:
  void produce();
  void release_previous();

  RecordSource& source_;
  std::vector<DecodedRecord> ring_;
  uint64_t mask_;
  // Records published by the producer and released by the consumer, each on its own cache
  // line (the two threads must not false-share); a side that waits for the other sleeps on its
  // doorbell, which the other rings only when the sleeping flag says someone is there.
  alignas(64) std::atomic<uint64_t> published_{0};
  std::atomic<bool> done_{false};  // no record after `published_` will come
  alignas(64) std::atomic<uint64_t> released_{0};
  std::atomic<bool> cancelled_{false};
  alignas(64) std::atomic<uint32_t> consumer_bell_{0};
  std::atomic<bool> consumer_sleeping_{false};
  alignas(64) std::atomic<uint32_t> producer_bell_{0};
  std::atomic<bool> producer_sleeping_{false};
  std::exception_ptr error_;  // written before done_, read after it
  uint64_t consumed_ = 0;     // consumer only: records handed out so far
  bool error_thrown_ = false;
  std::thread thread_;
};

}  // namespace fleet::replay
